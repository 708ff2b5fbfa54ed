from __future__ import annotations

from collections.abc import Iterator

import pytest
from fake_openai import FakeOpenAI


@pytest.fixture
def openai_server() -> Iterator[FakeOpenAI]:
    """A scripted OpenAI-compatible server on 127.0.0.1 (set ``.responder`` per test)."""
    server = FakeOpenAI().start()
    try:
        yield server
    finally:
        server.stop()
