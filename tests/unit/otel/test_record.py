"""One record path: the decorator, the instrumentor and the integrations write spans, metrics
and events through ``vcg_otel.otel.record``; a logger provider alone is enough to audit."""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any

from opentelemetry import metrics, trace
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import SimpleLogRecordProcessor

try:
    from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter as InMemoryLogs
except ImportError:  # pragma: no cover - older SDK
    from opentelemetry.sdk._logs.export import InMemoryLogExporter as InMemoryLogs

from vcg_otel import audited_citations
from vcg_otel.otel import semconv

DOCS = {"paper": "The reranker improves accuracy by 4.2% over the baseline."}


def answer(question: str) -> dict[str, Any]:
    return {"documents": DOCS, "citations": [
        {"claim": "helps", "quote": "improves accuracy by 4.2%", "doc_id": "paper"},
        {"claim": "fast", "quote": "halves latency everywhere", "doc_id": "paper"}]}


def logs() -> tuple[LoggerProvider, Any]:
    out = InMemoryLogs()
    provider = LoggerProvider()
    provider.add_log_record_processor(SimpleLogRecordProcessor(out))
    return provider, out


def labels(out: Any) -> list[str]:
    return sorted(str(d.log_record.attributes["gen_ai.evaluation.score.label"])
                  for d in out.get_finished_logs()
                  if d.log_record.event_name == semconv.EVENT_EVALUATION_RESULT)


def no_global_traces_or_metrics() -> None:
    assert isinstance(trace.get_tracer_provider(),
                      (trace.ProxyTracerProvider, trace.NoOpTracerProvider))
    assert type(metrics.get_meter_provider()).__name__ in ("_ProxyMeterProvider",
                                                           "NoOpMeterProvider")


def test_a_logger_provider_alone_makes_the_decorator_audit_and_receive_the_events() -> None:
    no_global_traces_or_metrics()
    provider, out = logs()
    audited = audited_citations(logger_provider=provider)(answer)
    assert audited("q") == answer("q")  # observe mode: the result is untouched
    assert labels(out) == ["found", "not_found"]


def test_the_instrumentor_passes_logger_provider_to_the_decorator() -> None:
    from vcg_otel.instrumentor import CitationAuditInstrumentor

    no_global_traces_or_metrics()
    module = types.ModuleType("vcg_record_target")
    module.answer = answer  # type: ignore[attr-defined]
    sys.modules[module.__name__] = module
    provider, out = logs()
    try:
        CitationAuditInstrumentor().instrument(targets=["vcg_record_target:answer"],
                                               logger_provider=provider)
        importlib.import_module("vcg_record_target").answer("q")
    finally:
        CitationAuditInstrumentor().uninstrument()
        del sys.modules[module.__name__]
    assert labels(out) == ["found", "not_found"]
