"""The metric instruments, created once per meter provider, and what one report adds to them.

Ours (``citation.*``) and the GenAI conventions' client metrics for the judge calls
(``gen_ai.client.token.usage``, ``gen_ai.client.operation.duration``, with the conventions'
attributes and bucket advice). Through the OpenTelemetry metrics API only: with no SDK
configured every call is a no-op.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from opentelemetry import metrics
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as ga

from .._enum import VALUE
from .._memo import Memo
from .._version import __version__
from ..audit.models import AuditReport, AuditResult
from ..gate.result import NO_DIAGNOSIS
from . import genai, semconv

__all__ = ["Instruments", "instruments_for", "record_metrics"]


@dataclass(frozen=True, slots=True)
class Instruments:
    audits: metrics.Counter
    fail_closed: metrics.Counter
    tokens: metrics.Counter
    duration: metrics.Histogram
    dropped: metrics.Counter
    no_documents: metrics.Counter
    genai_tokens: metrics.Histogram
    genai_duration: metrics.Histogram


_lock = threading.Lock()
_by_provider: dict[int, tuple[Any, Instruments]] = {}


def instruments_for(meter_provider: metrics.MeterProvider | None = None) -> Instruments:
    """Instruments on ``meter_provider`` (the global one when ``None``), created once."""
    key = id(meter_provider)
    hit = _by_provider.get(key)
    if hit is not None and hit[0] is meter_provider:
        return hit[1]
    with _lock:
        meter = metrics.get_meter("vcg_otel", __version__, meter_provider)
        made = Instruments(
            audits=meter.create_counter(
                semconv.METRIC_AUDITS, "{citation}",
                "Citations audited, by stage (gate, judge, final) and verdict; rejected "
                "quotes also by citation.gate.rejection (altered, invented)"),
            fail_closed=meter.create_counter(
                semconv.METRIC_FAIL_CLOSED, "{event}",
                "Judge calls that failed closed, by reason"),
            tokens=meter.create_counter(
                semconv.METRIC_TOKENS, "{token}", "Judge tokens, by type (input, output)"),
            duration=meter.create_histogram(
                semconv.METRIC_DURATION, "s", "Time spent per gate check, judge call and audit",
                explicit_bucket_boundaries_advisory=semconv.DURATION_BUCKETS),
            dropped=meter.create_counter(
                semconv.METRIC_DROPPED, "{audit}",
                "Audits dropped because the background queue was full"),
            no_documents=meter.create_counter(
                semconv.METRIC_NO_DOCUMENTS, "{audit}",
                "Audits of answers that cite but came with no documents (all unverifiable)"),
            genai_tokens=meter.create_histogram(
                genai.METRIC_TOKEN_USAGE, "{token}",
                "Number of input and output tokens used (judge calls)",
                explicit_bucket_boundaries_advisory=semconv.GENAI_TOKEN_BUCKETS),
            genai_duration=meter.create_histogram(
                genai.METRIC_OPERATION_DURATION, "s", "GenAI operation duration (judge calls)",
                explicit_bucket_boundaries_advisory=semconv.GENAI_DURATION_BUCKETS),
        )
        _by_provider[key] = (meter_provider, made)
        return made


_INPUT = ga.GenAiTokenTypeValues.INPUT.value
_OUTPUT = ga.GenAiTokenTypeValues.OUTPUT.value

# The attribute sets a report's points take, made once: nothing changes them after an add
# (the SDK copies a measurement's dict into its point), so one dict serves every call.
# Durations: by stage; counts: by (stage, verdict, rejection kind or None), a finite set
# (3 stages x the verdicts x 3 kinds) filled on first use.
_STAGE_ATTRIBUTES = {stage: {semconv.ATTR_STAGE: stage}
                     for stage in (semconv.STAGE_GATE, semconv.STAGE_JUDGE, semconv.STAGE_FINAL,
                                   semconv.STAGE_AUDIT)}
_TOKEN_ATTRIBUTES = {kind: {ga.GEN_AI_TOKEN_TYPE: kind} for kind in (_INPUT, _OUTPUT)}

CountKey = tuple[str, str, "str | None"]  # (stage, verdict, rejection kind or None)
# What a citation's counts depend on: its gate result, rejection kind, judge verdict (each
# None when there is none) and outcome, all enum members.
Shape = tuple[Any, Any, Any, Any]


def _count_attributes(key: CountKey) -> dict[str, str]:
    """The attributes of a ``citation.audits`` point: stage, verdict and, for a rejected quote,
    its rejection kind (invented quotes and misquotes apart, as misattribution is)."""
    stage, verdict, kind = key
    point = {semconv.ATTR_STAGE: stage, semconv.VERDICT: verdict}
    if kind is not None:
        point[semconv.GATE_REJECTION] = kind
    return point


def _count_keys(shape: Shape) -> tuple[CountKey, ...]:
    """The ``citation.audits`` points one citation of ``shape`` adds 1 to, in order: gate
    (if it was gated), judge (if judged) and final."""
    result, rejection, verdict, outcome = shape
    kind = None if rejection is None else VALUE[rejection]
    keys: list[CountKey] = []
    if result is not None:
        keys.append((semconv.STAGE_GATE, VALUE[result], kind))
    if verdict is not None:
        keys.append((semconv.STAGE_JUDGE, VALUE[verdict], None))
    keys.append((semconv.STAGE_FINAL, VALUE[outcome], kind))
    return tuple(keys)


# Filled on first use (:class:`~vcg_otel._memo.Memo`): count keys and shapes are finite sets,
# fail-closed reasons a closed list.
_COUNT_ATTRIBUTES: Memo[CountKey, dict[str, str]] = Memo(_count_attributes)
_COUNT_KEYS: Memo[Shape, tuple[CountKey, ...]] = Memo(_count_keys)
_REASON_ATTRIBUTES: Memo[str, dict[str, str]] = Memo(
    lambda reason: {semconv.ATTR_REASON: reason})


def _record_genai(instruments: Instruments, report: AuditReport, r: AuditResult) -> None:
    v = r.verdict
    assert v is not None
    error = None if v.fail_reason is None else VALUE[v.fail_reason]
    instruments.genai_duration.record(
        r.judge_seconds, genai.call_attributes(report.judge_model, v.model, error))
    usage = r.usage
    if usage.prompt_tokens or usage.completion_tokens:  # none reported: none recorded
        attrs = genai.call_attributes(report.judge_model, v.model)  # no error.type here
        instruments.genai_tokens.record(usage.prompt_tokens,
                                        {**attrs, ga.GEN_AI_TOKEN_TYPE: _INPUT})
        instruments.genai_tokens.record(usage.completion_tokens,
                                        {**attrs, ga.GEN_AI_TOKEN_TYPE: _OUTPUT})


def record_metrics(instruments: Instruments, report: AuditReport) -> None:
    """Add one report's counts, tokens and durations to the instruments.

    Counts are summed per attribute set before they are added (one ``add`` per distinct
    stage and verdict, not per citation): citations are first tallied by shape (gate result,
    rejection kind, judge verdict, outcome), of which an audit has few, and each shape's points
    are worked out once (:func:`_count_keys`). Points come in the order citations first
    reached them, as they would citation by citation. Durations: ``gate`` is the gate time of
    the whole audit, ``judge`` one value per model call, ``audit`` the whole audit. Each model
    call also records the GenAI client metrics: its duration (with ``error.type`` when it
    failed closed) and, when the judge reported usage, its input and output tokens.
    """
    duration = instruments.duration
    judge_attrs = _STAGE_ATTRIBUTES[semconv.STAGE_JUDGE]
    shapes: dict[Shape, int] = {}  # plain dicts: a Counter costs more to make
    fail_reasons: dict[str, int] = {}
    prompt_tokens = completion_tokens = 0
    gate_seconds = 0.0
    for r in report.results:
        gate = r.gate
        if gate is None:
            result = rejection = None
        else:
            gate_seconds += r.gate_seconds
            result = gate.result
            # gate.rejection, read only of a gate with a diagnosis (a passage found has none)
            diagnosis = gate.diagnosis
            rejection = None if diagnosis is NO_DIAGNOSIS else diagnosis.value[0]
        v = r.verdict
        if v is None:
            verdict = None
        else:
            verdict = v.verdict
            if v.fail_reason is not None:
                reason = VALUE[v.fail_reason]
                fail_reasons[reason] = fail_reasons.get(reason, 0) + 1
            if r.judge_called:
                duration.record(r.judge_seconds, judge_attrs)
                prompt_tokens += r.usage.prompt_tokens
                completion_tokens += r.usage.completion_tokens
                _record_genai(instruments, report, r)
        shape = result, rejection, verdict, r.outcome
        shapes[shape] = shapes.get(shape, 0) + 1
    counts: dict[CountKey, int] = {}
    for shape, n in shapes.items():
        for key in _COUNT_KEYS[shape]:
            counts[key] = counts.get(key, 0) + n
    audits = instruments.audits
    for key, n in counts.items():
        audits.add(n, _COUNT_ATTRIBUTES[key])
    for reason, n in fail_reasons.items():
        instruments.fail_closed.add(n, _REASON_ATTRIBUTES[reason])
    if gate_seconds:
        duration.record(gate_seconds, _STAGE_ATTRIBUTES[semconv.STAGE_GATE])
    if prompt_tokens:
        instruments.tokens.add(prompt_tokens, _TOKEN_ATTRIBUTES[_INPUT])
    if completion_tokens:
        instruments.tokens.add(completion_tokens, _TOKEN_ATTRIBUTES[_OUTPUT])
    duration.record(report.duration_seconds, _STAGE_ATTRIBUTES[semconv.STAGE_AUDIT])
