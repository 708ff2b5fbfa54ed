"""``record``: the one way a finished audit becomes telemetry, for every front end.

Spans (check and judge spans under the audit span, summary counts on it), events (log records
and, unless switched off, span events) and metrics, from the report alone. The decorator, the
framework integrations and the batch CLI all call it, so an audit looks the same in traces,
logs and dashboards whichever way it was started.
"""

from __future__ import annotations

from typing import Any

from opentelemetry._logs import LoggerProvider
from opentelemetry.metrics import MeterProvider
from opentelemetry.trace import Span, Tracer

from ..audit.models import AuditReport
from . import semconv
from .content import ContentPolicy
from .metrics import instruments_for, record_metrics
from .spans import record_report, seconds_ns

__all__ = ["emit_audit", "record"]


def record(report: AuditReport, span: Span, tracer: Tracer, policy: ContentPolicy, *,
           status: str = "audited", check_spans: bool = True, span_events: bool | None = None,
           meter_provider: MeterProvider | None = None,
           logger_provider: LoggerProvider | None = None) -> None:
    """Write ``report`` under its ``citation_audit`` ``span`` (which the caller ends).

    Args:
        report: the finished audit.
        span: the audit span; gets the summary counts and ``citation.audit.status``.
        tracer: makes the check and judge spans.
        policy: whether claims, quotes, prompts and reasoning may be written.
        status: ``citation.audit.status``; ``no_documents`` also counts
            ``citation.audit.no_documents``.
        check_spans, span_events: as for :func:`~vcg_otel.otel.spans.record_report`.
        meter_provider, logger_provider: where metrics and events go (default: the global
            providers; with none configured they cost nothing).
    """
    record_report(tracer, span, report, policy, check_spans=check_spans,
                  span_events=span_events, logger_provider=logger_provider,
                  attributes={semconv.AUDIT_STATUS: status})
    instruments = instruments_for(meter_provider)
    record_metrics(instruments, report)
    if status == semconv.STATUS_NO_DOCUMENTS:
        instruments.no_documents.add(1)


def emit_audit(tracer: Tracer, report: AuditReport, policy: ContentPolicy,
               attributes: dict[str, Any] | None = None, *, status: str = "audited",
               check_spans: bool = True,
               span_events: bool | None = None, meter_provider: MeterProvider | None = None,
               logger_provider: LoggerProvider | None = None) -> Span:
    """Write a finished audit as a whole ``citation_audit`` span tree, with its events and
    metrics (for batch audits, where no span was open while it ran).

    The span starts when the first gate check started and lasts the audit's duration; its
    parent is the current span (a trace audit makes the audited answer span current).
    """
    starts = [r.gate_started_ns for r in report.results if r.gate_started_ns]
    start = min(starts) if starts else None
    span = tracer.start_span(semconv.SPAN_AUDIT, start_time=start, attributes={
        semconv.OPENINFERENCE_SPAN_KIND: semconv.KIND_GUARDRAIL, **(attributes or {})})
    try:
        record(report, span, tracer, policy, status=status, check_spans=check_spans,
               span_events=span_events,
               meter_provider=meter_provider, logger_provider=logger_provider)
    finally:
        span.end(end_time=None if start is None else start + seconds_ns(report.duration_seconds))
    return span
