"""One audit as the decorator records it: a ``citation_audit`` span under the current span
(a framework's own component or chain span), its check and judge spans, and the metrics.

For integrations that are handed citations and documents directly (Haystack components)
rather than wrapping a handler.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from opentelemetry import metrics, trace
from opentelemetry.trace import Span

from .._version import __version__
from ..audit import Auditor, AuditReport, Citation
from ..documents import DocumentSet
from ..otel import semconv
from ..otel.content import ContentPolicy
from ..otel.metrics import instruments_for, record_metrics
from ..otel.spans import record_report
from . import _names

__all__ = ["ResolvingAuditor", "audit_status", "record_audit"]


class ResolvingAuditor(Auditor):
    """An :class:`Auditor` whose gate resolves cited identifiers through a
    :class:`DocumentSet` (chunk groups, aliases). TEMPORARY: goes when ``Auditor._gate_one``
    does this itself."""

    def _gate_one(self, c: Citation, corpus: Any) -> Any:
        if isinstance(corpus, DocumentSet):
            return corpus.gate(c, self.max_gap)
        return super()._gate_one(c, corpus)


def _no_documents_counter(meter_provider: Any) -> metrics.Counter:
    # The SDK hands back the same instrument for the same name: no cache needed here.
    meter = metrics.get_meter("vcg_otel", __version__, meter_provider)
    return meter.create_counter(_names.METRIC_NO_DOCUMENTS, "{audit}",
                                "Audits of answers that cite but came with no documents")


def audit_status(citations: Sequence[Citation], documents: DocumentSet) -> str:
    """``nothing_to_audit``, ``no_documents`` (citations, but nothing to check them against:
    every one is ``unverifiable``) or ``audited``."""
    if not citations:
        return "nothing_to_audit"
    return "audited" if len(documents) else _names.STATUS_NO_DOCUMENTS


def record_audit(auditor: Auditor, citations: Sequence[Citation], documents: DocumentSet, *,
                 tracer_provider: Any = None, meter_provider: Any = None,
                 capture_content: bool | None = None) -> AuditReport:
    """Audit and record it; the report is returned whatever happens to the telemetry."""
    tracer = trace.get_tracer("vcg_otel", __version__, tracer_provider)
    span: Span = tracer.start_span(semconv.SPAN_AUDIT, attributes={
        semconv.OPENINFERENCE_SPAN_KIND: semconv.KIND_GUARDRAIL,
        semconv.AUDIT_MODE: "observe",
        semconv.AUDIT_DOCUMENT_COUNT: len(documents),
    })
    try:
        report = auditor.audit(citations, documents)
        status = audit_status(citations, documents)
        record_report(tracer, span, report, ContentPolicy.resolve(capture_content))
        span.set_attribute(semconv.AUDIT_STATUS, status)
        record_metrics(instruments_for(meter_provider), report)
        if status == _names.STATUS_NO_DOCUMENTS:
            _no_documents_counter(meter_provider).add(1)
        return report
    except Exception as exc:
        span.set_attribute(semconv.AUDIT_ERROR, type(exc).__name__)
        span.record_exception(exc)
        raise
    finally:
        span.end()
