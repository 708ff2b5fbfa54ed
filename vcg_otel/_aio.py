"""Running a coroutine to completion from synchronous code, wherever that code is called."""

from __future__ import annotations

import concurrent.futures
import contextvars
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(coro)``, on a helper thread if this thread already runs an event loop.

    The helper thread runs in a copy of the caller's context, so context variables (the
    audit's re-entrancy marker, OpenTelemetry's current span) reach the coroutine either way.
    """
    import asyncio  # lazily: importing asyncio costs ~40 ms, and sync-only users never need it

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="vcg-otel-sync") as helper:
        return helper.submit(contextvars.copy_context().run, asyncio.run, coro).result()
