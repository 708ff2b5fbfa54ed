"""Fixtures of the integration tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from support.cli_files import files  # noqa: F401  (a fixture, shared by the CLI tests)
from support.otlp_receiver import Receiver


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    """An OTLP/HTTP backend on 127.0.0.1 that keeps every export request it decodes."""
    r = Receiver()
    yield r
    r.server.shutdown()
    r.server.server_close()
