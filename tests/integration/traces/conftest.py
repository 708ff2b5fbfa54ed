"""Fixtures of the trace-audit tests: the model over HTTP and the three framework apps."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from support.fake_openai import FakeOpenAI, Reply
from support.rag_apps import App, build


@pytest.fixture(scope="module")
def model() -> Iterator[FakeOpenAI]:
    server = FakeOpenAI().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def apps(model: FakeOpenAI, tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], App]:
    """``apps(name)``: that framework's app, built once for the module (skipped when the
    framework is missing), its answer scripted on the model."""
    built: dict[str, App] = {}

    def get(name: str) -> App:
        if name not in built:
            built[name] = build(name, model, tmp_path_factory.mktemp(name))
        app = built[name]
        text = app.quotes.answer()
        model.responder = lambda body: Reply(text, prompt_tokens=120, completion_tokens=60)
        return app

    return get
