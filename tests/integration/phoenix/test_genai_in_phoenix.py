"""What Phoenix does with log-based events and with span events, measured against a real server.

These facts choose vcg_otel's defaults (README, "What is emitted"): Phoenix (20.26) accepts OTLP
traces only, over HTTP and gRPC; OTLP logs are refused on both, so log-based events never
reach it; span events are stored with their span and served back. Hence span-event copies stay
on by default (``VCG_OTEL_SPAN_EVENTS``). If a Phoenix release starts taking logs, the first
two tests fail, and the default deserves another look. (OTLP metrics are refused too.)
"""

from __future__ import annotations

import urllib.error
import urllib.request
from typing import Any

import pytest
from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import SimpleLogRecordProcessor
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from support.abstract_case import DOCS, FABRICATED, HONEST, SKILLS, Judge
from support.phoenix_server import PhoenixServer, poll

from vcg_otel.audit import Auditor
from vcg_otel.otel import semconv
from vcg_otel.otel.content import ContentPolicy
from vcg_otel.otel.record import emit_audit


def _audit_into(phoenix: PhoenixServer, project: str,
                logger_provider: LoggerProvider | None = None) -> None:
    resource = Resource.create({"openinference.project.name": project})
    provider = TracerProvider(resource=resource)
    provider.add_span_processor(
        SimpleSpanProcessor(OTLPSpanExporter(endpoint=phoenix.url + "/v1/traces")))
    report = Auditor(Judge(), cache=False).audit([HONEST, SKILLS, FABRICATED], DOCS)
    emit_audit(provider.get_tracer("app"), report, ContentPolicy.resolve(True),
               check_spans=False, logger_provider=logger_provider)
    provider.shutdown()


def _recording(exporter: Any) -> list[Any]:
    """The results of every ``export`` call the exporter answers from now on."""
    results: list[Any] = []

    class Recording(type(exporter)):  # type: ignore[misc]
        def export(self, batch: Any) -> Any:
            result = super().export(batch)
            results.append(result)
            return result

    exporter.__class__ = Recording
    return results


def _logs_provider(exporter: Any, project: str) -> tuple[LoggerProvider, list[Any]]:
    results = _recording(exporter)
    provider = LoggerProvider(resource=Resource.create({"openinference.project.name": project}))
    provider.add_log_record_processor(SimpleLogRecordProcessor(exporter))
    return provider, results


def test_phoenix_refuses_otlp_logs_and_metrics_over_http(phoenix: PhoenixServer) -> None:
    request = logs_service_pb2.ExportLogsServiceRequest().SerializeToString()
    for path in ("/v1/logs", "/v1/metrics"):
        post = urllib.request.Request(phoenix.url + path, data=request, method="POST",
                                      headers={"content-type": "application/x-protobuf"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(post, timeout=10)
        assert refused.value.code == 405, path
    # and what an application's exporter sees: every export of our events fails
    provider, results = _logs_provider(
        OTLPLogExporter(endpoint=phoenix.url + "/v1/logs", timeout=5), "logs-http")
    _audit_into(phoenix, "logs-http", provider)
    provider.shutdown()
    assert results and all(r.name == "FAILURE" for r in results)


def test_phoenix_has_no_otlp_logs_service_over_grpc(phoenix: PhoenixServer) -> None:
    grpc_exporter = pytest.importorskip(
        "opentelemetry.exporter.otlp.proto.grpc._log_exporter")
    provider, results = _logs_provider(grpc_exporter.OTLPLogExporter(
        endpoint=f"127.0.0.1:{phoenix.grpc_port}", insecure=True, timeout=5), "logs-grpc")
    _audit_into(phoenix, "logs-grpc", provider)
    provider.shutdown()
    assert results and all(r.name == "FAILURE" for r in results)
    # the port is Phoenix's gRPC server all right: spans sent there are taken
    traces = pytest.importorskip("opentelemetry.exporter.otlp.proto.grpc.trace_exporter")
    exporter = traces.OTLPSpanExporter(endpoint=f"127.0.0.1:{phoenix.grpc_port}",
                                       insecure=True, timeout=5)
    sent = _recording(exporter)
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer_provider.get_tracer("probe").start_span("probe").end()
    tracer_provider.shutdown()
    assert [r.name for r in sent] == ["SUCCESS"]


def test_phoenix_stores_and_serves_span_events_of_an_audit(phoenix: PhoenixServer) -> None:
    project = "span-events"
    _audit_into(phoenix, project)
    spans = poll(lambda: phoenix.spans(project),
                 lambda s: any(x["name"] == semconv.SPAN_AUDIT for x in s))
    audit = next(s for s in spans if s["name"] == semconv.SPAN_AUDIT)
    events = audit["events"]
    checks = [e["attributes"] for e in events if e["name"] == semconv.EVENT_CHECK]
    assert [c[semconv.VERDICT] for c in checks] == ["supports", "unjudged", "not_found"]
    (failed,) = [e["attributes"] for e in events if e["name"] == semconv.EVENT_FAIL_CLOSED]
    assert failed[semconv.EVENT_ATTR_REASON] == "no_json" and failed[
        semconv.CITATION_INDEX] == 1
    # Phoenix keeps the judge spans' GenAI attributes as plain attributes, next to the
    # OpenInference ones it renders
    judges = [s for s in spans if s["name"] == "chat gpt-4o-mini"]
    assert len(judges) == 2 and all(j["span_kind"] == "LLM" for j in judges)
    assert {j["attributes"]["gen_ai.provider.name"] for j in judges} == {"openai"}
    assert {j["attributes"].get("error.type") for j in judges} == {None, "no_json"}
