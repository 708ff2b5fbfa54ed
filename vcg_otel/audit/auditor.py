"""The two-stage pipeline: gate every citation, judge only the quotes that exist.

Stage 1 runs inline (microseconds, no I/O). Stage 2 runs concurrently with a bound, behind a
verdict cache and an in-flight de-duplication (the same request — claim, quote, passage,
prompt, model: :func:`~vcg_otel.audit.cache.verdict_key` — is one model call), within a
per-audit budget, optionally on a sample. A fabricated or misattributed quote never reaches
the judge. Every judge failure is a fail-closed ``unjudged`` outcome with
its reason; nothing here raises because of the judge (whatever it raises or returns), while a
Ctrl-C or a cancellation of the caller still propagates.

``max_concurrency`` bounds the judge calls in flight per auditor, across all its audits, event
loops and threads (:class:`~vcg_otel.audit.limit.Slots`). A judge that calls back into an
audit of the same auditor (a handler decorated with it) would wait for a slot its own call
holds: such re-entrant audits are recognised by a context variable set while a judge call
runs, and do not wait for slots (nor for the auditor's pool); they nest at most
:data:`MAX_REENTRY` deep, deeper ones fail closed with ``reentrancy_limit``.
"""

from __future__ import annotations

import contextvars
import math
import threading
import time
import warnings
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from .._aio import judge_loop, run_on
from .._deadline import Deadline, DeadlineReached
from .._executor import DaemonExecutor
from .._settings import from_settings
from ..documents import DocumentSet
from ..evidence import QuotelessStage, SourceEvidence
from ..gate import GateMatch, GateResult, NotFoundReason, quote_gate, span_gate
from ..gate.api import Documents, as_corpus
from ..gate.corpus import Corpus
from ..gate.result import NO_DIAGNOSIS
from ..gate.search import DEFAULT_SEARCH_STEPS, SearchBudget
from ..judge.evidence_prompt import prepare_evidence
from ..judge.prompt import PROMPT_VERSION
from ..judge.runner import (
    JudgeCall,
    LLMCall,
    WindowConfig,
    ajudge_call,
    judge_model_name,
    prepare,
    source_window,
)
from ..judge.verdict import FailReason, Verdict, VerdictLabel
from ..otel import semconv
from .cache import CacheKey, VerdictCache, verdict_key
from .config import AuditConfig
from .limit import Slots
from .models import AuditReport, AuditResult, Citation, Outcome, audit_report, audit_result

if TYPE_CHECKING:
    import asyncio

    from typing_extensions import Unpack

    from .config import AuditSettings

__all__ = ["AUDIT_SEARCH_STEPS", "MAX_REENTRY", "Auditor", "audit_citation"]

#: The gate's work for one whole audit, in search steps (about half a microsecond each: some
#: 100 ms of CPU at worst, shared by every citation of the answer; one quote never gets more
#: than its own default budget). A citation reached after it is spent is ``unverifiable``
#: (``search_limit``), never ``not_found``: the host's latency stays bounded whatever the
#: answer holds, and the fabrication rate counts only quotes shown to be absent.
AUDIT_SEARCH_STEPS = 200_000
# A gate result's outcome (the same value), looked up: ``Outcome(value)`` is an enum call.
_OUTCOME_OF_GATE = {result: Outcome(result.value) for result in GateResult}
# A judge's label's outcome, the same way (``unjudged`` included: a fail-closed verdict).
_OUTCOME_OF_VERDICT = {label: Outcome(label.value) for label in VerdictLabel}
# The members the gate loop tests or assigns per citation, as module names: reading a member
# off its enum class (``Outcome.FOUND``) costs 0.1-0.2 µs, several times a global's lookup.
_FOUND = Outcome.FOUND
_SEARCH_LIMIT = NotFoundReason.SEARCH_LIMIT
#: How deep a judge may call back into audits of its own auditor.
MAX_REENTRY = 4
# The auditors whose judge call is running in this context, innermost last. Copied into the
# judge's thread (vcg_otel.judge.runner) and into every task created under it.
_JUDGING: contextvars.ContextVar[tuple[object, ...]] = contextvars.ContextVar(
    "vcg_otel_judging", default=())


# Less time than this left after waiting for a slot is not worth a call.
_MIN_CALL_SECONDS = 0.01


class _Limit(Protocol):
    async def acquire(self) -> object: ...
    def release(self) -> None: ...


@dataclass(slots=True)
class _Pending:
    """A citation the gate found, waiting for the judge."""

    index: int
    call: JudgeCall | Verdict  # a prepared request, or a fail-closed verdict (oversized input)


@dataclass(slots=True)
class _Judged:
    verdict: Verdict
    cached: bool = False
    called: bool = False
    seconds: float = 0.0
    started_ns: int = 0
    prompt: str | None = None


class _Budget:
    def __init__(self, max_calls: int | None, max_tokens: int | None) -> None:
        self.max_calls, self.max_tokens = max_calls, max_tokens
        self.calls = 0
        self.tokens = 0

    def take(self) -> str | None:
        """Reserve one call; the reason it is refused, or ``None``."""
        if self.max_calls is not None and self.calls >= self.max_calls:
            return f"max_judge_calls={self.max_calls} reached"
        if self.max_tokens is not None and self.tokens >= self.max_tokens:
            return f"max_tokens={self.max_tokens} reached"
        self.calls += 1
        return None


def _to_citation(item: object, index: int) -> Citation:
    if isinstance(item, Citation):
        return item
    if isinstance(item, Mapping):
        return Citation.from_dict(item)
    raise TypeError(f"citation {index} must be a Citation or a mapping, not {type(item).__name__}")


class Auditor:
    """Audits the citations of an answer against its documents.

    Args:
        judge: any ``llm_call(system, user)`` returning text or a ``JudgeResponse`` (sync or
            async, e.g. :class:`vcg_otel.llm.LiteLLMJudge`); ``None`` for a gate-only audit.
        config: an :class:`~vcg_otel.config.AuditConfig`; or its fields as keywords
            (``Auditor(judge, timeout=5, max_tokens=20_000)``), not both. Unset fields come
            from their environment variables, then the defaults. In short: ``timeout`` bounds
            one judge call, slot wait included (a sync call that hangs past it is abandoned
            and its thread replaced, at most ``4 * max_concurrency`` hung threads kept);
            ``max_concurrency`` bounds calls in flight for this auditor across all its audits
            (re-entrant audits do not count); ``max_judge_calls`` and ``max_tokens`` are a
            per-audit budget (citations beyond it are ``unjudged``, ``budget_exhausted``;
            calls in flight may overshoot ``max_tokens`` by their own size);
            ``judge_sample_rate`` judges a fraction of found quotes, deterministic per claim
            and passage; ``max_citations`` caps the citations audited per call (the rest are
            ``skipped`` in the report, so a runaway answer cannot stall the app).
    """

    def __init__(self, judge: LLMCall | None = None, *, config: AuditConfig | None = None,
                 **settings: Unpack[AuditSettings]) -> None:
        if judge is not None and not callable(judge):
            raise TypeError(f"judge must be callable or None, not {type(judge).__name__}")
        if "sample_rate" in settings:  # its name before the configs (it always meant this)
            warnings.warn("Auditor(sample_rate=...) is now judge_sample_rate=...",
                          DeprecationWarning, stacklevel=2)
            named: dict[str, Any] = dict(settings)
            named["judge_sample_rate"] = named.pop("sample_rate")
            settings = named  # type: ignore[assignment]
        config = from_settings(AuditConfig, settings, config, name="config", where="Auditor()")
        self.judge = judge
        self.judge_model = None if judge is None else judge_model_name(judge)
        self.config = config
        self.timeout = config.timeout
        self.max_concurrency = config.max_concurrency
        self.max_judge_calls = config.max_judge_calls
        self.max_tokens = config.max_tokens
        self.judge_sample_rate = config.judge_sample_rate
        self.cache: VerdictCache | None = (
            VerdictCache() if config.cache is True
            else config.cache if isinstance(config.cache, VerdictCache) else None
        )
        self.window = config.window or WindowConfig()
        self.max_gap = config.max_gap
        self.misattributed_is_consistent = config.misattributed_is_consistent
        self.max_citations = config.max_citations
        self._executor: DaemonExecutor | None = None
        self._executor_lock = threading.Lock()
        self._slots = Slots(config.max_concurrency)
        self._marker = object()  # this auditor, in _JUDGING

    @property
    def sample_rate(self) -> float:
        """Deprecated name of :attr:`judge_sample_rate`."""
        warnings.warn("Auditor.sample_rate is now judge_sample_rate", DeprecationWarning,
                      stacklevel=2)
        return self.judge_sample_rate

    # -- public ----------------------------------------------------------------------------

    def audit(self, citations: Iterable[Citation | Mapping[str, Any]],
              documents: Documents, *, deadline: Deadline | None = None) -> AuditReport:
        """Audit citations synchronously (judge calls still run concurrently).

        The judging runs on vcg_otel's judge loop (:data:`vcg_otel._aio.judge_loop`), a
        daemon thread: one event loop for every sync audit of the process. A sync judge
        with an async ``acall`` too (``LiteLLMJudge``) is called through its sync
        ``__call__`` here, on a worker thread, as sync code expects.

        ``deadline`` (a foreground call's, :mod:`vcg_otel._deadline`) bounds the gate and
        evidence work: a citation it cuts, or reached after it passed, is ``unverifiable``
        with ``judge_skipped`` ``deadline`` (:data:`~vcg_otel.otel.semconv.REASON_DEADLINE`).
        The judge's calls are bounded by ``timeout`` alone. ``None``: no deadline.
        """
        started = time.perf_counter()
        results, pending, skipped = self._gate_all(citations, documents, deadline)
        judged: dict[int, _Judged] = {}
        if pending:
            judged = run_on(judge_loop, self._judge_all(pending, prefer_async=False))
        return self._report(results, judged, started, skipped)

    async def aaudit(self, citations: Iterable[Citation | Mapping[str, Any]],
                     documents: Documents, *, deadline: Deadline | None = None) -> AuditReport:
        """Audit citations from async code; sync judges run on the auditor's thread pool.
        ``deadline``: as for :meth:`audit`."""
        started = time.perf_counter()
        results, pending, skipped = self._gate_all(citations, documents, deadline)
        judged = await self._judge_all(pending, prefer_async=True) if pending else {}
        return self._report(results, judged, started, skipped)

    def close(self) -> None:
        """Release the judge thread pool without waiting for calls still running."""
        with self._executor_lock:
            if self._executor is not None:
                self._executor.shutdown(wait=False, cancel_futures=True)
                self._executor = None

    # -- stage 1 ---------------------------------------------------------------------------

    def _gate_one(self, c: Citation, corpus: Corpus, budget: SearchBudget) -> GateMatch | None:
        """One citation against a plain corpus (a :class:`DocumentSet` gates its own)."""
        if c.has_offsets:
            assert c.start is not None and c.end is not None
            return span_gate(c.document_id or "", c.start, c.end, corpus, quote=c.quote,
                             chunk=c.chunk, max_gap=self.max_gap, budget=budget)
        if c.quote is None:
            return None
        return quote_gate(c.quote, c.document_id, corpus, max_gap=self.max_gap, budget=budget)

    def _gate_all(
        self, citations: Iterable[Citation | Mapping[str, Any]], documents: Documents,
        deadline: Deadline | None = None,
    ) -> tuple[list[AuditResult], list[_Pending], int]:
        corpus = as_corpus(documents, "documents")
        items: list[Citation] = []
        over_limit = 0
        for i, item in enumerate(citations):
            if i < self.max_citations:
                items.append(_to_citation(item, i))
            else:
                over_limit += 1
        results: list[AuditResult] = []
        pending: list[_Pending] = []
        quoteless: QuotelessStage | None = None  # made for the first citation without a quote
        # ids resolve to chunk groups (documents.py): told once, not per citation
        document_set = corpus if isinstance(corpus, DocumentSet) else None
        max_gap = self.max_gap
        # The gate's work is bounded per quote and per audit: each quote gets at most one
        # quote's budget, taken from what the audit has left (see AUDIT_SEARCH_STEPS).
        left = AUDIT_SEARCH_STEPS
        time_ns, clock = time.time_ns, time.perf_counter
        for index, c in enumerate(items):
            started_ns = time_ns()
            t0 = clock()
            if deadline is not None and deadline.expired():  # the host has waited enough
                results.append(audit_result(index, c, None, None, Outcome.UNVERIFIABLE,
                                           semconv.REASON_DEADLINE, gate_started_ns=started_ns))
                continue
            budget = SearchBudget(DEFAULT_SEARCH_STEPS if left >= DEFAULT_SEARCH_STEPS
                                  else max(1, left), deadline)
            gate = (document_set.gate(c, max_gap, budget) if document_set is not None
                    else self._gate_one(c, corpus, budget))
            located = None
            skipped: str | None
            if gate is not None:  # a quote, or offsets, checked
                if gate.diagnosis is not NO_DIAGNOSIS:
                    # a rejected quote's diagnosis is worked out on first use; telemetry reads
                    # it, so it is done now: its time counts as the gate's, its steps as the
                    # audit's
                    gate.diagnosis.value  # noqa: B018
                seconds = clock() - t0
                if gate.reason is _SEARCH_LIMIT:
                    # Not shown absent, only not searched to the end: calling it a fabrication
                    # would page someone for our own limit. Never found either (fail closed).
                    cut = deadline is not None and deadline.expired()
                    outcome, skipped = (Outcome.UNVERIFIABLE,
                                        semconv.REASON_DEADLINE if cut else "search_limit")
                elif not gate.found:
                    outcome, skipped = _OUTCOME_OF_GATE[gate.result], "gate_rejected"
                elif self.judge is None:
                    outcome, skipped = _FOUND, "no_judge"
                else:
                    outcome, skipped = _FOUND, None
                    source = source_window(corpus.text(gate.document_id), gate.start or 0,
                                           gate.end or 0, self.window.context_chars)
                    if self._sampled(c.claim, source):
                        call = prepare(c.claim, c.quote if c.quote is not None
                                       else gate.text or "", source, self.window)
                        pending.append(_Pending(index, call))
                    else:
                        skipped = "not_sampled"
            else:  # nothing the gate could check
                cut = False
                if c.quote is None and not c.has_offsets:
                    if quoteless is None:  # (vcg_otel.evidence)
                        quoteless = QuotelessStage(corpus, position_base=self.config.position_base,
                                                   deadline=deadline)
                    try:
                        located = quoteless.check(c.document_id, c.claim)
                    except DeadlineReached:
                        cut = True
                seconds = clock() - t0
                if cut:
                    outcome, skipped = Outcome.UNVERIFIABLE, semconv.REASON_DEADLINE
                elif located is not None:
                    outcome, skipped = self._quoteless(index, c, located, pending)
                else:
                    outcome, skipped = Outcome.UNVERIFIABLE, "unverifiable"
            left -= budget.used  # the gate's steps, its diagnosis' included
            results.append(audit_result(index, c, gate, None, outcome, skipped,
                                       gate_seconds=seconds, gate_started_ns=started_ns,
                                       evidence=located))
        return results, pending, over_limit

    def _quoteless(self, index: int, c: Citation, located: SourceEvidence,
                   pending: list[_Pending]) -> tuple[Outcome, str | None]:
        """A citation without a quote: an unknown source is fabricated (never judged); with a
        judge, a claim sharing no content word with its source is ``unrelated`` (nothing to
        judge, 0 tokens), else the judge reads the located passages (under its own prompt
        version: see :func:`~vcg_otel.audit.cache.verdict_key`)."""
        if located.unknown or located.evidence is None:
            return Outcome.UNKNOWN_SOURCE, "gate_rejected"
        if self.judge is None:
            return Outcome.UNVERIFIABLE, "no_judge"
        if not located.evidence.passages:
            return Outcome.UNRELATED, "no_evidence"
        call = prepare_evidence(c.claim, located.evidence, self.window)
        source = call.source if isinstance(call, JudgeCall) else ""
        if not self._sampled(c.claim, source):
            return Outcome.UNVERIFIABLE, "not_sampled"
        pending.append(_Pending(index, call))
        return Outcome.UNVERIFIABLE, None

    def _sampled(self, claim: str, source: str) -> bool:
        if self.judge_sample_rate >= 1.0:
            return True
        digest = zlib.crc32(f"{claim}\x00{source}".encode("utf-8", "surrogatepass"))
        return digest / 2**32 < self.judge_sample_rate

    # -- stage 2 ---------------------------------------------------------------------------

    def _pool(self) -> DaemonExecutor:
        with self._executor_lock:
            if self._executor is None:
                self._executor = DaemonExecutor(self.max_concurrency, "vcg-judge")
            return self._executor

    async def _judge_all(self, pending: list[_Pending], prefer_async: bool) -> dict[int, _Judged]:
        import asyncio  # lazily: see vcg_otel._aio

        assert self.judge is not None
        budget = _Budget(self.max_judge_calls, self.max_tokens)
        inflight: dict[CacheKey, asyncio.Future[Verdict]] = {}
        loop = asyncio.get_running_loop()
        held = _JUDGING.get()
        depth = held.count(self._marker)
        # A re-entrant audit runs while our own judge call waits for it, holding a slot and a
        # worker: it gets a limit and a pool of its own instead of waiting for those.
        limit: _Limit = asyncio.Semaphore(self.max_concurrency) if depth else self._slots
        pool = DaemonExecutor(self.max_concurrency, "vcg-judge-nested") if depth else self._pool()

        async def one(p: _Pending) -> _Judged:
            if isinstance(p.call, Verdict):
                return _Judged(p.call)
            key = verdict_key(self.judge_model or "", p.call)
            if self.cache is not None:
                hit = self.cache.get(key)
                if hit is not None:
                    return _Judged(hit, cached=True)
            if key in inflight:
                return _Judged(await asyncio.shield(inflight[key]), cached=True)
            future: asyncio.Future[Verdict] = loop.create_future()
            inflight[key] = future
            try:
                if depth >= MAX_REENTRY:
                    judged = _Judged(Verdict.failed(FailReason.REENTRANCY_LIMIT,
                                                    f"{depth} nested audits",
                                                    model=self.judge_model))
                else:
                    judged = await self._slotted(limit, p.call, budget, prefer_async, held, pool)
                if self.cache is not None:
                    self.cache.put(key, judged.verdict)
                future.set_result(judged.verdict)
                return judged
            finally:
                if not future.done():
                    future.set_result(Verdict.failed(FailReason.RAISED, "cancelled"))
                inflight.pop(key, None)

        try:
            judged = await asyncio.gather(*(one(p) for p in pending))
        finally:
            if depth:
                pool.shutdown(wait=False, cancel_futures=True)
        return {p.index: j for p, j in zip(pending, judged, strict=True)}

    async def _slotted(self, limit: _Limit, call: JudgeCall, budget: _Budget, prefer_async: bool,
                       held: tuple[object, ...], executor: DaemonExecutor) -> _Judged:
        """Wait for a slot, then call the judge; ``timeout`` covers both.

        A judge that cannot keep up with the load fails closed (``timeout``, "no judge slot")
        instead of making audits, and a host waiting for one, queue without bound.
        """
        import asyncio

        t0 = time.perf_counter()
        try:
            await asyncio.wait_for(limit.acquire(), self.timeout)
        except (asyncio.TimeoutError, TimeoutError):
            left = 0.0
        else:
            try:
                left = (math.inf if self.timeout is None
                        else self.timeout - (time.perf_counter() - t0))
                if left > _MIN_CALL_SECONDS:
                    return await self._call(call, budget, prefer_async, held, executor,
                                            None if self.timeout is None else left)
            finally:
                limit.release()
        return _Judged(Verdict.failed(FailReason.TIMEOUT,
                                      f"no judge slot free within {self.timeout}s",
                                      model=self.judge_model))

    async def _call(self, call: JudgeCall, budget: _Budget, prefer_async: bool,
                    held: tuple[object, ...], executor: DaemonExecutor,
                    timeout: float | None) -> _Judged:
        """One judge call (within a slot), marked as ours in the context while it runs."""
        assert self.judge is not None
        refused = budget.take()
        if refused is not None:
            return _Judged(Verdict.failed(FailReason.BUDGET_EXHAUSTED, refused,
                                          model=self.judge_model))
        started_ns, t0 = time.time_ns(), time.perf_counter()
        token = _JUDGING.set((*held, self._marker))
        try:
            verdict = await ajudge_call(self.judge, call, timeout=timeout,
                                        executor=executor, prefer_async=prefer_async)
        finally:
            _JUDGING.reset(token)
        budget.tokens += verdict.usage.total_tokens
        return _Judged(verdict, called=True, seconds=time.perf_counter() - t0,
                       started_ns=started_ns, prompt=call.user)

    # -- report ----------------------------------------------------------------------------

    def _report(self, results: list[AuditResult], judged: dict[int, _Judged],
                started: float, skipped: int = 0) -> AuditReport:
        # a gate-only audit (most) has no verdict to merge: the gate's results are final
        final = tuple(results) if not judged else tuple(
            [_with_verdict(r, judged.get(r.index)) for r in results])
        return audit_report(
            final, time.perf_counter() - started,
            PROMPT_VERSION if self.judge is not None else None, self.judge_model,
            self.misattributed_is_consistent, skipped)


def _with_verdict(r: AuditResult, j: _Judged | None) -> AuditResult:
    """A gate result with the judge's verdict on it (``r`` itself when it was not judged)."""
    if j is None:
        return r
    return audit_result(r.index, r.citation, r.gate, j.verdict,
                        _OUTCOME_OF_VERDICT[j.verdict.verdict], None, j.cached, j.called,
                        r.gate_seconds, j.seconds, r.gate_started_ns, j.started_ns, j.prompt,
                        r.evidence)


def audit_citation(
    claim: str, doc_id: str | int | None, quote: str, docs: Documents,
    llm_call: LLMCall | None = None,
) -> str:
    """Audit one citation (seed-compatible).

    Returns ``supports``, ``partial``, ``unrelated`` or ``contradicts`` from the judge;
    ``not_found`` or ``misattributed`` from the gate (the judge is then never called);
    ``found`` when no ``llm_call`` is given; ``unjudged`` when the judge failed closed.
    """
    if not isinstance(quote, str):
        raise TypeError(f"quote must be str, not {type(quote).__name__}")
    auditor = Auditor(llm_call, cache=False, max_concurrency=1)
    try:
        citation = Citation(claim, None if doc_id is None else str(doc_id), quote)
        return auditor.audit([citation], docs).results[0].outcome.value
    finally:
        auditor.close()
