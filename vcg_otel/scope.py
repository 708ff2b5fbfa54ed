"""``AuditScope``: one ``citation_audit`` span, from before the app's call to the end of its audit.

Every front end that audits live calls goes through it: the decorator (and so the
instrumentor) and the framework integrations. It is the span context of OpenInference's chain
spans made for an audit: :meth:`AuditScope.running` makes the span current while the handler or
framework call runs (its own spans nest under it) and records a call that raises; then
:meth:`AuditScope.run` (or :meth:`AuditScope.arun`) audits what the call produced, writes it
as telemetry with :func:`~vcg_otel.otel.record.record`, and ends the span. Whatever goes wrong
in between ends the span with the reason, exactly once.

Telemetry trouble (a span processor or exporter that raises) never reaches the caller: every
method that only writes telemetry swallows it (logged at debug level).
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable, Mapping, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any, ParamSpec

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import Span, Status, StatusCode, Tracer

from ._version import __version__
from .audit import Auditor
from .config import split_settings
from .documents import DocumentSet
from .otel import semconv
from .otel.content import record_exception
from .otel.metrics import instruments_for
from .otel.record import record

if TYPE_CHECKING:
    from opentelemetry.context import Context

    from ._deadline import Deadline
    from .audit import AuditReport, Citation
    from .config import AuditConfig, TelemetryConfig
    from .judge.runner import LLMCall
    from .reading.walk import Budget

__all__ = ["AuditScope", "audit_status", "configure", "documents_of", "tracer_for"]

logger = logging.getLogger(__name__)
P = ParamSpec("P")


def _quiet(method: Callable[P, None]) -> Callable[P, None]:
    """Telemetry trouble costs the record, never the call."""

    @functools.wraps(method)
    def quiet(*args: P.args, **kwargs: P.kwargs) -> None:
        try:
            method(*args, **kwargs)
        except Exception:
            logger.debug("recording the citation audit failed", exc_info=True)

    return quiet


def configure(judge: LLMCall | None, settings: Mapping[str, Any], *,
              config: AuditConfig | None, telemetry: TelemetryConfig | None,
              where: str) -> tuple[Auditor, TelemetryConfig]:
    """A front end's auditor and telemetry from its arguments (conflicts raise, naming
    ``where``): the one rule for the decorator and every integration."""
    audit_config, telemetry_config = split_settings(settings, config=config,
                                                    telemetry=telemetry, where=where)
    return Auditor(judge, config=audit_config), telemetry_config


def documents_of(auditor: Auditor, *sources: Any, budget: Budget | None = None) -> DocumentSet:
    """The documents of ``sources``, named as the auditor's config says (``id_keys``,
    ``position_base``), read within ``budget``."""
    config = auditor.config
    return DocumentSet.from_sources(*sources, id_keys=config.id_keys,
                                    position_base=config.position_base, budget=budget)


def tracer_for(telemetry: TelemetryConfig) -> Tracer:
    """vcg_otel's tracer from the config's provider (the global one by default)."""
    return trace.get_tracer("vcg_otel", __version__, telemetry.tracer_provider)


def audit_status(citations: Sequence[Citation], documents: DocumentSet) -> str:
    """``nothing_to_audit``; ``no_documents`` (citations, but nothing to check them against:
    every one is ``unverifiable``); or ``audited``."""
    if not citations:
        return semconv.STATUS_NOTHING_TO_AUDIT
    return semconv.STATUS_AUDITED if len(documents) else semconv.STATUS_NO_DOCUMENTS


class _Running:
    """:meth:`AuditScope.running` (a class, not a generator: a stream enters it per chunk)."""

    __slots__ = ("scope", "token")

    def __init__(self, scope: AuditScope) -> None:
        self.scope = scope
        self.token: object = None

    def __enter__(self) -> None:
        self.token = otel_context.attach(trace.set_span_in_context(self.scope.span))

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        otel_context.detach(self.token)  # type: ignore[arg-type]
        if exc is not None:
            self.scope.call_failed(exc)


class AuditScope:
    """The span of one audited call.

    Args:
        auditor: does the audit.
        telemetry: where and how it is recorded.
        tracer: the tracer to use (default: :func:`tracer_for` ``telemetry``; pass one made
            once when starting many scopes).
        parent: the context to start the span in (default: the current one).
        mode: ``citation.audit.mode`` on the span (``observe`` or ``enforce``).

    Use :meth:`start` where starting must not fail (it returns ``None`` instead of raising
    when a span processor's ``on_start`` raises).
    """

    def __init__(self, auditor: Auditor, telemetry: TelemetryConfig, *,
                 tracer: Tracer | None = None, parent: Context | None = None,
                 mode: str = "observe") -> None:
        self.auditor = auditor
        self.telemetry = telemetry
        self.tracer = tracer if tracer is not None else tracer_for(telemetry)
        #: Why the audit failed, once it has (:meth:`error`); ``None`` while it has not.
        self.failure: BaseException | None = None
        self.span: Span = self.tracer.start_span(semconv.SPAN_AUDIT, context=parent, attributes={
            semconv.OPENINFERENCE_SPAN_KIND: semconv.KIND_GUARDRAIL,
            semconv.AUDIT_MODE: mode,
        })

    @classmethod
    def start(cls, auditor: Auditor, telemetry: TelemetryConfig, *, tracer: Tracer | None = None,
              parent: Context | None = None, mode: str = "observe",
              required: bool = False) -> AuditScope | None:
        """A new scope, or ``None`` if telemetry failed to start its span (a span processor
        whose ``on_start`` raises): the call then runs unaudited. With ``required`` (enforce
        mode: the caller relies on the audit, not on its record) the scope runs with a
        span that records nothing instead."""
        try:
            return cls(auditor, telemetry, tracer=tracer, parent=parent, mode=mode)
        except Exception:
            logger.debug("starting the citation_audit span failed", exc_info=True)
        if not required:
            return None
        return cls(auditor, telemetry, tracer=trace.NoOpTracer(), parent=parent, mode=mode)

    # -- while the call runs ---------------------------------------------------------------

    def running(self) -> _Running:
        """A ``with`` block in which the span is current; an exception raised there is the
        call's own: it is recorded (the span ends) and propagates unchanged."""
        return _Running(self)

    @_quiet
    def call_failed(self, exc: BaseException) -> None:
        """The app's call raised: record it and end the span."""
        try:
            self.span.set_attribute(semconv.AUDIT_STATUS, semconv.STATUS_HANDLER_ERROR)
            record_exception(self.span, exc, self.telemetry.content)
            self.span.set_status(Status(StatusCode.ERROR, type(exc).__name__))
        finally:
            self.span.end()

    # -- after the call ----------------------------------------------------------------------

    @_quiet
    def error(self, exc: BaseException, *, trace_back: bool = True) -> None:
        """The audit itself failed (reading the output, the audit, a cancellation): record it
        and end the span. ``trace_back=False`` records the type only (a background audit
        cancelled at exit: formatting a thousand asyncio stacks would cost seconds)."""
        self.failure = exc
        try:
            self.span.set_attribute(semconv.AUDIT_ERROR, type(exc).__name__)
            if trace_back:
                record_exception(self.span, exc, self.telemetry.content)
            self.span.set_status(Status(StatusCode.ERROR,
                                        f"citation audit failed: {type(exc).__name__}"))
        finally:
            self.span.end()

    @_quiet
    def nothing(self, documents: DocumentSet) -> None:
        """The output cites nothing: say so and end the span."""
        self.span.set_attribute(semconv.AUDIT_STATUS, semconv.STATUS_NOTHING_TO_AUDIT)
        self.span.set_attribute(semconv.COUNT_TOTAL, 0)
        self.span.set_attribute(semconv.AUDIT_DOCUMENT_COUNT, len(documents))
        self.span.end()

    @_quiet
    def annotate(self, key: str, value: Any) -> None:
        """One attribute on the audit span (what the front end knows: the extraction limit,
        background)."""
        self.span.set_attribute(key, value)

    @_quiet
    def dropped(self) -> None:
        """The background queue was full: the audit never ran (counted, and said on the
        span)."""
        try:
            instruments_for(self.telemetry.meter_provider).dropped.add(1)
            self.span.set_attribute(semconv.AUDIT_STATUS, semconv.STATUS_DROPPED)
        finally:
            self.span.end()

    @_quiet
    def _finish(self, report: AuditReport, status: str) -> None:
        try:
            t = self.telemetry
            record(report, self.span, self.tracer, t.content, status=status,
                   check_spans=t.check_spans, span_events=t.span_events,
                   meter_provider=t.meter_provider, logger_provider=t.logger_provider)
        finally:
            self.span.end()

    def _begin(self, citations: Sequence[Citation], documents: DocumentSet,
               deadline: Deadline | None) -> str:
        self.span.set_attribute(semconv.AUDIT_DOCUMENT_COUNT, len(documents))
        status = audit_status(citations, documents)
        if status == semconv.STATUS_NO_DOCUMENTS and deadline is not None and deadline.expired():
            # the deadline cut the documents' reading, not the retrieval: each citation says
            # so (unverifiable, deadline); no_documents would alert on an empty retrieval
            return semconv.STATUS_AUDITED
        return status

    def run(self, citations: Sequence[Citation], documents: DocumentSet, *,
            swallow: bool = True, deadline: Deadline | None = None) -> AuditReport | None:
        """Audit, record and end the span.

        An audit that fails (``Exception``) is recorded; with ``swallow`` (observe) ``None`` is
        returned, otherwise it raises. A ``BaseException`` (Ctrl-C, cancellation reaching the
        waiting caller) is recorded and always propagates. ``deadline``: the foreground
        call's (:meth:`Auditor.audit <vcg_otel.audit.Auditor.audit>`).
        """
        try:
            status = self._begin(citations, documents, deadline)
            report = self.auditor.audit(citations, documents, deadline=deadline)
        except Exception as exc:
            self.error(exc)
            if not swallow:
                raise
            return None
        except BaseException as exc:
            self.error(exc)
            raise
        self._finish(report, status)
        return report

    async def arun(self, citations: Sequence[Citation], documents: DocumentSet, *,
                   swallow: bool = True, deadline: Deadline | None = None) -> AuditReport | None:
        """:meth:`run` from async code (the judge runs with ``aaudit``)."""
        try:
            status = self._begin(citations, documents, deadline)
            report = await self.auditor.aaudit(citations, documents, deadline=deadline)
        except Exception as exc:
            self.error(exc)
            if not swallow:
                raise
            return None
        except BaseException as exc:  # a cancelled task: its type says it all
            self.error(exc, trace_back=not isinstance(exc, asyncio.CancelledError))
            raise
        self._finish(report, status)
        return report
