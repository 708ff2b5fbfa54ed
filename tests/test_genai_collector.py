"""The GenAI signals through a real collector to an OTLP backend: app (OTLP/HTTP exporters for
traces, metrics and logs) -> rotel -> an OTLP/HTTP receiver this test runs on 127.0.0.1, which
decodes what arrives with opentelemetry-proto. The judge is litellm over real HTTP."""

from __future__ import annotations

import gzip
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, Reply
from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2
from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
from opentelemetry.proto.common.v1.common_pb2 import AnyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span as ProtoSpan
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import BatchLogRecordProcessor
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from phoenix_server import poll
from rotel_collector import rotel
from test_genai_sdk import DOCS, FABRICATED, HONEST, SKILLS

from vcg_otel.audit import Auditor
from vcg_otel.llm.litellm import LiteLLMJudge
from vcg_otel.otel import semconv
from vcg_otel.otel.content import ContentPolicy
from vcg_otel.otel.record import emit_audit

REQUESTS = {
    "/v1/traces": trace_service_pb2.ExportTraceServiceRequest,
    "/v1/metrics": metrics_service_pb2.ExportMetricsServiceRequest,
    "/v1/logs": logs_service_pb2.ExportLogsServiceRequest,
}
RESPONSES = {
    "/v1/traces": trace_service_pb2.ExportTraceServiceResponse,
    "/v1/metrics": metrics_service_pb2.ExportMetricsServiceResponse,
    "/v1/logs": logs_service_pb2.ExportLogsServiceResponse,
}


class Receiver:
    """An OTLP/HTTP (protobuf) backend: keeps every decoded export request by signal."""

    def __init__(self) -> None:
        self.received: dict[str, list[Any]] = {path: [] for path in REQUESTS}
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                if self.headers.get("content-encoding") == "gzip":
                    body = gzip.decompress(body)
                path = self.path.split("?")[0]
                if path not in REQUESTS:
                    self.send_response(404)
                    self.end_headers()
                    return
                message = REQUESTS[path]()
                message.ParseFromString(body)
                owner.received[path].append(message)
                reply = RESPONSES[path]().SerializeToString()
                self.send_response(200)
                self.send_header("content-type", "application/x-protobuf")
                self.send_header("content-length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def spans(self) -> list[ProtoSpan]:
        return [s for req in self.received["/v1/traces"] for rs in req.resource_spans
                for ss in rs.scope_spans for s in ss.spans]

    def logs(self) -> list[Any]:
        return [r for req in self.received["/v1/logs"] for rl in req.resource_logs
                for sl in rl.scope_logs for r in sl.log_records]

    def metrics(self) -> dict[str, Any]:
        return {m.name: m for req in self.received["/v1/metrics"]
                for rm in req.resource_metrics for sm in rm.scope_metrics for m in sm.metrics}


def value(v: AnyValue) -> Any:
    kind = v.WhichOneof("value")
    return None if kind is None else getattr(v, kind)


def attributes(item: Any) -> dict[str, Any]:
    return {kv.key: value(kv.value) for kv in item.attributes}


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.server.shutdown()
    r.server.server_close()


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
