"""The audit pipeline: gate first, judge only what exists, concurrently, within budget."""

from __future__ import annotations

import asyncio
import json
import threading
import time

import pytest

from vcg_otel.audit import Auditor, Citation, Outcome, VerdictCache, audit_citation
from vcg_otel.judge import FailReason, JudgeResponse, Usage, WindowConfig

DOCS = {
    "paper": "The reranker improves accuracy by 4.2% over the baseline. It was tested on "
    "three benchmarks, and gains shrink on long documents.",
    "blog": "Cats sleep for most of the day.",
}
SUPPORTS = json.dumps({"verdict": "supports", "confidence": 0.9, "reasoning": "stated"})


class RecordingJudge:
    """Counts calls and records prompts; answers ``supports`` after an optional delay."""

    def __init__(self, reply: str = SUPPORTS, delay: float = 0.0) -> None:
        self.reply, self.delay = reply, delay
        self.calls: list[str] = []
        self._lock = threading.Lock()

    def __call__(self, system: str, user: str) -> JudgeResponse:
        with self._lock:
            self.calls.append(user)
        if self.delay:
            time.sleep(self.delay)
        return JudgeResponse(self.reply, Usage(100, 20))


def cite(quote: str, doc: str = "paper", claim: str = "The reranker helps.") -> Citation:
    return Citation(claim=claim, document_id=doc, quote=quote)


def test_fabrication_never_calls_the_judge() -> None:
    judge = RecordingJudge()
    report = Auditor(judge).audit(
        [cite("improves accuracy by 9%"), cite("Cats sleep for most of the day")], DOCS
    )
    assert [r.outcome for r in report.results] == [Outcome.NOT_FOUND, Outcome.MISATTRIBUTED]
    assert judge.calls == [] and report.usage.total_tokens == 0 and report.judge_calls == 0
    assert all(r.judge_skipped == "gate_rejected" for r in report.results)


def test_found_quote_is_judged_and_tokens_are_recorded() -> None:
    judge = RecordingJudge()
    report = Auditor(judge).audit([cite("improves accuracy by 4.2%")], DOCS)
    r = report.results[0]
    assert r.outcome is Outcome.SUPPORTS and r.judge_called
    usage = r.usage
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (100, 20, 120)
    assert report.usage.total_tokens == 120 and report.judge_model and report.prompt_version
    assert len(judge.calls) == 1 and "improves accuracy by 4.2%" in judge.calls[0]


def test_without_a_judge_found_quotes_stay_found() -> None:
    report = Auditor().audit([cite("improves accuracy by 4.2%")], DOCS)
    assert report.results[0].outcome is Outcome.FOUND
    assert report.results[0].judge_skipped == "no_judge"


def test_found_citations_are_judged_concurrently() -> None:
    # Every call waits until all ten are in flight at once: judged one after another, the
    # barrier breaks and the calls fail closed (no clock involved).
    barrier = threading.Barrier(10, timeout=10)

    def judge(system: str, user: str) -> str:
        barrier.wait()
        return SUPPORTS

    citations = [cite("improves accuracy by 4.2%", claim=f"claim {i}") for i in range(10)]
    report = Auditor(judge, max_concurrency=10, timeout=20).audit(citations, DOCS)
    assert report.counts == {"supports": 10}


def test_async_audit_runs_async_judges_concurrently() -> None:
    in_flight: list[int] = []

    async def judge(system: str, user: str) -> str:
        in_flight.append(1)
        while len(in_flight) < 8:  # all eight must be in flight at once to get past here
            await asyncio.sleep(0.01)
        return SUPPORTS

    citations = [cite("improves accuracy by 4.2%", claim=f"claim {i}") for i in range(8)]
    report = asyncio.run(Auditor(judge, max_concurrency=8, timeout=20).aaudit(citations, DOCS))
    assert report.counts == {"supports": 8}


def test_budget_of_calls_leaves_the_rest_unjudged_never_supported() -> None:
    judge = RecordingJudge()
    citations = [cite("improves accuracy by 4.2%", claim=f"claim {i}") for i in range(5)]
    report = Auditor(judge, max_judge_calls=2, max_concurrency=1).audit(citations, DOCS)
    outcomes = [r.outcome for r in report.results]
    assert outcomes == [Outcome.SUPPORTS] * 2 + [Outcome.UNJUDGED] * 3
    assert all(r.fail_reason is FailReason.BUDGET_EXHAUSTED for r in report.results[2:])
    assert len(judge.calls) == 2


def test_budget_of_tokens_stops_further_calls() -> None:
    judge = RecordingJudge()  # 120 tokens per call
    citations = [cite("improves accuracy by 4.2%", claim=f"claim {i}") for i in range(4)]
    report = Auditor(judge, max_tokens=200, max_concurrency=1).audit(citations, DOCS)
    assert len(judge.calls) == 2
    assert [r.fail_reason for r in report.results[2:]] == [FailReason.BUDGET_EXHAUSTED] * 2


def test_repeated_citation_is_served_from_the_cache() -> None:
    judge = RecordingJudge()
    cache = VerdictCache()
    auditor = Auditor(judge, cache=cache)
    first = auditor.audit([cite("improves accuracy by 4.2%")], DOCS)
    second = auditor.audit([cite("improves accuracy by 4.2%")], DOCS)
    assert len(judge.calls) == 1 and cache.hits == 1
    assert second.results[0].cached and second.results[0].outcome is Outcome.SUPPORTS
    assert second.usage.total_tokens == 0 and first.usage.total_tokens == 120


def test_duplicate_citations_in_one_answer_cost_one_call() -> None:
    judge = RecordingJudge(delay=0.05)
    report = Auditor(judge).audit([cite("improves accuracy by 4.2%")] * 4, DOCS)
    assert len(judge.calls) == 1 and report.counts == {"supports": 4}


def test_failed_verdicts_are_not_cached() -> None:
    judge = RecordingJudge(reply="no json here")
    auditor = Auditor(judge)
    for _ in range(2):
        report = auditor.audit([cite("improves accuracy by 4.2%")], DOCS)
        assert report.results[0].fail_reason is FailReason.NO_JSON
    assert len(judge.calls) == 2


def test_sampling_judges_only_a_fraction_and_keeps_the_rest_found() -> None:
    judge = RecordingJudge()
    citations = [cite("improves accuracy by 4.2%", claim=f"claim {i}") for i in range(200)]
    report = Auditor(judge, judge_sample_rate=0.25).audit(citations, DOCS)
    judged = sum(1 for r in report.results if r.outcome is Outcome.SUPPORTS)
    skipped = [r for r in report.results if r.judge_skipped == "not_sampled"]
    assert 25 <= judged <= 75 and judged + len(skipped) == 200
    assert all(r.outcome is Outcome.FOUND for r in skipped)


def test_prompt_for_a_one_megabyte_document_stays_bounded() -> None:
    judge = RecordingJudge()
    doc = "filler text here. " * 60_000 + "The key finding is stated here." + " more" * 60_000
    window = WindowConfig(context_chars=500)
    Auditor(judge, window=window).audit(
        [Citation("finding", "big", "The key finding is stated here")], {"big": doc}
    )
    prompt = judge.calls[0]
    assert "The key finding is stated here" in prompt
    assert len(prompt) < 2 * 500 + 1_000  # window + fences + claim, not the megabyte


def test_oversized_passage_fails_closed_without_a_call() -> None:
    judge = RecordingJudge()
    quote = "word " * 2_000
    report = Auditor(judge, window=WindowConfig(max_passage_chars=1_000)).audit(
        [Citation("c", "d", quote)], {"d": quote}
    )
    assert report.results[0].fail_reason is FailReason.OVERSIZED_INPUT and not judge.calls


def test_unverifiable_citation_without_quote_or_offsets() -> None:
    # names no document: nothing to check (a quote-less citation of a document is judged on
    # located passages: tests/integration/litellm/test_evidence_audit.py)
    report = Auditor(RecordingJudge()).audit([Citation("claim")], DOCS)
    assert report.results[0].outcome is Outcome.UNVERIFIABLE


def test_offset_citation_is_checked_by_span_gate_then_judged() -> None:
    start = DOCS["paper"].index("improves")
    judge = RecordingJudge()
    report = Auditor(judge).audit(
        [Citation("c", "paper", None, start, start + 20), Citation("c", "paper", None, -5, 3)],
        DOCS,
    )
    assert [r.outcome for r in report.results] == [Outcome.SUPPORTS, Outcome.NOT_FOUND]


def test_consistent_and_inconsistent_views() -> None:
    report = Auditor(RecordingJudge()).audit(
        [cite("improves accuracy by 4.2%"), cite("Cats sleep"), cite("made up words")], DOCS
    )
    assert [r.index for r in report.consistent] == [0]
    assert [r.index for r in report.inconsistent] == [1, 2]
    lenient = Auditor(RecordingJudge(), misattributed_is_consistent=True).audit(
        [cite("improves accuracy by 4.2%"), cite("Cats sleep")], DOCS
    )
    assert len(lenient.consistent) == 2
    assert json.loads(json.dumps(report.to_dict()))["counts"] == report.counts


def test_citation_round_trips_and_accepts_aliases() -> None:
    c = Citation("claim", "d1", "quote", 3, 9, (0, 20))
    assert Citation.from_dict(c.to_dict()) == c
    assert Citation.from_dict({"claim": "x", "doc_id": "a", "quote": "q"}).document_id == "a"
    assert Citation.from_dict({"source_id": 7, "quote": "q"}).document_id == "7"
    with pytest.raises(TypeError, match="start"):
        Citation.from_dict({"quote": "q", "start": "3"})


def test_audit_citation_is_seed_compatible() -> None:
    assert audit_citation("c", "paper", "improves accuracy by 4.2%", DOCS) == "found"
    assert audit_citation("c", "paper", "improves accuracy by 4.2%", DOCS, RecordingJudge()) == (
        "supports"
    )
    judge = RecordingJudge()
    assert audit_citation("c", "paper", "Cats sleep", DOCS, judge) == "misattributed"
    assert audit_citation("c", "paper", "invented", DOCS, judge) == "not_found"
    assert judge.calls == []


def test_bad_auditor_configuration_is_rejected_clearly() -> None:
    with pytest.raises(TypeError, match="judge"):
        Auditor("gpt-4o")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="judge_sample_rate"):
        Auditor(judge_sample_rate=2)
    with pytest.warns(DeprecationWarning, match="judge_sample_rate"):
        old_name = Auditor(sample_rate=0.5)  # type: ignore[call-arg]
    assert old_name.config.judge_sample_rate == 0.5
    with pytest.raises(TypeError, match=r"unknown setting.*sample_rte"):
        Auditor(sample_rte=0.5)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="citation 0"):
        Auditor().audit(["just a string"], DOCS)  # type: ignore[list-item]
