"""Events of an audit as log records through the OpenTelemetry Logs API, each correlated with
the span it belongs to.

OpenTelemetry deprecated the Span Events API (OTEP 4430): new events are log records with an
``event_name``, carrying the trace and span ids of the span they describe. Per citation:

* ``gen_ai.evaluation.result`` (the GenAI conventions' event for "the result of evaluating a
  GenAI output"): ``gen_ai.evaluation.name`` = ``citation_verdict``, ``.score.value`` (1 =
  fabricated or misattributed, 0 = otherwise), ``.score.label`` (the final verdict),
  ``.explanation`` (content: only when outputs may be captured), ``error.type`` (the
  fail-closed reason), plus ``citation.index`` and ``citation.document.id``;
* ``citation.judge.fail_closed`` when the judge failed closed;
* ``citation.check`` when checks are events rather than spans (``check_spans=False``).

They go to the global logger provider (or an explicit one); with none configured nothing is
built at all. Span-event copies of the last two (the form vcg_otel used before, which Phoenix
stores and reads) stay on unless ``VCG_OTEL_SPAN_EVENTS=false``: Phoenix rejects OTLP logs.

The functions take a result, a span and a policy, nothing about how the audit was started, so
any front end (decorator, instrumentor, batch CLI) can record through them.
"""

from __future__ import annotations

import threading
from typing import Any

from opentelemetry import _logs, trace
from opentelemetry._logs import Logger, LoggerProvider, LogRecord, SeverityNumber
from opentelemetry.context import Context
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as ga
from opentelemetry.trace import Span

from .._enum import VALUE
from .._settings import env_flag
from .._version import __version__
from ..audit.models import AuditResult, Outcome
from ..gate import RejectionKind
from . import semconv
from .content import ContentPolicy, exported_document_id
from .genai import ERROR_TYPE
from .providers import logs_configured
from .rejection import add_gate_details

__all__ = [
    "emit_event",
    "emit_result_events",
    "evaluation_attributes",
    "explanation",
    "fabrication_score",
    "fail_closed_attributes",
    "logger_for",
    "span_events_enabled",
    "summary",
]

# The severities events use, by name (an enum's ``.name`` is a property lookup per record).
_SEVERITY_TEXT = {s: s.name for s in (SeverityNumber.INFO, SeverityNumber.WARN)}
# Members read off their enum class once (each such read costs about 0.15 µs).
_NOT_FOUND = Outcome.NOT_FOUND
_FABRICATED = Outcome.fabricated()
_ALTERED = RejectionKind.ALTERED
#: The evaluation score of each outcome (:func:`fabrication_score`): a table, as it depends on
#: the outcome alone and is written for every citation.
_FABRICATION_SCORES: dict[Outcome, float] = {o: 1.0 if o.is_fabricated else 0.0 for o in Outcome}
_lock = threading.Lock()
_by_provider: dict[int, tuple[Any, Logger]] = {}


def span_events_enabled(explicit: bool | None = None) -> bool:
    """Whether events are also written as span events: ``explicit`` if given, else
    ``VCG_OTEL_SPAN_EVENTS`` (default on; ``false``/``0``/``no``/``off`` turns it off)."""
    if explicit is not None:
        return explicit
    return env_flag(semconv.ENV_SPAN_EVENTS) is not False


def logger_for(logger_provider: LoggerProvider | None = None) -> Logger | None:
    """The vcg_otel logger of ``logger_provider`` (the global one when ``None``), created once;
    ``None`` when no logger provider is configured, so callers skip building records."""
    if not logs_configured(logger_provider):
        return None
    provider = logger_provider if logger_provider is not None else _logs.get_logger_provider()
    key = id(provider)
    hit = _by_provider.get(key)
    if hit is not None and hit[0] is provider:
        return hit[1]
    with _lock:
        logger = provider.get_logger("vcg_otel", __version__)
        _by_provider[key] = (provider, logger)
        return logger


def fabrication_score(r: AuditResult) -> float:
    """The evaluation score: 1.0 when the quote is fabricated or misattributed, else 0.0."""
    return _FABRICATION_SCORES[r.outcome]


def explanation(r: AuditResult) -> str | None:
    """Why the verdict is what it is: the judge's reasoning, or the gate's finding."""
    v = r.verdict
    if v is not None:
        return v.reasoning or None
    if r.outcome not in _FABRICATED or r.gate is None:  # most: a quote found, nothing to say
        return None
    if r.outcome is _NOT_FOUND:
        if r.gate.rejection is _ALTERED:
            return "quote altered: a passage matches all but a few of its words"
        return "quote not found in any document"
    return "quote found only in " + ", ".join(r.gate.source_document_ids)


Summary = tuple[float, "str | None"]  # (score, explanation when outputs may be captured)


def summary(r: AuditResult, policy: ContentPolicy) -> Summary:
    """The evaluation score of one citation and, if ``policy`` lets outputs be captured, its
    explanation (``None`` when there is none): what its check span and its
    ``gen_ai.evaluation.result`` event both carry, worked out once."""
    return _FABRICATION_SCORES[r.outcome], explanation(r) if policy.outputs else None


def evaluation_attributes(r: AuditResult, policy: ContentPolicy,
                          summarized: Summary | None = None) -> dict[str, Any]:
    """Attributes of the ``gen_ai.evaluation.result`` event of one citation (``summarized``:
    its :func:`summary`, if already made)."""
    score, text = summarized if summarized is not None else summary(r, policy)
    attrs: dict[str, Any] = {
        ga.GEN_AI_EVALUATION_NAME: semconv.EVALUATION_NAME,
        ga.GEN_AI_EVALUATION_SCORE_VALUE: score,
        ga.GEN_AI_EVALUATION_SCORE_LABEL: VALUE[r.outcome],
        semconv.CITATION_INDEX: r.index,
    }
    cited = exported_document_id(r, policy)
    if cited is not None:
        attrs[semconv.CITATION_DOCUMENT_ID] = cited
    if r.fail_reason is not None:
        attrs[ERROR_TYPE] = VALUE[r.fail_reason]
    if r.gate is not None:
        add_gate_details(attrs, r.gate, policy)
    if text:
        attrs[ga.GEN_AI_EVALUATION_EXPLANATION] = text
    return attrs


def fail_closed_attributes(r: AuditResult, policy: ContentPolicy) -> dict[str, Any] | None:
    """Attributes of the ``citation.judge.fail_closed`` event, ``None`` if the judge did not
    fail closed. ``detail`` only with output capture: it may quote the model's answer."""
    v = r.verdict
    if v is None or v.fail_reason is None:
        return None
    event: dict[str, Any] = {semconv.EVENT_ATTR_REASON: VALUE[v.fail_reason]}
    if policy.outputs and v.detail:
        event[semconv.EVENT_ATTR_DETAIL] = v.detail
    return event


def emit_event(logger: Logger, name: str, attributes: dict[str, Any], span: Span | Context,
               timestamp: int | None = None,
               severity: SeverityNumber = SeverityNumber.INFO) -> None:
    """One event as a log record carrying the trace and span ids of ``span`` (or of the span
    a context holds: several events of one span share it)."""
    context = span if isinstance(span, Context) else trace.set_span_in_context(span)
    logger.emit(LogRecord(
        timestamp=timestamp, context=context, severity_number=severity,
        severity_text=_SEVERITY_TEXT.get(severity) or severity.name, attributes=attributes,
        event_name=name))


def emit_result_events(logger: Logger, r: AuditResult, span: Span, policy: ContentPolicy, *,
                       check: dict[str, Any] | None = None,
                       failed: dict[str, Any] | None = None,
                       timestamp: int | None = None,
                       summarized: Summary | None = None) -> None:
    """The log-based events of one citation, correlated with ``span`` (its check span, or the
    audit span when checks are events): ``citation.check`` if ``check`` attributes are given,
    ``citation.judge.fail_closed`` if ``failed`` ones are, and ``gen_ai.evaluation.result``."""
    context = trace.set_span_in_context(span)
    if check is not None:
        emit_event(logger, semconv.EVENT_CHECK, check, context, r.gate_started_ns or None)
    if failed is not None:
        emit_event(logger, semconv.EVENT_FAIL_CLOSED, {**failed, semconv.CITATION_INDEX: r.index},
                   context, timestamp, SeverityNumber.WARN)
    emit_event(logger, semconv.EVENT_EVALUATION_RESULT,
               evaluation_attributes(r, policy, summarized), context, timestamp)
