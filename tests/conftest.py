from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings
from support.fake_openai import FakeOpenAI
from support.phoenix_server import PhoenixServer

# Property tests run the same examples on every run (derived from each test, not a random
# seed) and keep no example database between runs: CI fails the same way or not at all.
# Random exploration belongs to the fuzz targets (fuzz/), which run on their own.
settings.register_profile("deterministic", derandomize=True, database=None)
settings.load_profile("deterministic")


@pytest.fixture
def openai_server() -> Iterator[FakeOpenAI]:
    """A scripted OpenAI-compatible server on 127.0.0.1 (set ``.responder`` per test)."""
    server = FakeOpenAI().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def phoenix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PhoenixServer]:
    """A real Phoenix server for the whole session (skipped if Phoenix is not installed)."""
    if not phoenix_installed():
        if os.environ.get("CI"):
            pytest.fail("the Phoenix server is not installed in CI (test extra)")
        pytest.skip("the Phoenix server is not installed (test extra)")
    server = PhoenixServer(tmp_path_factory.mktemp("phoenix"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


def phoenix_installed() -> bool:
    """Without importing it (that takes seconds): is the Phoenix server package present?"""
    spec = importlib.util.find_spec("phoenix")
    locations = spec.submodule_search_locations if spec else None
    return any((Path(p) / "server" / "main.py").exists() for p in locations or ())
