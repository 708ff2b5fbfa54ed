"""@audited_citations with the real OpenTelemetry SDK (in-memory span exporter, metric reader)."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry.semconv._incubating.attributes.gen_ai_attributes import (
    GEN_AI_TOKEN_TYPE,
)
from opentelemetry.trace import StatusCode
from support.answers import DOCS, ELIDED, FABRICATED, HONEST, MISATTRIBUTED
from support.telemetry import Telemetry

from vcg_otel import AuditedResult, CitationViolation, audited_citations
from vcg_otel.judge import JudgeResponse, Usage
from vcg_otel.otel import semconv
from vcg_otel.otel.background import runner

ANSWER = {"answer": "...", "citations": [HONEST, ELIDED, FABRICATED, MISATTRIBUTED]}



def supports(system: str, user: str) -> JudgeResponse:
    text = json.dumps({"verdict": "supports", "confidence": 0.75, "reasoning": "It says so."})
    return JudgeResponse(text, Usage(200, 30), "judge-model")


def test_span_tree_kinds_and_attributes(telemetry: Telemetry) -> None:
    @audited_citations(judge=supports, **telemetry.providers)
    def answer(question: str, documents: dict[str, str]) -> dict[str, Any]:
        return ANSWER

    assert answer("q", documents=DOCS) is ANSWER
    (audit,) = telemetry.spans(semconv.SPAN_AUDIT)
    checks = sorted(telemetry.spans(semconv.SPAN_CHECK),
                    key=lambda s: s.attributes[semconv.CITATION_INDEX])
    judges = telemetry.judges()
    assert audit.attributes[semconv.OPENINFERENCE_SPAN_KIND] == "GUARDRAIL"
    assert [c.attributes[semconv.OPENINFERENCE_SPAN_KIND] for c in checks] == ["EVALUATOR"] * 4
    assert all(c.parent.span_id == audit.context.span_id for c in checks)
    assert len(judges) == 2  # only the two quotes that exist were judged
    assert {j.parent.span_id for j in judges} == {checks[0].context.span_id,
                                                  checks[1].context.span_id}
    honest, elided, fabricated, misattributed = (c.attributes for c in checks)
    assert honest[semconv.GATE_RESULT] == "found" and honest[semconv.VERDICT] == "supports"
    start, end = honest[semconv.GATE_MATCH_START], honest[semconv.GATE_MATCH_END]
    assert DOCS["paper"][start:end] == "improves accuracy by 4.2%"
    assert honest[semconv.JUDGE_CONFIDENCE] == 0.75
    assert honest[semconv.JUDGE_REASONING] == "It says so."
    assert honest[semconv.EVAL_LABEL] == "supports" and honest[semconv.EVAL_SCORE] == 0.0
    assert honest[semconv.EVAL_ANNOTATOR_KIND] == "LLM"
    assert elided[semconv.GATE_ELIDED] is True
    assert fabricated[semconv.GATE_RESULT] == "not_found"
    assert fabricated[semconv.VERDICT] == "not_found" and fabricated[semconv.EVAL_SCORE] == 1.0
    assert fabricated[semconv.EVAL_ANNOTATOR_KIND] == "CODE"
    assert semconv.JUDGE_VERDICT not in fabricated
    assert misattributed[semconv.GATE_SOURCE_DOCUMENT_IDS] == ("blog",)
    assert misattributed[semconv.GATE_MATCH_DOCUMENT_ID] == "blog"  # offsets index blog's text
    assert audit.attributes[semconv.COUNT_PREFIX + "supports"] == 2
    assert audit.attributes[semconv.COUNT_PREFIX + "not_found"] == 1
    assert audit.attributes[semconv.COUNT_PREFIX + "misattributed"] == 1
    assert audit.attributes[semconv.COUNT_TOTAL] == 4
    judge = judges[0].attributes
    assert judge[semconv.OPENINFERENCE_SPAN_KIND] == "LLM"
    assert judge[semconv.LLM_MODEL_NAME] == "judge-model"
    assert (judge[semconv.LLM_TOKEN_PROMPT], judge[semconv.LLM_TOKEN_COMPLETION],
            judge[semconv.LLM_TOKEN_TOTAL]) == (200, 30, 230)
    assert judge[semconv.JUDGE_PROMPT_VERSION]
    assert "improves accuracy by 4.2%" in judge[semconv.INPUT_VALUE]
    assert "It says so." in judge[semconv.OUTPUT_VALUE]


def test_metrics_count_stages_verdicts_tokens_and_durations(telemetry: Telemetry) -> None:
    @audited_citations(judge=supports, **telemetry.providers)
    def answer(documents: dict[str, str]) -> dict[str, Any]:
        return ANSWER

    answer(DOCS)
    audits = {(a[semconv.ATTR_STAGE], a[semconv.VERDICT]): v
              for a, v in telemetry.metric_points(semconv.METRIC_AUDITS)}
    assert audits[("gate", "found")] == 2 and audits[("gate", "not_found")] == 1
    assert audits[("gate", "misattributed")] == 1 and audits[("judge", "supports")] == 2
    assert audits[("final", "supports")] == 2 and audits[("final", "not_found")] == 1
    tokens = {a[GEN_AI_TOKEN_TYPE]: v
              for a, v in telemetry.metric_points(semconv.METRIC_TOKENS)}
    assert tokens == {"input": 400, "output": 60}
    durations = {a[semconv.ATTR_STAGE]: n
                 for a, n in telemetry.metric_points(semconv.METRIC_DURATION)}
    assert durations == {"gate": 1, "judge": 2, "audit": 1}  # gate: one value per audit


def test_fail_closed_judge_emits_event_and_metric(telemetry: Telemetry) -> None:
    @audited_citations(judge=lambda s, u: "no verdict here", **telemetry.providers)
    def answer(documents: dict[str, str]) -> dict[str, Any]:
        return {"citations": [HONEST]}

    answer(DOCS)
    (check,) = telemetry.spans(semconv.SPAN_CHECK)
    assert check.attributes[semconv.VERDICT] == "unjudged"
    assert check.attributes[semconv.JUDGE_FAIL_CLOSED] is True
    (event,) = [e for e in check.events if e.name == semconv.EVENT_FAIL_CLOSED]
    assert event.attributes[semconv.EVENT_ATTR_REASON] == "no_json"
    (judge,) = telemetry.judges()
    assert judge.status.status_code is StatusCode.ERROR
    assert telemetry.metric_points(semconv.METRIC_FAIL_CLOSED) == [({"reason": "no_json"}, 1)]


def test_check_events_mode_makes_one_span_per_gate_only_audit(telemetry: Telemetry) -> None:
    @audited_citations(check_spans=False, **telemetry.providers)
    def answer(documents: dict[str, str]) -> dict[str, Any]:
        return ANSWER

    answer(DOCS)
    (audit,) = telemetry.spans()  # no citation.check spans
    assert audit.name == semconv.SPAN_AUDIT
    events = [e.attributes for e in audit.events if e.name == semconv.EVENT_CHECK]
    assert [e[semconv.CITATION_INDEX] for e in events] == [0, 1, 2, 3]
    assert [e[semconv.VERDICT] for e in events] == ["found", "found", "not_found",
                                                     "misattributed"]
    assert all(semconv.OPENINFERENCE_SPAN_KIND not in e for e in events)
    assert events[1][semconv.GATE_ELIDED] is True
    assert events[2][semconv.EVAL_SCORE] == 1.0
    assert events[3][semconv.GATE_SOURCE_DOCUMENT_IDS] == ("blog",)
    start, end = events[0][semconv.GATE_MATCH_START], events[0][semconv.GATE_MATCH_END]
    assert DOCS["paper"][start:end] == "improves accuracy by 4.2%"
    assert audit.attributes[semconv.COUNT_TOTAL] == 4


def test_check_events_mode_keeps_judge_spans_and_fail_closed_events(
        telemetry: Telemetry) -> None:
    def judge(system: str, user: str) -> Any:
        return "no verdict here" if "Gains shrink." in user else supports(system, user)

    @audited_citations(judge=judge, check_spans=False, **telemetry.providers)
    def answer(documents: dict[str, str]) -> dict[str, Any]:
        return {"citations": [HONEST, ELIDED]}

    answer(DOCS)
    (audit,) = telemetry.spans(semconv.SPAN_AUDIT)
    judges = telemetry.judges()
    assert len(judges) == 2 and not telemetry.spans(semconv.SPAN_CHECK)
    assert all(j.parent.span_id == audit.context.span_id for j in judges)
    (failed,) = [e for e in audit.events if e.name == semconv.EVENT_FAIL_CLOSED]
    assert failed.attributes[semconv.EVENT_ATTR_REASON] == "no_json"
    assert failed.attributes[semconv.CITATION_INDEX] == 1
    checks = {e.attributes[semconv.CITATION_INDEX]: e.attributes
              for e in audit.events if e.name == semconv.EVENT_CHECK}
    assert checks[0][semconv.VERDICT] == "supports"
    assert checks[1][semconv.VERDICT] == "unjudged"
    assert checks[1][semconv.JUDGE_FAIL_REASON] == "no_json"


@pytest.mark.parametrize("check_spans", [True, False])
@pytest.mark.parametrize("switch", ["argument", "vcg_env", "openinference_env"])
def test_content_capture_off_leaves_no_quote_or_claim_anywhere(
    telemetry: Telemetry, monkeypatch: pytest.MonkeyPatch, switch: str, check_spans: bool
) -> None:
    secret_claim, secret_quote = "The reranker helps.", "improves accuracy by 4.2%"
    capture: bool | None = None
    if switch == "argument":
        capture = False
    elif switch == "vcg_env":
        monkeypatch.setenv("VCG_OTEL_CAPTURE_CONTENT", "false")
    else:
        monkeypatch.setenv("OPENINFERENCE_HIDE_INPUTS", "true")
        monkeypatch.setenv("OPENINFERENCE_HIDE_OUTPUTS", "true")

    @audited_citations(judge=supports, capture_content=capture, check_spans=check_spans,
                       **telemetry.providers)
    def answer(documents: dict[str, str]) -> dict[str, Any]:
        return {"citations": [HONEST, FABRICATED]}

    answer(DOCS)
    exported = telemetry.dump()
    assert secret_quote not in exported and secret_claim not in exported
    assert "It says so." not in exported  # reasoning hidden too
    assert "halves latency" not in exported
    (audit,) = telemetry.spans(semconv.SPAN_AUDIT)
    assert audit.attributes[semconv.COUNT_PREFIX + "supports"] == 1  # numbers stay


def test_async_function(telemetry: Telemetry) -> None:
    @audited_citations(**telemetry.providers)
    async def answer(documents: dict[str, str]) -> dict[str, Any]:
        await asyncio.sleep(0)
        return {"citations": [HONEST, FABRICATED]}

    result = asyncio.run(answer(DOCS))
    assert result["citations"] == [HONEST, FABRICATED]
    verdicts = sorted(c.attributes[semconv.VERDICT] for c in telemetry.spans(semconv.SPAN_CHECK))
    assert verdicts == ["found", "not_found"]


def test_generator_is_audited_when_the_stream_ends(telemetry: Telemetry) -> None:
    @audited_citations(**telemetry.providers)
    def stream(docs: dict[str, str]) -> Iterator[str]:
        yield 'It "improves accuracy by 4.2%" [paper]. '
        assert not telemetry.spans(semconv.SPAN_AUDIT)  # span still open mid-stream
        yield 'And "halves latency everywhere" [paper].'

    chunks = list(stream(DOCS))
    assert len(chunks) == 2
    (audit,) = telemetry.spans(semconv.SPAN_AUDIT)
    assert audit.attributes[semconv.COUNT_PREFIX + "found"] == 1
    assert audit.attributes[semconv.COUNT_PREFIX + "not_found"] == 1


def test_closed_stream_audits_what_was_produced(telemetry: Telemetry) -> None:
    @audited_citations(**telemetry.providers)
    def stream(docs: dict[str, str]) -> Iterator[str]:
        yield 'It "improves accuracy by 4.2%" [paper]. '
        yield 'And "halves latency everywhere" [paper].'

    gen = stream(DOCS)
    next(gen)
    gen.close()
    (audit,) = telemetry.spans(semconv.SPAN_AUDIT)
    assert audit.attributes[semconv.COUNT_TOTAL] == 1
    assert audit.attributes[semconv.COUNT_PREFIX + "found"] == 1


def test_async_generator_and_its_early_close(telemetry: Telemetry) -> None:
    @audited_citations(**telemetry.providers)
    async def stream(docs: dict[str, str]) -> Any:
        yield {"citations": [HONEST]}
        yield {"citations": [FABRICATED]}

    async def consume(early: bool) -> list[Any]:
        got = []
        agen = stream(DOCS)
        async for item in agen:
            got.append(item)
            if early:
                break
        await agen.aclose()
        return got

    assert len(asyncio.run(consume(False))) == 2
    assert len(asyncio.run(consume(True))) == 1
    totals = sorted(s.attributes[semconv.COUNT_TOTAL] for s in telemetry.spans(semconv.SPAN_AUDIT))
    assert totals == [1, 2]


def test_handler_spans_nest_under_the_audit_span(telemetry: Telemetry) -> None:
    tracer = telemetry.tracer_provider.get_tracer("app")

    @audited_citations(**telemetry.providers)
    def answer(documents: dict[str, str]) -> dict[str, Any]:
        with tracer.start_as_current_span("llm call"):
            pass
        return {"citations": [HONEST]}

    answer(DOCS)
    (audit,) = telemetry.spans(semconv.SPAN_AUDIT)
    (inner,) = telemetry.spans("llm call")
    assert inner.parent.span_id == audit.context.span_id


def test_background_judging_returns_at_once_and_parents_correctly(telemetry: Telemetry) -> None:
    release, judged = threading.Event(), threading.Event()

    def slow(system: str, user: str) -> JudgeResponse:
        release.wait(10)  # held until the caller has its result back
        judged.set()
        return supports(system, user)

    @audited_citations(judge=slow, background=True, **telemetry.providers)
    def answer(documents: dict[str, str]) -> dict[str, Any]:
        return {"citations": [HONEST]}

    answer(DOCS)
    assert not judged.is_set()  # the caller did not wait for the judge
    release.set()
    assert runner.flush(5)
    (audit,) = telemetry.spans(semconv.SPAN_AUDIT)
    (check,) = telemetry.spans(semconv.SPAN_CHECK)
    (judge,) = telemetry.judges()
    assert check.parent.span_id == audit.context.span_id
    assert judge.parent.span_id == check.context.span_id
    assert check.attributes[semconv.VERDICT] == "supports"
    assert audit.attributes[semconv.AUDIT_BACKGROUND] is True
    assert audit.end_time >= judge.end_time


def test_handler_exception_passes_through_unchanged_and_is_recorded(
    telemetry: Telemetry,
) -> None:
    class Boom(Exception):
        pass

    error = Boom("handler failed")

    @audited_citations(**telemetry.providers)
    def answer(documents: dict[str, str]) -> dict[str, Any]:
        raise error

    with pytest.raises(Boom) as caught:
        answer(DOCS)
    assert caught.value is error
    (audit,) = telemetry.spans(semconv.SPAN_AUDIT)
    assert audit.status.status_code is StatusCode.ERROR
    assert audit.attributes[semconv.AUDIT_STATUS] == "handler_error"
    assert any(e.name == "exception" for e in audit.events)
    assert not telemetry.spans(semconv.SPAN_CHECK)


def test_exploding_extractor_or_judge_never_reaches_the_caller(telemetry: Telemetry) -> None:
    def explode(arguments: Any, result: Any) -> Any:
        raise RuntimeError("extractor bug")

    @audited_citations(citations=explode, **telemetry.providers)
    def answer(documents: dict[str, str]) -> str:
        return "result"

    def judge_bomb(system: str, user: str) -> str:
        raise MemoryError("judge bug")

    @audited_citations(judge=judge_bomb, **telemetry.providers)
    def answer2(documents: dict[str, str]) -> dict[str, Any]:
        return {"citations": [HONEST]}

    assert answer(DOCS) == "result"
    assert answer2(DOCS) == {"citations": [HONEST]}
    audits = telemetry.spans(semconv.SPAN_AUDIT)
    broken = [a for a in audits if a.attributes.get(semconv.AUDIT_ERROR) == "RuntimeError"]
    assert len(broken) == 1 and broken[0].status.status_code is StatusCode.ERROR
    (check,) = telemetry.spans(semconv.SPAN_CHECK)
    assert check.attributes[semconv.JUDGE_FAIL_REASON] == "raised"


def test_nothing_auditable_is_a_span_saying_so(telemetry: Telemetry) -> None:
    @audited_citations(**telemetry.providers)
    def answer(documents: dict[str, str]) -> str:
        return "an answer without any quotes"

    assert answer(DOCS) == "an answer without any quotes"
    (audit,) = telemetry.spans(semconv.SPAN_AUDIT)
    assert audit.attributes[semconv.AUDIT_STATUS] == "nothing_to_audit"
    assert audit.status.status_code is not StatusCode.ERROR


def test_extractor_overrides(telemetry: Telemetry) -> None:
    @audited_citations(citations=lambda args, result: result[1],
                       documents=lambda args, result: args["corpus"], **telemetry.providers)
    def answer(corpus: list[dict[str, str]]) -> tuple[str, list[dict[str, str]]]:
        return "text", [HONEST]

    answer([{"id": "paper", "text": DOCS["paper"]}])
    (check,) = telemetry.spans(semconv.SPAN_CHECK)
    assert check.attributes[semconv.VERDICT] == "found"


def test_enforce_mode_filters_and_can_raise(telemetry: Telemetry) -> None:
    @audited_citations(mode="enforce", **telemetry.providers)
    def answer(documents: dict[str, str]) -> dict[str, Any]:
        return {"answer": "x", "citations": [HONEST, FABRICATED, "not a citation"]}

    result = answer(DOCS)
    assert result["citations"] == [HONEST]
    assert result["citation_audit"]["counts"] == {"found": 1, "not_found": 1}

    @audited_citations(mode="enforce", **telemetry.providers)
    def text_answer(documents: dict[str, str]) -> str:
        return 'It "improves accuracy by 4.2%" [paper].'

    wrapped = text_answer(DOCS)
    assert isinstance(wrapped, AuditedResult) and wrapped.report.counts == {"found": 1}

    @audited_citations(mode="enforce", on_violation="raise", **telemetry.providers)
    def strict(documents: dict[str, str]) -> dict[str, Any]:
        return {"citations": [HONEST, FABRICATED]}

    with pytest.raises(CitationViolation) as caught:
        strict(DOCS)
    assert caught.value.report.counts["not_found"] == 1


def test_invalid_options_fail_at_decoration_time() -> None:
    with pytest.raises(ValueError, match="mode"):
        audited_citations(mode="block")  # type: ignore[call-overload]
    with pytest.raises(ValueError, match="background"):
        audited_citations(mode="enforce", background=True)
    with pytest.raises(TypeError, match="stream"):
        @audited_citations(mode="enforce")
        def gen() -> Iterator[int]:
            yield 1


def test_without_an_sdk_the_audit_is_skipped() -> None:
    calls: list[str] = []

    def judge(system: str, user: str) -> str:  # an honest quote would be judged if audited
        calls.append("judge")
        return '{"verdict": "supports", "confidence": 0.9, "reasoning": "ok"}'

    @audited_citations(judge=judge)
    def answer(documents: dict[str, str]) -> dict[str, Any]:
        calls.append("handler")
        return {"citations": [HONEST]}

    assert answer(DOCS) == {"citations": [HONEST]}
    assert calls == ["handler"]
