"""The GenAI signals through a real collector to an OTLP backend: app (OTLP/HTTP exporters for
traces, metrics and logs) -> rotel -> an OTLP/HTTP receiver this test runs on 127.0.0.1, which
decodes what arrives with opentelemetry-proto. The judge is litellm over real HTTP."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import BatchLogRecordProcessor
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from support.abstract_case import DOCS, FABRICATED, HONEST, SKILLS
from support.fake_openai import FakeOpenAI, Reply
from support.otlp_receiver import ProtoSpan, Receiver, attributes, value
from support.phoenix_server import poll
from support.rotel_collector import rotel

from vcg_otel.audit import Auditor
from vcg_otel.llm.litellm import LiteLLMJudge
from vcg_otel.otel import semconv
from vcg_otel.otel.content import ContentPolicy
from vcg_otel.otel.record import emit_audit


@pytest.fixture
def collector(receiver: Receiver, tmp_path: Path) -> Iterator[str]:
    """rotel receiving all three signals over OTLP/HTTP, exporting OTLP/HTTP (gzip) onward."""
    with rotel(receiver.url, tmp_path / "rotel.log") as url:
        yield url


@pytest.fixture
def judge() -> Iterator[LiteLLMJudge]:
    server = FakeOpenAI().start()

    def answer(body: dict[str, Any]) -> Reply:
        user = body["messages"][-1]["content"]
        if "switch skills" in user:
            return Reply("no verdict in here", 140, 5)
        return Reply(json.dumps({"verdict": "supports", "confidence": 0.9,
                                 "reasoning": "the abstract states it"}), 180, 20)

    server.responder = answer
    try:
        yield LiteLLMJudge("openai/gpt-4o-mini", api_base=server.base_url, api_key="sk-test",
                           max_retries=0)
    finally:
        server.stop()


def test_genai_traces_metrics_and_events_arrive_through_a_collector(
        collector: str, receiver: Receiver, judge: LiteLLMJudge) -> None:
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(
        BatchSpanProcessor(OTLPSpanExporter(endpoint=collector + "/v1/traces")))
    logger_provider = LoggerProvider()
    logger_provider.add_log_record_processor(
        BatchLogRecordProcessor(OTLPLogExporter(endpoint=collector + "/v1/logs")))
    reader = PeriodicExportingMetricReader(
        OTLPMetricExporter(endpoint=collector + "/v1/metrics"), export_interval_millis=3_600_000)
    meter_provider = MeterProvider(metric_readers=[reader])

    report = Auditor(judge, cache=False).audit([HONEST, SKILLS, FABRICATED], DOCS)
    emit_audit(tracer_provider.get_tracer("app"), report, ContentPolicy.resolve(False),
               meter_provider=meter_provider, logger_provider=logger_provider)
    for provider in (tracer_provider, logger_provider, meter_provider):
        provider.force_flush()

    poll(lambda: receiver, lambda r: len(r.spans()) >= 6 and len(r.logs()) >= 4
         and {"gen_ai.client.token.usage", "gen_ai.client.operation.duration"} <= set(
             r.metrics()), timeout=30)

    spans = receiver.spans()
    judges = [s for s in spans if s.kind == ProtoSpan.SPAN_KIND_CLIENT]
    assert [s.name for s in judges] == ["chat gpt-4o-mini"] * 2
    ok, failed = sorted((attributes(s) for s in judges), key=lambda a: "error.type" in a)
    assert {k: ok[k] for k in ok if k.startswith("gen_ai.")} == {
        "gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-4o-mini", "gen_ai.response.model": "gpt-4o-mini",
        "gen_ai.usage.input_tokens": 180, "gen_ai.usage.output_tokens": 20}
    assert failed["error.type"] == "no_json"

    checks = {attributes(s)[semconv.CITATION_INDEX]: s for s in spans
              if s.name == semconv.SPAN_CHECK}
    results = {attributes(r)[semconv.CITATION_INDEX]: r for r in receiver.logs()
               if r.event_name == "gen_ai.evaluation.result"}
    assert sorted(results) == [0, 1, 2]
    for index, record in results.items():
        assert record.trace_id == checks[index].trace_id
        assert record.span_id == checks[index].span_id
    assert [attributes(results[i])["gen_ai.evaluation.score.label"] for i in (0, 1, 2)] == [
        "supports", "unjudged", "not_found"]
    assert [attributes(results[i])["gen_ai.evaluation.score.value"] for i in (0, 1, 2)] == [
        0.0, 0.0, 1.0]
    assert attributes(results[1])["error.type"] == "no_json"
    (fail,) = [r for r in receiver.logs() if r.event_name == semconv.EVENT_FAIL_CLOSED]
    assert fail.span_id == checks[1].span_id and fail.severity_text == "WARN"
    # content capture was off: nothing of the citations or the model's answers in any record
    for record in receiver.logs():
        dumped = json.dumps(attributes(record)) + str(value(record.body))
        assert "gen_ai.evaluation.explanation" not in dumped and "detail" not in dumped
        for text in (HONEST["claim"], HONEST["quote"], SKILLS["quote"], "no verdict in here",
                     "the abstract states it"):
            assert text not in dumped

    metrics = receiver.metrics()
    tokens = {attributes(p)["gen_ai.token.type"]: p
              for p in metrics["gen_ai.client.token.usage"].histogram.data_points}
    assert (tokens["input"].sum, tokens["output"].sum) == (320, 25)
    assert list(tokens["input"].explicit_bounds) == list(semconv.GENAI_TOKEN_BUCKETS)
    assert attributes(tokens["input"])["gen_ai.provider.name"] == "openai"
    durations = metrics["gen_ai.client.operation.duration"].histogram.data_points
    assert sorted(attributes(p).get("error.type", "") for p in durations) == ["", "no_json"]
    assert list(durations[0].explicit_bounds) == list(semconv.GENAI_DURATION_BUCKETS)
    assert metrics["gen_ai.client.operation.duration"].unit == "s"
    for provider in (tracer_provider, logger_provider, meter_provider):
        provider.shutdown()
