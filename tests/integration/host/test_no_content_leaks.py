"""Nothing leaks: hidden content stays out of every exported signal, and secrets out of all."""

from __future__ import annotations

import json
import logging
import urllib.request
from typing import Any

import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from support.fake_openai import FakeOpenAI, Reply
from support.phoenix_server import PhoenixServer, poll

from vcg_otel import audited_citations
from vcg_otel.llm import LiteLLMJudge
from vcg_otel.phoenix import register

SECRET_CLAIM = "Patient Halvorsen responds to drug Zeta-9"
SECRET_QUOTE = "patient Halvorsen showed full remission on Zeta-9"
DOCS = {"chart": f"Notes: {SECRET_QUOTE} after six weeks.", "other": "Unrelated record."}
API_KEY = "sk-live-DO-NOT-LEAK-1234567890"


def test_content_capture_off_leaves_nothing_in_spans_events_annotations_metrics_or_logs(
    phoenix: PhoenixServer, openai_server: FakeOpenAI, caplog: pytest.LogCaptureFixture,
) -> None:
    reasoning = f"The chart says {SECRET_QUOTE}."
    openai_server.responder = lambda body: Reply(
        json.dumps({"verdict": "supports", "confidence": 0.9, "reasoning": reasoning}), 50, 9)
    project = "security-capture-off"
    provider = register(project_name=project, endpoint=phoenix.url)
    memory = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    reader = InMemoryMetricReader()
    judge = LiteLLMJudge("openai/test-judge", api_base=openai_server.base_url, api_key=API_KEY,
                         max_retries=0)

    @audited_citations(judge=judge, capture_content=False, tracer_provider=provider,
                       meter_provider=MeterProvider(metric_readers=[reader]))
    def answer(documents: dict[str, str]) -> dict[str, Any]:
        return {"citations": [
            {"claim": SECRET_CLAIM, "quote": SECRET_QUOTE, "doc_id": "chart"},
            {"claim": SECRET_CLAIM, "quote": "Zeta-9 cured patient Halvorsen", "doc_id": "chart"}]}

    with caplog.at_level(logging.DEBUG):
        answer(DOCS)
        provider.force_flush()
    spans = poll(lambda: phoenix.spans(project), lambda s: len(s) >= 4)
    ids = [s["context"]["span_id"] for s in spans]
    notes = poll(lambda: phoenix.annotations(project, ids), lambda a: len(a) >= 3)
    exported = "\n".join([
        json.dumps(spans), json.dumps(notes),
        "\n".join(s.to_json() for s in memory.get_finished_spans()),
        reader.get_metrics_data().to_json(),  # type: ignore[union-attr]
        caplog.text,
    ])
    assert len(notes) >= 3 and "citation.check" in exported  # there is something to search
    # words, not bare numbers: "4471" once matched a timestamp (00:55:00.447194)
    for secret in (SECRET_CLAIM, SECRET_QUOTE, "Zeta-9", "Halvorsen", API_KEY):
        assert secret not in exported, secret
    provider.shutdown()


def test_api_keys_never_reach_spans_events_or_recorded_errors(openai_server: FakeOpenAI
                                                              ) -> None:
    openai_server.responder = lambda body: Reply(status=500)
    memory = InMemorySpanExporter()
    from opentelemetry.sdk.trace import TracerProvider

    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    judge = LiteLLMJudge("openai/test-judge", api_base=openai_server.base_url, api_key=API_KEY,
                         max_retries=0)

    @audited_citations(judge=judge, capture_content=True, tracer_provider=provider)
    def answer(documents: dict[str, str]) -> dict[str, Any]:
        return {"citations": [{"claim": "c", "quote": SECRET_QUOTE, "doc_id": "chart"}]}

    answer(DOCS)
    dump = "\n".join(s.to_json() for s in memory.get_finished_spans())
    assert "fail_closed" in dump and "raised" in dump  # the failure itself is recorded
    assert API_KEY not in dump
    assert openai_server.requests  # the key was really used on the wire...
    request = urllib.request.Request(openai_server.base_url)  # ...and only there
    assert API_KEY not in repr(judge) and API_KEY not in repr(request)


def _exported(memory: InMemorySpanExporter) -> str:
    return "\n".join(s.to_json() for s in memory.get_finished_spans())


@pytest.mark.parametrize("where", ["handler", "extractor", "chained"])
def test_capture_off_records_an_exceptions_type_never_its_message(where: str) -> None:
    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))

    def extractor(arguments: dict[str, Any], result: Any) -> Any:
        raise RuntimeError(f"could not read {SECRET_QUOTE}")

    @audited_citations(capture_content=False, tracer_provider=provider,
                       citations=extractor if where == "extractor" else None)
    def answer(documents: dict[str, str]) -> dict[str, Any]:
        if where == "handler":
            raise ValueError(f"bad answer: {SECRET_CLAIM}")
        if where == "chained":
            try:
                raise KeyError(SECRET_CLAIM)
            except KeyError as exc:
                raise ValueError("wrapped") from exc
        return {"citations": [{"claim": SECRET_CLAIM, "quote": SECRET_QUOTE, "doc_id": "chart"}]}

    try:
        answer(DOCS)
    except ValueError:
        assert where != "extractor"
    exported = _exported(memory)
    (event,) = [e for s in memory.get_finished_spans() for e in s.events if e.name == "exception"]
    assert event.attributes["exception.type"] in ("ValueError", "RuntimeError")
    assert "exception.message" not in event.attributes
    assert "Traceback" in event.attributes["exception.stacktrace"]  # frames stay: debuggable
    for secret in (SECRET_CLAIM, SECRET_QUOTE, "Halvorsen"):
        assert secret not in exported, secret


def test_capture_on_still_records_exception_messages() -> None:
    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))

    @audited_citations(capture_content=True, tracer_provider=provider)
    def answer(documents: dict[str, str]) -> dict[str, Any]:
        raise ValueError("visible message")

    with pytest.raises(ValueError):
        answer(DOCS)
    assert "visible message" in _exported(memory)


def test_capture_off_exports_only_ids_that_are_ids() -> None:
    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))

    @audited_citations(capture_content=False, tracer_provider=provider)
    def answer(documents: dict[str, str]) -> dict[str, Any]:
        return {"citations": [
            {"claim": "c", "quote": "full remission", "doc_id": {"body": SECRET_CLAIM}},
            {"claim": "c", "quote": "full remission", "doc_id": f"{SECRET_CLAIM}\nline two"},
            {"claim": "c", "quote": "full remission", "doc_id": "chart"}]}

    answer(DOCS)
    exported = _exported(memory)
    ids = [s.attributes.get("citation.document.id") for s in memory.get_finished_spans()
           if s.name == "citation.check"]
    assert ids == [None, None, "chart"]
    assert SECRET_CLAIM not in exported and "Halvorsen" not in exported
