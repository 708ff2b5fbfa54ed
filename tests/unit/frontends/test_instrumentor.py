"""CitationAuditInstrumentor: by import path, reversible, never twice, and via the launcher."""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from vcg_otel.instrumentor import CitationAuditInstrumentor, parse_target
from vcg_otel.otel import semconv

APP = textwrap.dedent('''
    DOCS = {"d": "The reranker improves accuracy by 4.2% over the baseline."}

    def answer(documents):
        return {"citations": [{"claim": "c", "quote": "improves accuracy", "doc_id": "d"},
                              {"claim": "c", "quote": "made up words", "doc_id": "d"}]}

    class Bot:
        def answer(self, documents):
            return {"citations": [{"claim": "c", "quote": "over the baseline", "doc_id": "d"}]}

        @staticmethod
        def quick(documents):
            return {"citations": [{"claim": "c", "quote": "The reranker", "doc_id": "d"}]}

        @classmethod
        def fresh(cls, documents):
            return {"bot": cls.__name__,
                    "citations": [{"claim": "c", "quote": "accuracy by 4.2%", "doc_id": "d"}]}

    class SubBot(Bot):
        pass

    async def ask(documents):
        return {"citations": [{"claim": "c", "quote": "improves accuracy", "doc_id": "d"}]}
''')


@pytest.fixture
def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    name = f"ragapp_{abs(hash(tmp_path)) % 10**8}"
    (tmp_path / f"{name}.py").write_text(APP)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name
    sys.modules.pop(name, None)


@pytest.fixture
def spans() -> Iterator[tuple[TracerProvider, InMemorySpanExporter]]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    yield provider, exporter
    instrumentor = CitationAuditInstrumentor()
    if instrumentor.is_instrumented_by_opentelemetry:
        instrumentor.uninstrument()
    provider.shutdown()


def test_functions_and_methods_are_wrapped_and_restored_exactly(
    app: str, spans: tuple[TracerProvider, InMemorySpanExporter]
) -> None:
    provider, exporter = spans
    module = __import__(app)
    names = ("answer", "quick", "fresh")
    originals = (module.answer, *(module.Bot.__dict__[n] for n in names))
    instrumentor = CitationAuditInstrumentor()
    instrumentor.instrument(targets=[f"{app}:answer", *(f"{app}:Bot.{n}" for n in names)],
                            tracer_provider=provider)
    assert module.answer is not originals[0]
    bot = module.Bot()
    module.answer(module.DOCS)
    bot.answer(module.DOCS)
    module.Bot.answer(bot, module.DOCS)  # through the class, self passed explicitly
    module.Bot.quick(module.DOCS)
    bot.quick(documents=module.DOCS)
    assert module.Bot.fresh(module.DOCS)["bot"] == "Bot"
    assert module.SubBot().fresh(module.DOCS)["bot"] == "SubBot"  # cls stays the subclass
    audits = [s for s in exporter.get_finished_spans() if s.name == semconv.SPAN_AUDIT]
    counts = sorted(s.attributes[semconv.COUNT_TOTAL] for s in audits)
    assert counts == [1, 1, 1, 1, 1, 1, 2]
    instrumentor.uninstrument()
    assert module.answer is originals[0]
    assert all(module.Bot.__dict__[n] is o for n, o in zip(names, originals[1:], strict=True))


def test_uninstrument_from_a_second_instance_restores_the_target(
    app: str, spans: tuple[TracerProvider, InMemorySpanExporter]
) -> None:
    """BaseInstrumentor is a singleton: constructing it again must not forget what it wrapped."""
    provider, exporter = spans
    module = __import__(app)
    originals = (module.answer, module.Bot.__dict__["quick"])
    CitationAuditInstrumentor().instrument(targets=[f"{app}:answer", f"{app}:Bot.quick"],
                                           tracer_provider=provider)
    assert module.answer is not originals[0]
    CitationAuditInstrumentor().uninstrument()
    assert module.answer is originals[0]
    assert module.Bot.__dict__["quick"] is originals[1]
    module.answer(module.DOCS)
    assert not [s for s in exporter.get_finished_spans() if s.name == semconv.SPAN_AUDIT]


def test_async_target_stays_a_coroutine_function(
    app: str, spans: tuple[TracerProvider, InMemorySpanExporter]
) -> None:
    """Frameworks pick how to call a handler by introspection (e.g. coroutine or not)."""
    provider, exporter = spans
    module = __import__(app)
    CitationAuditInstrumentor().instrument(targets=[f"{app}:ask"], tracer_provider=provider)
    assert inspect.iscoroutinefunction(module.ask)
    assert str(inspect.signature(module.ask)) == "(documents)"
    assert asyncio.run(module.ask(module.DOCS))["citations"][0]["quote"] == "improves accuracy"
    assert [s.name for s in exporter.get_finished_spans()].count(semconv.SPAN_AUDIT) == 1


def test_instrumenting_twice_does_not_double_wrap(
    app: str, spans: tuple[TracerProvider, InMemorySpanExporter]
) -> None:
    provider, exporter = spans
    module = __import__(app)
    CitationAuditInstrumentor().instrument(targets=[f"{app}:answer"], tracer_provider=provider)
    CitationAuditInstrumentor().instrument(targets=[f"{app}:answer"], tracer_provider=provider)
    module.answer(module.DOCS)
    assert len([s for s in exporter.get_finished_spans() if s.name == semconv.SPAN_AUDIT]) == 1


def test_module_imported_later_is_wrapped_on_import(
    app: str, spans: tuple[TracerProvider, InMemorySpanExporter], tmp_path: Path
) -> None:
    provider, exporter = spans
    later = f"{app}_later"
    CitationAuditInstrumentor().instrument(targets=[f"{later}:answer"], tracer_provider=provider)
    (tmp_path / f"{later}.py").write_text(APP)
    try:
        module = __import__(later)
        module.answer(module.DOCS)
        assert any(s.name == semconv.SPAN_AUDIT for s in exporter.get_finished_spans())
    finally:
        sys.modules.pop(later, None)


def test_targets_come_from_the_environment(
    app: str, spans: tuple[TracerProvider, InMemorySpanExporter],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    provider, exporter = spans
    monkeypatch.setenv("VCG_OTEL_TARGETS", f" {app}:answer , {app}:Bot.answer ")
    CitationAuditInstrumentor().instrument(tracer_provider=provider)
    module = __import__(app)
    module.answer(module.DOCS)
    module.Bot().answer(module.DOCS)
    module.Bot.quick(module.DOCS)  # not a target
    audits = [s for s in exporter.get_finished_spans() if s.name == semconv.SPAN_AUDIT]
    assert sorted(s.attributes[semconv.COUNT_TOTAL] for s in audits) == [1, 2]


@pytest.mark.parametrize("bad", ["no_colon", "a:b:c", ":f", "m:", "m:Class..f"])
def test_malformed_targets_are_rejected(bad: str) -> None:
    with pytest.raises(ValueError, match=r"package\.module:function"):
        parse_target(bad)


def test_opentelemetry_instrument_loads_it_through_the_entry_point(
    tmp_path: Path, app: str
) -> None:
    (tmp_path / "main.py").write_text(
        f"import {app} as app\nprint('RESULT', app.answer(app.DOCS)['citations'][0]['quote'])\n")
    launcher = Path(sys.executable).parent / "opentelemetry-instrument"
    if not launcher.exists():
        pytest.skip("opentelemetry-instrument not installed (test extra)")
    env: dict[str, Any] = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]),
        "VCG_OTEL_TARGETS": f"{app}:answer",
        "OTEL_TRACES_EXPORTER": "console",
        "OTEL_METRICS_EXPORTER": "none",
        "OTEL_LOGS_EXPORTER": "none",
        "OTEL_SERVICE_NAME": "rag-test",
    }
    out = subprocess.run([str(launcher), sys.executable, str(tmp_path / "main.py")],
                         capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "RESULT improves accuracy" in out.stdout  # the app's own output is unchanged
    spans = _console_spans(out.stdout)
    names = sorted(s["name"] for s in spans)
    assert names == ["citation.check", "citation.check", "citation_audit"]
    audit = next(s for s in spans if s["name"] == "citation_audit")
    assert audit["attributes"]["citation.count.not_found"] == 1
    assert audit["attributes"]["openinference.span.kind"] == "GUARDRAIL"


def _console_spans(stdout: str) -> list[dict[str, Any]]:
    """Parse the ConsoleSpanExporter's pretty-printed JSON objects out of stdout."""
    spans, decoder, pos = [], json.JSONDecoder(), stdout.find("{")
    while pos != -1:
        try:
            value, end = decoder.raw_decode(stdout, pos)
        except ValueError:
            pos = stdout.find("{", pos + 1)
            continue
        if isinstance(value, dict) and "context" in value and "name" in value:
            spans.append(value)
        pos = stdout.find("{", end)
    return spans
