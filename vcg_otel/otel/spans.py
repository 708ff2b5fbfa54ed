"""Recording an audit report as spans: one ``citation.check`` per citation, one GenAI client
span per judge call (``chat <model>``), summary counts on ``citation_audit``; and its events
(see :mod:`vcg_otel.otel.events`) as log records and, unless switched off, span events.

With ``check_spans=False`` each citation becomes a ``citation.check`` *event* on the
``citation_audit`` span instead (same attributes), and judge spans hang off the audit span:
one span per gate-only audit instead of one per citation, for services whose span volume (or
backend bill) matters more than a span per citation in the trace view.

Spans are written after the audit, from the timestamps it measured, with explicit parents.
That keeps the pipeline free of telemetry, lets a background audit attach its spans to the
request that caused it, and gives each span its true start and end.
"""

from __future__ import annotations

from collections.abc import Mapping
from operator import itemgetter
from typing import Any

from opentelemetry import trace
from opentelemetry._logs import LoggerProvider
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as ga
from opentelemetry.trace import Span, SpanKind, Status, StatusCode, Tracer

from .._enum import VALUE
from ..audit.models import AuditReport, AuditResult
from ..documents import ResolvedMatch, match_attributes
from ..evidence import evidence_attributes
from ..judge.evidence_prompt import EVIDENCE_PROMPT_VERSION
from . import genai, semconv
from .content import ContentPolicy, exported_document_id
from .events import (
    Summary,
    emit_result_events,
    fail_closed_attributes,
    logger_for,
    span_events_enabled,
    summary,
)
from .rejection import add_gate_details

# Names written per citation, bound here (a module attribute costs a look-up per use).
from .semconv import (
    CITATION_CLAIM,
    CITATION_CLAIM_LENGTH,
    CITATION_DOCUMENT_GROUP_SIZE,
    CITATION_DOCUMENT_ID,
    CITATION_DOCUMENT_RESOLUTION,
    CITATION_INDEX,
    CITATION_QUOTE,
    CITATION_QUOTE_LENGTH,
    EVAL_ANNOTATOR_KIND,
    EVAL_EXPLANATION,
    EVAL_LABEL,
    EVAL_NAME,
    EVAL_SCORE,
    EVALUATION_NAME,
    EVENT_CHECK,
    EVENT_FAIL_CLOSED,
    GATE_ELIDED,
    GATE_MATCH_DOCUMENT_ID,
    GATE_MATCH_END,
    GATE_MATCH_START,
    GATE_REASON,
    GATE_RESULT,
    GATE_SOURCE_DOCUMENT_IDS,
    JUDGE_CACHED,
    JUDGE_CONFIDENCE,
    JUDGE_FAIL_CLOSED,
    JUDGE_FAIL_REASON,
    JUDGE_REASONING,
    JUDGE_SKIPPED,
    JUDGE_VERDICT,
    KIND_EVALUATOR,
    OPENINFERENCE_SPAN_KIND,
    SPAN_CHECK,
    VERDICT,
)

__all__ = ["audit_span_attributes", "check_attributes", "record_report", "seconds_ns"]


def seconds_ns(seconds: float) -> int:
    """``seconds`` as the integer nanoseconds OpenTelemetry timestamps are."""
    return int(seconds * 1e9)


_BY_COUNT = itemgetter(1)  # of a (verdict, count) pair


def audit_span_attributes(report: AuditReport) -> dict[str, Any]:
    """Summary attributes of the ``citation_audit`` span."""
    attrs: dict[str, Any] = {semconv.COUNT_PREFIX + k: v for k, v in report.counts.items()}
    attrs[semconv.COUNT_TOTAL] = len(report.results)
    usage = report.usage
    if usage.total_tokens:
        attrs[semconv.AUDIT_TOKENS_TOTAL] = usage.total_tokens
    if usage.cost is not None:
        attrs[semconv.AUDIT_COST] = usage.cost
    if report.prompt_version:
        attrs[semconv.JUDGE_PROMPT_VERSION] = report.prompt_version
    if report.skipped:
        attrs[semconv.AUDIT_SKIPPED] = report.skipped
    # A content-free one-line summary, so span tables (Phoenix's "output" column) show it:
    # most frequent first, ties in first-seen order (a reversed sort keeps them, being stable).
    attrs[semconv.OUTPUT_VALUE] = f"{len(report.results)} citations: " + ", ".join([
        f"{n} {verdict}"
        for verdict, n in sorted(report.counts.items(), key=_BY_COUNT, reverse=True)])
    return attrs


def check_attributes(r: AuditResult, policy: ContentPolicy,
                     summarized: Summary) -> dict[str, Any]:
    """The attributes of one citation's ``citation.check`` span or event (also what a trace audit
    writes back as annotations: :mod:`vcg_otel.traces.annotate`)."""
    c = r.citation
    gate = r.gate
    score, text = summarized
    outcome = VALUE[r.outcome]
    attrs: dict[str, Any] = {
        OPENINFERENCE_SPAN_KIND: KIND_EVALUATOR,
        CITATION_INDEX: r.index,
        VERDICT: outcome,
        EVAL_NAME: EVALUATION_NAME,
        EVAL_LABEL: outcome,
        EVAL_SCORE: score,
        EVAL_ANNOTATOR_KIND: "LLM" if r.judge_called or r.cached else "CODE",
    }
    cited = exported_document_id(r, policy)
    if cited is not None:
        attrs[CITATION_DOCUMENT_ID] = cited
    # the cited id, resolved through vcg_otel.documents (then also chunks and file offsets)
    resolved = gate if isinstance(gate, ResolvedMatch) else None
    if resolved is not None:
        attrs[CITATION_DOCUMENT_RESOLUTION] = resolved.resolution
        attrs[CITATION_DOCUMENT_GROUP_SIZE] = len(resolved.group)
    quote = c.quote
    if policy.inputs:
        attrs[CITATION_CLAIM] = c.claim
        if quote is not None:
            attrs[CITATION_QUOTE] = quote
    else:  # lengths stand in for hidden text
        attrs[CITATION_CLAIM_LENGTH] = len(c.claim)
        if quote is not None:
            attrs[CITATION_QUOTE_LENGTH] = len(quote)
    if gate is not None:
        result = VALUE[gate.result]
        attrs[GATE_RESULT] = result
        attrs[GATE_ELIDED] = gate.elided
        start, end = gate.start, gate.end
        if start is not None and end is not None:
            attrs[GATE_MATCH_START] = start
            attrs[GATE_MATCH_END] = end
            if gate.document_id is not None:
                attrs[GATE_MATCH_DOCUMENT_ID] = gate.document_id
        # across chunks, file offsets (stitch.py); a match inside one chunk of no known file
        # (most) has none
        if resolved is not None and (resolved.chunks or resolved.file_start is not None):
            attrs.update(match_attributes(resolved))
        if gate.reason is not None:
            attrs[GATE_REASON] = VALUE[gate.reason]
        if gate.source_document_ids and result == "misattributed":
            attrs[GATE_SOURCE_DOCUMENT_IDS] = list(gate.source_document_ids)
        add_gate_details(attrs, gate, policy)
    if r.evidence is not None:  # a quote-less citation's stage 1
        attrs.update(evidence_attributes(r.evidence))
    if r.judge_skipped is not None:
        attrs[JUDGE_SKIPPED] = r.judge_skipped
    v = r.verdict
    if v is not None:
        attrs[JUDGE_VERDICT] = VALUE[v.verdict]
        attrs[JUDGE_CONFIDENCE] = v.confidence
        attrs[JUDGE_FAIL_CLOSED] = v.fail_closed
        attrs[JUDGE_CACHED] = r.cached
        if v.fail_reason is not None:
            attrs[JUDGE_FAIL_REASON] = VALUE[v.fail_reason]
        if policy.outputs and v.reasoning:
            attrs[JUDGE_REASONING] = v.reasoning
    if text:
        attrs[EVAL_EXPLANATION] = text
    return attrs


def _judge_span(tracer: Tracer, parent: Span, r: AuditResult, policy: ContentPolicy,
                report: AuditReport) -> None:
    """The judge call: a GenAI client span (conventions' name, kind and ``gen_ai.*``
    attributes) that also carries the OpenInference attributes Phoenix renders."""
    v = r.verdict
    assert v is not None
    usage = r.usage
    error = None if v.fail_reason is None else VALUE[v.fail_reason]
    attrs = genai.call_attributes(report.judge_model, v.model, error)
    request_model = attrs.get(ga.GEN_AI_REQUEST_MODEL)
    if usage.prompt_tokens or usage.completion_tokens:  # a judge that reports none: unknown
        attrs[ga.GEN_AI_USAGE_INPUT_TOKENS] = usage.prompt_tokens
        attrs[ga.GEN_AI_USAGE_OUTPUT_TOKENS] = usage.completion_tokens
    attrs.update({
        semconv.OPENINFERENCE_SPAN_KIND: semconv.KIND_LLM,
        semconv.LLM_TOKEN_PROMPT: usage.prompt_tokens,
        semconv.LLM_TOKEN_COMPLETION: usage.completion_tokens,
        semconv.LLM_TOKEN_TOTAL: usage.total_tokens,
        semconv.JUDGE_VERDICT: VALUE[v.verdict],
    })
    if v.model:
        attrs[semconv.LLM_MODEL_NAME] = v.model
    if usage.cost is not None:
        attrs[semconv.LLM_COST_TOTAL] = usage.cost
    if r.evidence is not None:  # judged on located passages, under that prompt
        attrs[semconv.JUDGE_PROMPT_VERSION] = EVIDENCE_PROMPT_VERSION
    elif report.prompt_version:
        attrs[semconv.JUDGE_PROMPT_VERSION] = report.prompt_version
    messages = genai.capture_messages()
    if policy.inputs and r.judge_input is not None:
        attrs[semconv.INPUT_VALUE] = r.judge_input
        if messages:
            attrs[ga.GEN_AI_INPUT_MESSAGES] = genai.input_messages(r.judge_input)
    if policy.outputs and v.raw_output is not None:
        attrs[semconv.OUTPUT_VALUE] = v.raw_output
        if messages:
            attrs[ga.GEN_AI_OUTPUT_MESSAGES] = genai.output_messages(v.raw_output)
    span = tracer.start_span(genai.span_name(request_model), trace.set_span_in_context(parent),
                             kind=SpanKind.CLIENT, attributes=attrs,
                             start_time=r.judge_started_ns)
    if error is not None:
        span.set_status(Status(StatusCode.ERROR, f"fail closed: {error}"))
    span.end(end_time=r.judge_started_ns + seconds_ns(r.judge_seconds))


def record_report(tracer: Tracer, audit_span: Span, report: AuditReport,
                  policy: ContentPolicy, *, check_spans: bool = True,
                  span_events: bool | None = None,
                  logger_provider: LoggerProvider | None = None,
                  attributes: Mapping[str, Any] | None = None) -> None:
    """Write the report under ``audit_span`` (spans, or events if not ``check_spans``) and
    its counts onto it, followed by ``attributes`` (the caller's: one SDK call for all).

    Events go through the Logs API to ``logger_provider`` (the global one when ``None``; none
    configured: none built), correlated with their check span (or the audit span);
    ``span_events`` (default: ``VCG_OTEL_SPAN_EVENTS``, on) also writes ``citation.check`` and
    ``citation.judge.fail_closed`` as span events, the form Phoenix stores.
    """
    logger = logger_for(logger_provider)
    as_span_events = span_events_enabled(span_events)
    in_audit = trace.set_span_in_context(audit_span)
    for r in report.results:
        summarized = summary(r, policy)
        attrs = check_attributes(r, policy, summarized)
        if check_spans:
            parent = tracer.start_span(SPAN_CHECK, in_audit, attributes=attrs,
                                       start_time=r.gate_started_ns)
            check_event = None
        else:
            parent = audit_span
            del attrs[OPENINFERENCE_SPAN_KIND]  # an event is no span
            check_event = attrs
            if as_span_events:
                audit_span.add_event(EVENT_CHECK, attrs, timestamp=r.gate_started_ns)
        end = r.gate_started_ns + seconds_ns(r.gate_seconds)
        failed = None
        if r.verdict is not None:  # else no judge ran: no judge span, nothing failed closed
            if r.judge_called:
                _judge_span(tracer, parent, r, policy, report)
                end = max(end, r.judge_started_ns + seconds_ns(r.judge_seconds))
            failed = fail_closed_attributes(r, policy)
            if failed is not None and as_span_events:
                event = failed if check_spans else {**failed, CITATION_INDEX: r.index}
                parent.add_event(EVENT_FAIL_CLOSED, event)
        if logger is not None:
            emit_result_events(logger, r, parent, policy, check=check_event, failed=failed,
                               timestamp=end or None, summarized=summarized)
        if check_spans:
            parent.end(end_time=end)
    summary_attributes = audit_span_attributes(report)
    if attributes:
        summary_attributes.update(attributes)
    audit_span.set_attributes(summary_attributes)

