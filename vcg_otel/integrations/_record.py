"""One audit as ``@audited_citations`` records it, for integrations that do not wrap a handler:
a ``citation_audit`` span (optionally current while the framework call runs, so the
framework's spans nest under it), its check and judge spans, and the metrics.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.trace import Span, Status, StatusCode

from .._version import __version__
from ..audit import Auditor, AuditReport, Citation
from ..documents import DocumentSet
from ..judge.runner import LLMCall
from ..otel import semconv
from ..otel.content import ContentPolicy
from ..otel.record import record
from .answers import answer_citations

__all__ = ["AuditScope", "OutputAuditor", "audit_status", "record_audit"]


def audit_status(citations: Sequence[Citation], documents: DocumentSet) -> str:
    """``nothing_to_audit``, ``no_documents`` (citations, but nothing to check them against:
    every one is ``unverifiable``) or ``audited``."""
    if not citations:
        return "nothing_to_audit"
    return "audited" if len(documents) else semconv.STATUS_NO_DOCUMENTS


class AuditScope:
    """A ``citation_audit`` span from before the framework call to the end of its audit.

    Args:
        auditor: does the audit (it resolves cited ids through a :class:`DocumentSet`).
        parent: the context to start the span in (default: the current one).
        tracer_provider, meter_provider, capture_content: as for ``@audited_citations``.
    """

    def __init__(self, auditor: Auditor, *, parent: Context | None = None,
                 tracer_provider: Any = None, meter_provider: Any = None,
                 capture_content: bool | None = None) -> None:
        self.auditor = auditor
        self.meter_provider = meter_provider
        self.capture_content = capture_content
        self.tracer = trace.get_tracer("vcg_otel", __version__, tracer_provider)
        self.span: Span = self.tracer.start_span(semconv.SPAN_AUDIT, context=parent, attributes={
            semconv.OPENINFERENCE_SPAN_KIND: semconv.KIND_GUARDRAIL,
            semconv.AUDIT_MODE: "observe",
        })

    def current(self) -> object:
        """Make the span current (framework spans started now nest under it); returns the
        token for :meth:`release`."""
        return otel_context.attach(trace.set_span_in_context(self.span))

    @staticmethod
    def release(token: object) -> None:
        otel_context.detach(token)  # type: ignore[arg-type]

    def failed(self, exc: BaseException) -> None:
        """The framework call raised: record it and end the span."""
        self.span.set_attribute(semconv.AUDIT_STATUS, "handler_error")
        self.span.record_exception(exc)
        self.span.set_status(Status(StatusCode.ERROR, type(exc).__name__))
        self.span.end()

    def _begin(self, citations: Sequence[Citation], documents: DocumentSet) -> str:
        self.span.set_attribute(semconv.AUDIT_DOCUMENT_COUNT, len(documents))
        return audit_status(citations, documents)

    def _record(self, status: str, report: AuditReport) -> None:
        record(report, self.span, self.tracer, ContentPolicy.resolve(self.capture_content),
               status=status, meter_provider=self.meter_provider)

    def error(self, exc: Exception) -> None:
        """Reading the framework's output failed: record it and end the span."""
        self._error(exc)
        self.span.end()

    def _error(self, exc: Exception) -> None:
        self.span.set_attribute(semconv.AUDIT_ERROR, type(exc).__name__)
        self.span.record_exception(exc)
        self.span.set_status(
            Status(StatusCode.ERROR, f"citation audit failed: {type(exc).__name__}"))

    def finish(self, citations: Sequence[Citation], documents: DocumentSet,
               *, swallow: bool = True) -> AuditReport | None:
        """Audit, record and end the span. With ``swallow`` (observe) an audit that fails is
        recorded and ``None`` returned; otherwise it raises after recording."""
        try:
            status = self._begin(citations, documents)
            report = self.auditor.audit(citations, documents)
            self._record(status, report)
            return report
        except Exception as exc:
            self._error(exc)
            if not swallow:
                raise
            return None
        finally:
            self.span.end()

    async def afinish(self, citations: Sequence[Citation], documents: DocumentSet,
                      *, swallow: bool = True) -> AuditReport | None:
        """:meth:`finish` from async code (the judge runs with ``aaudit``)."""
        try:
            status = self._begin(citations, documents)
            report = await self.auditor.aaudit(citations, documents)
            self._record(status, report)
            return report
        except Exception as exc:
            self._error(exc)
            if not swallow:
                raise
            return None
        finally:
            self.span.end()


def record_audit(auditor: Auditor, citations: Sequence[Citation], documents: DocumentSet, *,
                 tracer_provider: Any = None, meter_provider: Any = None,
                 capture_content: bool | None = None) -> AuditReport:
    """Audit under the current span and record it; an audit that fails raises (recorded)."""
    scope = AuditScope(auditor, tracer_provider=tracer_provider, meter_provider=meter_provider,
                       capture_content=capture_content)
    report = scope.finish(citations, documents, swallow=False)
    assert report is not None
    return report


class OutputAuditor:
    """What an integration that audits a framework's finished output needs: an audit span
    (:meth:`scope`), then :meth:`audit` reads the citations and documents of the output,
    audits, records and hands the report to ``on_report``. Never raises: reading or auditing
    failures are recorded on the span.

    Args: as for the integrations (``judge``, ``position_base``, ``id_keys``, ``on_report``,
    ``tracer_provider``, ``meter_provider``, ``capture_content``).
    """

    def __init__(self, judge: LLMCall | None = None, *, position_base: int | None = None,
                 id_keys: Sequence[str] = (),
                 on_report: Callable[[AuditReport], None] | None = None,
                 tracer_provider: Any = None, meter_provider: Any = None,
                 capture_content: bool | None = None) -> None:
        self.auditor = Auditor(judge)
        self.position_base = position_base
        self.id_keys = tuple(id_keys)
        self.on_report = on_report
        self._options = {"tracer_provider": tracer_provider, "meter_provider": meter_provider,
                         "capture_content": capture_content}

    def scope(self, parent: Context | None = None) -> AuditScope:
        """A new ``citation_audit`` span (in ``parent``, default the current context)."""
        return AuditScope(self.auditor, parent=parent, **self._options)

    def _read(self, scope: AuditScope, output: Any,
              answer: Any) -> tuple[list[Citation], DocumentSet] | None:
        try:
            documents = DocumentSet.from_sources(output, id_keys=self.id_keys,
                                                 position_base=self.position_base)
            return answer_citations(output if answer is None else answer), documents
        except Exception as exc:
            scope.error(exc)
            return None

    def _report(self, report: AuditReport | None) -> None:
        if report is not None and self.on_report is not None:
            self.on_report(report)

    def audit(self, scope: AuditScope, output: Any, answer: Any = None) -> None:
        """Audit ``output`` (its answer read from ``answer`` when given, e.g. streamed text)."""
        work = self._read(scope, output, answer)
        if work is not None:
            self._report(scope.finish(*work))

    async def aaudit(self, scope: AuditScope, output: Any, answer: Any = None) -> None:
        """:meth:`audit` from async code."""
        work = self._read(scope, output, answer)
        if work is not None:
            self._report(await scope.afinish(*work))
