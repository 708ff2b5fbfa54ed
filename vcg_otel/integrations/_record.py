"""What the framework integrations share: an :class:`~vcg_otel.scope.AuditScope` per framework
call (the decorator's own span context), and :class:`OutputAuditor`, which reads a framework's
finished output, audits it and records it, never raising into the framework.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ..audit import Auditor, AuditReport, Citation
from ..config import TelemetryConfig
from ..documents import DocumentSet
from ..otel import semconv
from ..reading import read_output
from ..scope import AuditScope, configure, documents_of, tracer_for

if TYPE_CHECKING:
    from opentelemetry.context import Context

__all__ = ["AuditScope", "OutputAuditor", "configure", "documents_of", "record_audit",
           "validator_scope"]


def validator_scope(auditor: Auditor, telemetry: TelemetryConfig) -> AuditScope:
    """The scope of a validator, whose output *is* the audit: it audits even when telemetry
    cannot start its span (and ignores call sampling)."""
    scope = AuditScope.start(auditor, telemetry, required=True)
    assert scope is not None  # required: never None
    return scope


def record_audit(auditor: Auditor, telemetry: TelemetryConfig, citations: Sequence[Citation],
                 documents: DocumentSet) -> AuditReport:
    """Audit under the current span and record it; an audit that fails raises (recorded)."""
    report = validator_scope(auditor, telemetry).run(citations, documents, swallow=False)
    assert report is not None
    return report


class OutputAuditor:
    """What an integration that audits a framework's finished output needs: an audit span
    (:meth:`scope`), then :meth:`audit` reads the citations and documents of the output,
    audits, records and hands the report to ``on_report``. Never raises: reading or auditing
    failures are recorded on the span.

    Args:
        auditor, telemetry: from :func:`configure` (the auditor's config also says how
            citations name documents: ``position_base``, ``id_keys``).
        on_report: called with each finished report.
    """

    def __init__(self, auditor: Auditor, telemetry: TelemetryConfig, *,
                 on_report: Callable[[AuditReport], None] | None = None) -> None:
        self.auditor = auditor
        self.telemetry = telemetry
        self.tracer = tracer_for(telemetry)
        self.on_report = on_report

    def scope(self, parent: Context | None = None) -> AuditScope | None:
        """A new ``citation_audit`` span (in ``parent``, default the current context); ``None``
        when this call is not audited: sampled out (``sample_rate``), or telemetry could not
        start the span (then the framework call runs as if we were not there)."""
        if self.telemetry.sampled_out():
            return None
        return AuditScope.start(self.auditor, self.telemetry, tracer=self.tracer, parent=parent)

    def _read(self, scope: AuditScope, output: Any,
              answer: Any) -> tuple[list[Citation], DocumentSet] | None:
        config = self.auditor.config
        try:  # the decorator's one reading path, budget and completeness rule
            reading = read_output(output if answer is None else answer,
                                  shared=() if answer is None else (output,),
                                  id_keys=config.id_keys, position_base=config.position_base)
            limit = reading.completeness.limit
            if limit is not None:
                scope.annotate(semconv.AUDIT_EXTRACT_LIMIT, limit)
            if not reading.citations:  # recorded by the scope as nothing to audit
                return [], reading.documents
            return reading.work()
        except Exception as exc:
            scope.error(exc)
            return None

    def _report(self, report: AuditReport | None) -> None:
        if report is not None and self.on_report is not None:
            self.on_report(report)

    def audit(self, scope: AuditScope | None, output: Any, answer: Any = None) -> None:
        """Audit ``output`` (its answer read from ``answer`` when given, e.g. streamed text);
        nothing when ``scope`` is ``None`` (the call is not audited)."""
        if scope is None:
            return
        work = self._read(scope, output, answer)
        if work is not None:
            self._report(scope.run(*work))

    async def aaudit(self, scope: AuditScope | None, output: Any, answer: Any = None) -> None:
        """:meth:`audit` from async code."""
        if scope is None:
            return
        work = self._read(scope, output, answer)
        if work is not None:
            self._report(await scope.arun(*work))
