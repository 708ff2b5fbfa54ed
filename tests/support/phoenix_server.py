"""Test helpers around the real Phoenix server (the launcher is vcg_otel.phoenix.local)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from vcg_otel.phoenix.local import LocalPhoenix as PhoenixServer
from vcg_otel.phoenix.local import free_port

__all__ = ["PhoenixServer", "free_port", "poll"]

T = TypeVar("T")


def poll(fetch: Callable[[], T], done: Callable[[T], bool], timeout: float = 20.0) -> T:
    """Call ``fetch`` until ``done(result)``; spans become readable shortly after export."""
    deadline = time.monotonic() + timeout
    while True:
        value = fetch()
        if done(value) or time.monotonic() > deadline:
            return value
        time.sleep(0.1)
