"""Issue 10, pools and bounds: hung judge calls cannot jam the pool, ``max_concurrency`` holds
per auditor across audits, loops and threads, and a judge that calls back into its own
decorated handler does not deadlock."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from vcg_otel import audited_citations
from vcg_otel._executor import DaemonExecutor
from vcg_otel.audit import Auditor, Citation, Outcome
from vcg_otel.audit.auditor import MAX_REENTRY
from vcg_otel.judge import FailReason

DOCS = {"paper": "The reranker improves accuracy by 4.2% over the baseline, on three "
                 "benchmarks, and its gains shrink on long documents."}
SUPPORTS = json.dumps({"verdict": "supports", "confidence": 0.9, "reasoning": "stated"})


def cite(n: int) -> Citation:
    return Citation(f"claim {n}", "paper", "improves accuracy by 4.2%")


@pytest.fixture
def release() -> Iterator[threading.Event]:
    """Set at teardown: every judge that blocks on it returns, no thread is left hanging."""
    event = threading.Event()
    yield event
    event.set()


class InFlight:
    """Counts judge calls in flight (across threads and loops) and keeps the peak."""

    def __init__(self) -> None:
        self.now = self.peak = self.calls = 0
        self._lock = threading.Lock()

    def enter(self) -> None:
        with self._lock:
            self.now += 1
            self.calls += 1
            self.peak = max(self.peak, self.now)

    def leave(self) -> None:
        with self._lock:
            self.now -= 1


# --- hung calls --------------------------------------------------------------------------------


def test_hung_sync_judge_calls_do_not_jam_the_pool(release: threading.Event) -> None:
    calls: list[str] = []

    def judge(system: str, user: str) -> str:
        calls.append(user)
        if "claim 0" in user or "claim 1" in user:
            release.wait(60)  # the first audit's two calls hang (well past the timeout)
        return SUPPORTS

    auditor = Auditor(judge, max_concurrency=2, timeout=0.5, cache=False)
    first = auditor.audit([cite(0), cite(1)], DOCS)
    assert [r.fail_reason for r in first.results] == [FailReason.TIMEOUT] * 2
    later = auditor.audit([cite(2), cite(3), cite(4)], DOCS)
    assert [r.outcome for r in later.results] == [Outcome.SUPPORTS] * 3
    assert sum("claim 0" not in c and "claim 1" not in c for c in calls) == 3
    auditor.close()


def test_a_judge_that_always_hangs_costs_a_bounded_number_of_threads(
    release: threading.Event,
) -> None:
    calls = InFlight()

    def judge(system: str, user: str) -> str:
        calls.enter()
        release.wait(60)
        return SUPPORTS

    auditor = Auditor(judge, max_concurrency=2, timeout=0.2, cache=False)
    for n in range(8):
        report = auditor.audit([cite(2 * n), cite(2 * n + 1)], DOCS)
        assert {r.fail_reason for r in report.results} == {FailReason.TIMEOUT}
    pool = auditor._executor
    # Live plus abandoned threads, no more: once the bound is reached, calls wait and time
    # out (exactly 10 when every call starts within its 0.2 s; fewer on a busy machine).
    assert pool is not None and pool.threads <= 2 + 4 * 2 and calls.calls <= 10
    assert calls.calls > 2  # hung workers were replaced
    auditor.close()


def test_a_call_whose_caller_was_cancelled_does_not_hold_a_worker(
    release: threading.Event,
) -> None:
    calls: list[int] = []

    def judge(system: str, user: str) -> str:
        calls.append(1)
        if "claim 0" in user:
            release.wait(60)  # hangs; its caller is cancelled meanwhile
        return SUPPORTS

    auditor = Auditor(judge, max_concurrency=1, timeout=30, cache=False)

    async def main() -> None:
        task = asyncio.create_task(auditor.aaudit([cite(0)], DOCS))
        while not calls:
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        report = await auditor.aaudit([cite(1)], DOCS)
        assert report.counts == {"supports": 1}

    asyncio.run(main())
    assert len(calls) == 2
    auditor.close()


def test_an_abandoned_worker_is_replaced_and_ends_when_its_call_returns() -> None:
    pool = DaemonExecutor(1, "test-pool", max_abandoned=1)
    started, gate = threading.Event(), threading.Event()

    def hang() -> str:
        started.set()
        gate.wait(30)
        return "late"

    try:
        hung = pool.submit(hang)
        assert started.wait(10) and pool.abandon(hung)
        assert not pool.abandon(hung)  # once only
        assert pool.submit(lambda: "replacement").result(10) == "replacement"
        second = pool.submit(hang)  # the replacement hangs too
        while not second.running():
            threading.Event().wait(0.01)
        assert not pool.abandon(second) and pool.abandoned == 1  # the bound: one abandoned
        gate.set()
        assert hung.result(10) == "late" and second.result(10) == "late"
        for _ in range(1_000):  # the abandoned thread ends: the pool is full again
            if pool.threads == 1:
                break
            threading.Event().wait(0.01)
        assert pool.threads == 1 and pool.abandoned == 0
    finally:
        gate.set()
        pool.shutdown(wait=True)


# --- one limit per auditor ---------------------------------------------------------------------


def test_max_concurrency_bounds_the_auditor_across_audits_loops_and_threads() -> None:
    flight = InFlight()

    async def ajudge(system: str, user: str) -> str:
        flight.enter()
        try:
            await asyncio.sleep(0.01)
        finally:
            flight.leave()
        return SUPPORTS

    auditor = Auditor(ajudge, max_concurrency=4, cache=False)

    async def many(offset: int) -> list[Any]:
        return await asyncio.gather(*(auditor.aaudit([cite(offset + 2 * i),
                                                      cite(offset + 2 * i + 1)], DOCS)
                                      for i in range(40)))

    other_loop: list[Any] = []
    sync_reports: list[Any] = []
    threads = [threading.Thread(target=lambda: other_loop.extend(asyncio.run(many(1_000)))),
               threading.Thread(target=lambda: sync_reports.extend(
                   auditor.audit([cite(5_000 + i) for i in range(20)], DOCS) for _ in range(2)))]
    for thread in threads:
        thread.start()
    reports = asyncio.run(many(0))
    for thread in threads:
        thread.join()
    assert all(r.counts == {"supports": 2} for r in reports + other_loop)
    assert all(r.counts == {"supports": 20} for r in sync_reports)
    assert flight.calls == 2 * 40 * 2 + 2 * 20
    assert flight.peak <= 4


def test_max_concurrency_bounds_sync_judges_across_threads() -> None:
    flight = InFlight()

    def judge(system: str, user: str) -> str:
        flight.enter()
        try:
            threading.Event().wait(0.01)
        finally:
            flight.leave()
        return SUPPORTS

    auditor = Auditor(judge, max_concurrency=3, cache=False)
    threads = [threading.Thread(target=auditor.audit, args=([cite(10 * t + i) for i in range(6)],
                                                            DOCS)) for t in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert flight.calls == 36 and flight.peak <= 3


def test_waiting_for_a_slot_counts_towards_the_timeout() -> None:
    calls: list[str] = []

    def judge(system: str, user: str) -> str:
        calls.append(user)
        return SUPPORTS

    auditor = Auditor(judge, max_concurrency=1, timeout=1, cache=False)

    async def main() -> None:
        await auditor._slots.acquire()  # every slot busy (as under a burst of audits)
        try:
            report = await asyncio.wait_for(auditor.aaudit([cite(0)], DOCS), 10)
        finally:
            auditor._slots.release()
        r = report.results[0]
        assert (r.outcome, r.fail_reason) == (Outcome.UNJUDGED, FailReason.TIMEOUT)
        assert r.verdict is not None and "slot" in r.verdict.detail and not r.judge_called
        assert auditor._slots.in_use == 0
        assert (await auditor.aaudit([cite(1)], DOCS)).counts == {"supports": 1}

    asyncio.run(main())
    assert len(calls) == 1


def test_a_cancelled_waiter_never_keeps_a_slot() -> None:
    gate = asyncio.Event

    async def main() -> None:
        opened = gate()

        async def ajudge(system: str, user: str) -> str:
            await opened.wait()
            return SUPPORTS

        auditor = Auditor(ajudge, max_concurrency=1, cache=False)
        holder = asyncio.create_task(auditor.aaudit([cite(0)], DOCS))
        waiters = [asyncio.create_task(auditor.aaudit([cite(n)], DOCS)) for n in range(1, 6)]
        await asyncio.sleep(0.05)
        for task in waiters:
            task.cancel()
        opened.set()
        assert (await holder).counts == {"supports": 1}
        assert auditor._slots.in_use == 0
        assert (await auditor.aaudit([cite(9)], DOCS)).counts == {"supports": 1}

    asyncio.run(main())


# --- a judge that calls back into the decorated handler ----------------------------------------


def _handler_and_auditor(judge: Any, **options: Any) -> tuple[Auditor, Any]:
    auditor = Auditor(judge, max_concurrency=1, timeout=3, cache=False, **options)

    @audited_citations(auditor=auditor, mode="enforce")
    def respond(question: str, documents: dict[str, str]) -> dict[str, Any]:
        return {"answer": question, "citations": [
            {"claim": question, "doc_id": "paper", "quote": "improves accuracy by 4.2%"}]}

    return auditor, respond


def test_a_sync_judge_calling_back_into_its_handler_does_not_deadlock() -> None:
    inner: list[Any] = []

    def judge(system: str, user: str) -> str:
        if not inner:
            inner.append(None)
            inner[0] = respond("inner question", DOCS)
        return SUPPORTS

    _, respond = _handler_and_auditor(judge)
    outer = respond("outer question", DOCS)
    assert outer["citation_audit"]["counts"] == {"supports": 1}
    assert inner[0]["citation_audit"]["counts"] == {"supports": 1}  # not a timeout


def test_an_async_judge_calling_back_into_its_handler_does_not_deadlock() -> None:
    inner: list[Any] = []

    async def judge(system: str, user: str) -> str:
        if not inner:
            inner.append(None)
            inner[0] = await arespond("inner question", DOCS)
        return SUPPORTS

    auditor = Auditor(judge, max_concurrency=1, timeout=3, cache=False)

    @audited_citations(auditor=auditor, mode="enforce")
    async def arespond(question: str, documents: dict[str, str]) -> dict[str, Any]:
        return {"answer": question, "citations": [
            {"claim": question, "doc_id": "paper", "quote": "improves accuracy by 4.2%"}]}

    outer = asyncio.run(arespond("outer question", DOCS))
    assert outer["citation_audit"]["counts"] == {"supports": 1}
    assert inner[0]["citation_audit"]["counts"] == {"supports": 1}


def test_a_judge_that_always_calls_back_stops_at_the_reentry_limit() -> None:
    depth: list[int] = []

    def judge(system: str, user: str) -> str:
        depth.append(1)
        report = respond(f"question {len(depth)}", DOCS)["citation_audit"]
        result = report["results"][0]
        assert result["outcome"] in ("supports", "unjudged")
        return SUPPORTS

    _, respond = _handler_and_auditor(judge)
    outer = respond("outer", DOCS)
    assert outer["citation_audit"]["counts"] == {"supports": 1}
    assert len(depth) == MAX_REENTRY


def test_the_context_marker_does_not_leak_to_other_audits(release: threading.Event) -> None:
    """A re-entrant audit is one started *by the judge*; a concurrent audit from another
    thread still waits for its slot."""
    flight = InFlight()

    def judge(system: str, user: str) -> str:
        flight.enter()
        try:
            release.wait(0.05)
        finally:
            flight.leave()
        return SUPPORTS

    auditor = Auditor(judge, max_concurrency=1, cache=False)
    threads = [threading.Thread(target=auditor.audit, args=([cite(n)], DOCS)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert flight.calls == 6 and flight.peak == 1
