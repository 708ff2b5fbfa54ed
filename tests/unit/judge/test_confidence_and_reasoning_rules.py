"""Issue 19, item 11: two parser rules. A confidence is a number from 0 to 1, compared
exactly (a 400-digit integer is out of range, not a parser error); and a ``supports`` whose
own reasoning speaks against it ("does not support", "contradicts", "refutes") is two answers
in one: ``prose_verdict``, fail closed. Less favourable verdicts keep their reasoning as
written."""

from __future__ import annotations

import json

import pytest

from vcg_otel.audit import Auditor, Citation, Outcome
from vcg_otel.judge import FailReason, VerdictLabel, parse_verdict


def answer(verdict: str, reasoning: str = "The passage states it.",
           confidence: object = 0.9) -> str:
    return json.dumps({"verdict": verdict, "confidence": confidence, "reasoning": reasoning})


@pytest.mark.parametrize("confidence", ["1" + "0" * 400, "-" + "9" * 400, "1e400", "-1e400",
                                        "2", "-1"])
def test_a_confidence_out_of_range_fails_closed_whatever_its_size(confidence: str) -> None:
    raw = f'{{"verdict": "supports", "confidence": {confidence}, "reasoning": "ok"}}'
    v = parse_verdict(raw)
    assert (v.verdict, v.fail_reason) == (VerdictLabel.UNJUDGED, FailReason.WRONG_TYPE)
    assert v.detail == "confidence out of range"


@pytest.mark.parametrize(("confidence", "value"), [("0", 0.0), ("1", 1.0), ("0.75", 0.75),
                                                   ("1" + "0" * 400 + "e-400", 1.0)])
def test_a_confidence_in_range_is_read_exactly(confidence: str, value: float) -> None:
    v = parse_verdict(f'{{"verdict": "partial", "confidence": {confidence}, "reasoning": "x"}}')
    assert (v.verdict, v.confidence) == (VerdictLabel.PARTIAL, value)


@pytest.mark.parametrize("reasoning", [
    "The source does not support the claim; it contradicts it.",
    "The passage refutes the claim.",
    "The reported gains were refuted in the follow-up experiment.",
    "The source fails to support the claim.",
    "The quote is unrelated to the claim.",
    "The passage only partially supports the claim.",
    "The data disproves the claim.",
    "The source con\u200btradicts the claim.",  # a hidden character does not hide the word
])
def test_a_supports_whose_reasoning_speaks_against_it_fails_closed(reasoning: str) -> None:
    v = parse_verdict(answer("supports", reasoning))
    assert (v.verdict, v.fail_reason) == (VerdictLabel.UNJUDGED, FailReason.PROSE_VERDICT)
    assert v.detail.startswith("the reasoning says")


@pytest.mark.parametrize("reasoning", [
    "The source directly supports the claim.",
    "The passage states the 4.2% gain the claim reports, which supports it.",
    "The quote does not contradict the claim and establishes it at full strength.",
    "There is no contradiction: the source establishes the claim.",
])
def test_a_supports_whose_reasoning_agrees_is_read(reasoning: str) -> None:
    assert parse_verdict(answer("supports", reasoning)).verdict is VerdictLabel.SUPPORTS


def test_the_rule_is_lexical_nothing_is_not_a_negation() -> None:
    v = parse_verdict(answer("supports", "The passage establishes it; nothing contradicts it."))
    assert v.fail_reason is FailReason.PROSE_VERDICT  # documented: fails closed, never supports


@pytest.mark.parametrize(("verdict", "reasoning"), [
    ("partial", "The source supports only the first half of the claim."),
    ("contradicts", "The source does not support the claim: it refutes it."),
    ("unrelated", "The passage neither supports nor contradicts the claim."),
])
def test_a_less_favourable_verdict_keeps_its_reasoning(verdict: str, reasoning: str) -> None:
    v = parse_verdict(answer(verdict, reasoning))
    assert (v.verdict.value, v.fail_closed) == (verdict, False)


def test_refutes_in_the_prose_around_the_answer_is_a_conflict_too() -> None:
    v = parse_verdict("The passage refutes the claim.\n" + answer("supports"))
    assert v.fail_reason is FailReason.PROSE_VERDICT


def test_the_audit_records_the_conflict_as_a_fail_closed_citation() -> None:
    docs = {"paper": "The reranker improves accuracy by 4.2% over the baseline."}
    judge = lambda s, u: answer("supports", "The source does not support this; it refutes it.")  # noqa: E731
    r = Auditor(judge).audit([Citation("It helps.", "paper", "improves accuracy by 4.2%")],
                             docs).results[0]
    assert (r.outcome, r.fail_reason) == (Outcome.UNJUDGED, FailReason.PROSE_VERDICT)
