"""One deadline bounds a foreground call's reading, gate and evidence work (issue 19, item 9).

Each reproducer of the issue, on a fake clock that advances by the work done (a read that
"takes" 90 ms moves it 90 ms; a clock that ticks at every look stands for CPU work), so the
assertions are on what was cut and how much work was done, never on wall time. What the
deadline cuts is ``unverifiable`` with reason ``deadline``, never a fabrication; the judge's
own calls are not cut.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from cases import COMMON_WORDS, common_words_docs, load_corpus, long_report  # the benchmarks'
from opentelemetry.sdk.trace import ReadableSpan
from support.answers import DOCS, HONEST
from support.telemetry import Telemetry

from vcg_otel import _deadline, audited_citations, evidence
from vcg_otel._deadline import Deadline
from vcg_otel.audit import Auditor, Citation, Outcome
from vcg_otel.audit import auditor as auditor_module
from vcg_otel.config import AuditConfig
from vcg_otel.gate import SearchBudget
from vcg_otel.otel import semconv

SUPPORTS = json.dumps({"verdict": "supports", "confidence": 0.9, "reasoning": "It says so."})


class FakeClock:
    """Monotonic seconds that move only when told to, plus ``tick`` at every look."""

    def __init__(self, tick: float = 0.0) -> None:
        self.now = 0.0
        self.tick = tick
        self.looks = 0

    def __call__(self) -> float:
        self.looks += 1
        self.now += self.tick
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    fake = FakeClock()
    monkeypatch.setattr(_deadline, "default_clock", fake)
    return fake


def _audit_span(telemetry: Telemetry) -> ReadableSpan:
    (span,) = telemetry.spans(semconv.SPAN_AUDIT)
    return span


def _checks(telemetry: Telemetry) -> list[dict[str, Any]]:
    return [dict(s.attributes or {}) for s in telemetry.spans(semconv.SPAN_CHECK)]


class SlowReads:
    """Every attribute read takes 90 ms of the fake clock (under the 100 ms slow-read cut)."""

    def __init__(self, clock: FakeClock) -> None:
        self._clock = clock
        self._reads = 0

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        self._reads += 1
        self._clock.now += 0.09
        return None


# --- input 1: every attribute read takes 90 ms --------------------------------------------


def test_a_result_whose_every_read_takes_90ms_is_read_only_until_the_deadline(
        telemetry: Telemetry, clock: FakeClock) -> None:
    slow = SlowReads(clock)

    @audited_citations(foreground_deadline=0.3, **telemetry.providers)
    def answer(documents: dict[str, str]) -> Any:
        return slow

    assert answer(DOCS) is slow
    # reads start at 0, 90, 180 and 270 ms; at 360 ms the deadline has passed: no fifth read,
    # and no second or third walk with a second of its own (before: 3 walks x 11 reads)
    assert slow._reads == 4
    span = _audit_span(telemetry)
    assert span.attributes[semconv.AUDIT_EXTRACT_LIMIT] == semconv.REASON_DEADLINE


def test_documents_cut_by_the_deadline_leave_every_citation_unverifiable_never_not_found(
        telemetry: Telemetry, clock: FakeClock) -> None:
    slow = SlowReads(clock)

    @audited_citations(foreground_deadline=0.3, **telemetry.providers)
    def answer(documents: Any) -> dict[str, Any]:
        return {"citations": [HONEST, {**HONEST, "quote": "halves latency everywhere"}]}

    answer(slow)
    assert slow._reads == 4
    span = _audit_span(telemetry)
    assert span.attributes[semconv.AUDIT_EXTRACT_LIMIT] == semconv.REASON_DEADLINE
    assert span.attributes[semconv.AUDIT_STATUS] == semconv.STATUS_AUDITED
    checks = _checks(telemetry)
    assert [c[semconv.VERDICT] for c in checks] == ["unverifiable", "unverifiable"]
    assert [c[semconv.JUDGE_SKIPPED] for c in checks] == [semconv.REASON_DEADLINE] * 2


def test_an_async_handlers_documents_cut_by_the_deadline_are_cut_the_same_way(
        telemetry: Telemetry, clock: FakeClock) -> None:
    slow = SlowReads(clock)

    @audited_citations(foreground_deadline=0.3, **telemetry.providers)
    async def answer(documents: Any) -> dict[str, Any]:
        return {"citations": [HONEST]}

    assert asyncio.run(answer(slow)) == {"citations": [HONEST]}
    assert slow._reads == 4
    (check,) = _checks(telemetry)
    assert (check[semconv.VERDICT], check[semconv.JUDGE_SKIPPED]) == (
        "unverifiable", semconv.REASON_DEADLINE)


# --- input 2: 85,000 [n] markers -----------------------------------------------------------


def test_an_answer_with_85k_markers_is_read_only_until_the_deadline(
        telemetry: Telemetry, clock: FakeClock) -> None:
    clock.tick = 0.001  # every look at the clock stands for a millisecond of work
    text = "".join(f"Rate {i} rose [{i % 3 + 1}]. " for i in range(85_000))
    docs = {str(i): text for i, text in enumerate(list(load_corpus().values())[:3], 1)}

    @audited_citations(foreground_deadline=0.3, **telemetry.providers)
    def answer(documents: dict[str, str]) -> str:
        return text

    answer(docs)
    span = _audit_span(telemetry)
    assert span.attributes[semconv.AUDIT_EXTRACT_LIMIT] == semconv.REASON_DEADLINE
    # the marker loops looked at the clock (every 256 brackets) and stopped: 300 looks in
    # all, not one look for the whole answer and 10,000 citations audited after it
    assert clock.looks <= 310
    assert all(c[semconv.JUDGE_SKIPPED] == semconv.REASON_DEADLINE for c in _checks(telemetry))


# --- inputs 3 and 4: the evidence of quote-less citations -----------------------------------


def _counting_builds(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the index builds that complete; builds the deadline cut are not finished later
    here (the test after these proves that they are)."""
    monkeypatch.setattr(evidence, "_finish_later", lambda texts: None)
    built: list[int] = []
    build = evidence._build

    def counted(text: str, deadline: Deadline | None = None) -> Any:
        index = build(text, deadline)
        built.append(len(text))
        return index

    monkeypatch.setattr(evidence, "_build", counted)
    return built


def test_quoteless_citations_over_10k_documents_index_only_until_the_deadline(
        monkeypatch: pytest.MonkeyPatch) -> None:
    abstracts = list(load_corpus().values())
    docs = {f"doc{i}": f"Report {i} of the series. {abstracts[i % len(abstracts)]}"
            for i in range(10_000)}
    citations = [Citation("The method improves retrieval accuracy.", f"doc{i * 197}")
                 for i in range(50)]
    built = _counting_builds(monkeypatch)
    clock = FakeClock(tick=0.001)
    report = Auditor(lambda system, user: SUPPORTS).audit(
        citations, docs, deadline=Deadline(0.3, clock))
    # a look per document indexed: some 300 indexes, not 10,000 (and no judge call)
    assert 0 < len(built) <= 300
    assert [r.outcome for r in report.results] == [Outcome.UNVERIFIABLE] * 50
    assert {r.judge_skipped for r in report.results} == {semconv.REASON_DEADLINE}
    assert report.judge_calls == 0


def test_a_20mb_quoteless_citation_is_cut_inside_the_index_build_and_nothing_is_cached(
        monkeypatch: pytest.MonkeyPatch) -> None:
    report_text = long_report(20)
    built = _counting_builds(monkeypatch)
    calls: list[str] = []

    def judge(system: str, user: str) -> str:
        calls.append(user)
        return SUPPORTS

    clock = FakeClock(tick=0.001)
    report = Auditor(judge).audit(
        [Citation("The proposed model improves accuracy on long documents.", "1")],
        {"1": report_text}, deadline=Deadline(0.3, clock))
    (result,) = report.results
    assert (result.outcome, result.judge_skipped) == (Outcome.UNVERIFIABLE,
                                                      semconv.REASON_DEADLINE)
    assert built == [] and calls == []  # the build was cut: no index, no judge call
    assert evidence._INDEXES.get(report_text) is None
    # a look per slice of 16 kB: at most 300 of the 1,200 slices were indexed
    assert clock.looks <= 310


def test_a_build_the_deadline_cut_is_finished_off_the_hosts_wait_for_the_next_call() -> None:
    text = long_report(2, n=77)  # a text of its own: not cached by another test
    citation = Citation("The proposed model improves accuracy on long documents.", "1")
    auditor = Auditor(lambda system, user: SUPPORTS)
    first = auditor.audit([citation], {"1": text}, deadline=Deadline(0.05, FakeClock(0.001)))
    assert first.results[0].judge_skipped == semconv.REASON_DEADLINE
    # the cut build was queued on the finisher thread (one worker: a no-op queued after it
    # returns once it is done), which indexes the text whole
    assert evidence._FINISHER[0].submit(lambda: None).result(timeout=60) is None
    assert evidence._INDEXES.get(text) is not None
    # the next call finds it cached: located and judged within the same deadline
    second = auditor.audit([citation], {"1": text}, deadline=Deadline(0.05, FakeClock(0.001)))
    assert second.results[0].outcome is Outcome.SUPPORTS


def test_documents_that_could_never_all_be_cached_are_not_indexed_after_a_cut() -> None:
    many = [f"Report {i}. The model improves accuracy."
            for i in range(evidence.INDEX_CACHE_ENTRIES + 1)]
    assert evidence._finish_later(many) is None
    huge = "word " * (evidence.INDEX_CACHE_BYTES // 5)  # an index larger than the cache
    assert evidence._finish_later([huge]) is None


# --- the gate, the judge, the setting ---------------------------------------------------------


def test_a_quote_search_cut_by_the_deadline_is_unverifiable_not_not_found(
        monkeypatch: pytest.MonkeyPatch) -> None:
    budgets: list[SearchBudget] = []

    class Recorded(SearchBudget):
        def __init__(self, steps: int, deadline: Any = None) -> None:
            super().__init__(steps, deadline)
            budgets.append(self)

    monkeypatch.setattr(auditor_module, "SearchBudget", Recorded)
    # "wit" occurs only inside "with": every chain of the elided quote's pieces fails at its
    # end, a search that would spend its whole budget (10,000 steps) without an answer
    quote = " \u2026 ".join(COMMON_WORDS[:10]) + " \u2026 wit"
    clock = FakeClock(tick=0.001)
    report = Auditor().audit([Citation("c", "d0", quote)] * 3, common_words_docs(50, seed=3),
                             deadline=Deadline(0.003, clock))
    assert not any(r.outcome.is_fabricated for r in report.results)
    assert [(r.outcome, r.judge_skipped) for r in report.results] == [
        (Outcome.UNVERIFIABLE, semconv.REASON_DEADLINE)] * 3
    # the deadline was looked at inside the search (every 1,024 steps): it stopped there
    (first,) = budgets  # the other two were cut before a search began
    assert first.used < 3 * 1024


def test_the_judges_own_calls_are_not_cut_by_the_deadline(
        telemetry: Telemetry, clock: FakeClock) -> None:
    def slow_judge(system: str, user: str) -> str:
        clock.now += 10.0  # a judge call far longer than the deadline: its timeout is 30 s
        return SUPPORTS

    @audited_citations(judge=slow_judge, foreground_deadline=0.3, **telemetry.providers)
    def answer(documents: dict[str, str]) -> dict[str, Any]:
        return {"citations": [HONEST, HONEST | {"claim": "Another claim."}]}

    answer(DOCS)
    assert [c[semconv.VERDICT] for c in _checks(telemetry)] == ["supports", "supports"]


def test_the_foreground_deadline_comes_from_its_variable(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(semconv.ENV_FOREGROUND_DEADLINE, "0.25")
    assert AuditConfig().foreground_deadline == 0.25
    monkeypatch.setenv(semconv.ENV_FOREGROUND_DEADLINE, "none")
    assert AuditConfig().foreground_deadline is None
    monkeypatch.delenv(semconv.ENV_FOREGROUND_DEADLINE)
    assert AuditConfig().foreground_deadline == 0.5
    with pytest.raises(ValueError, match="foreground_deadline"):
        AuditConfig(foreground_deadline=0)


def test_background_audits_are_not_cut_by_the_foreground_deadline(
        telemetry: Telemetry, clock: FakeClock) -> None:
    from vcg_otel.otel.background import runner

    slow = SlowReads(clock)

    @audited_citations(foreground_deadline=0.3, background=True, **telemetry.providers)
    def answer(documents: dict[str, str]) -> Any:
        return slow

    answer(DOCS)
    assert runner.flush(10)
    # the walks' own bounds apply (a second each, on the real clock): every read is made
    assert slow._reads > 4
    assert semconv.AUDIT_EXTRACT_LIMIT not in (_audit_span(telemetry).attributes or {})
