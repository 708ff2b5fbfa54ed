"""Calling a judge: any ``llm_call(system, user)``, sync or async, bounded in time and size.

The contract is the smallest possible: a callable taking the system and user prompts and
returning the model's text (or a :class:`JudgeResponse` with token usage), either directly or
as an awaitable. Everything that can go wrong — an exception, a timeout, a non-string, an
unparseable answer — becomes a fail-closed :class:`Verdict` with its reason. Nothing raises.
"""

from __future__ import annotations

import concurrent.futures
import contextvars
import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from .._aio import Abandonable, judge_loop, run_on, run_sync
from .._executor import DaemonExecutor
from .parse import parse_verdict
from .prompt import PROMPT_VERSION, SYSTEM_PROMPT, build_user_prompt
from .verdict import FailReason, JudgeResponse, Usage, Verdict

if TYPE_CHECKING:
    import asyncio

__all__ = [
    "ABANDON_GRACE",
    "JudgeCall",
    "LLMCall",
    "WindowConfig",
    "ajudge_call",
    "is_async_judge",
    "judge_call",
    "judge_model_name",
    "judge_support",
    "source_window",
]

JudgeOutput = str | JudgeResponse
LLMCall = Callable[[str, str], JudgeOutput | Awaitable[JudgeOutput]]


@dataclass(frozen=True, slots=True)
class WindowConfig:
    """How much source text the judge sees.

    Attributes:
        context_chars: characters of context on each side of the matched passage.
        max_passage_chars: a matched passage longer than this is not sent (fail closed,
            ``oversized_input``) — the judge must read the whole passage or nothing.
        max_claim_chars: the same bound for the claim and the quote.
    """

    context_chars: int = 600
    max_passage_chars: int = 4_000
    max_claim_chars: int = 2_000

    def __post_init__(self) -> None:
        for name in ("context_chars", "max_passage_chars", "max_claim_chars"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{name} must be a non-negative int, got {value!r}")


def source_window(text: str, start: int, end: int, context_chars: int) -> str:
    """The passage ``text[start:end]`` with up to ``context_chars`` on each side.

    Context is cut at whitespace where possible and marked with ``…`` so the judge knows
    the source goes on. The window's size depends on the passage, never on the document.
    """
    lo = max(0, start - context_chars)
    hi = min(len(text), end + context_chars)
    if lo > 0:
        space = text.find(" ", lo, start)
        lo = space + 1 if space != -1 else lo
    if hi < len(text):
        space = text.rfind(" ", end, hi)
        hi = space if space != -1 else hi
    return ("\u2026" if lo > 0 else "") + text[lo:hi] + ("\u2026" if hi < len(text) else "")


@dataclass(frozen=True, slots=True)
class JudgeCall:
    """One prepared judge request: the prompts, and what they were built from.

    ``claim``, ``quote`` and ``source`` are everything the user prompt shows besides its fixed
    wording (``quote`` is empty for a quote-less citation, whose located passages, with their
    places, are its ``source``), and ``prompt_version`` names that wording and the system
    prompt: together with the judge's model they are the verdict's key
    (:func:`vcg_otel.audit.cache.verdict_key`), so no verdict is ever served for a request
    that showed the judge anything else.
    """

    system: str
    user: str
    claim: str
    source: str
    quote: str = ""
    prompt_version: str = PROMPT_VERSION


def _read(obj: object, name: str) -> tuple[Any, str | None]:
    """``getattr(obj, name, None)``, and what reading it raised, as a fail-closed detail."""
    try:
        return getattr(obj, name, None), None
    except BaseException as exc:  # the judge's failure, whatever its kind (see below)
        return None, f"{type(exc).__name__} reading {name!r}"


def _async_target(llm_call: object, prefer_async: bool) -> tuple[Any, str | None]:
    """The coroutine function to call (``acall`` when preferred, or the judge itself when it
    is one; ``None`` for a sync judge), and what reading the judge raised, if it did."""
    if prefer_async:
        acall, problem = _read(llm_call, "acall")
        if problem is not None:
            return None, problem
        if acall is not None and inspect.iscoroutinefunction(acall):
            return acall, None
    call, problem = _read(llm_call, "__call__")
    if problem is not None:
        return None, problem
    if inspect.iscoroutinefunction(llm_call) or (
            call is not None and inspect.iscoroutinefunction(call)):
        return llm_call, None
    return None, None


def _target(llm_call: object, prefer_async: bool) -> tuple[Any, str | None]:
    """:func:`_async_target`, total: ``inspect.iscoroutinefunction`` reads attributes too
    (what it raises there is a detail as well)."""
    try:
        return _async_target(llm_call, prefer_async)
    except BaseException as exc:  # the judge's failure, whatever its kind (see below)
        return None, f"{type(exc).__name__} reading the judge"


def is_async_judge(llm_call: object) -> bool:
    """Whether the callable is a coroutine function (or has an ``acall`` coroutine method).

    ``False`` when reading its attributes raises (its calls then fail closed).
    """
    return _target(llm_call, True)[0] is not None


def _judge_name(llm_call: object) -> tuple[str, str | None]:
    """The judge's name (see :func:`judge_model_name`), and what reading it raised, if it did.

    A judge whose attributes raise when read (a property, a ``__getattr__`` raising even
    ``KeyboardInterrupt`` or ``SystemExit``) still gets a name, from its type; its calls fail
    closed (``raised``) with that detail: reading the judge is part of calling it.
    """
    model, problem = _read(llm_call, "model")
    if issubclass(type(model), str) and model:
        return str.__str__(model), problem
    name, trouble = _read(llm_call, "__qualname__")
    if not issubclass(type(name), str) or not name:
        name = type(llm_call).__qualname__
    module, more = _read(llm_call, "__module__")
    if not issubclass(type(module), str):
        module = "?"
    return f"callable:{module}.{name}", problem or trouble or more


def judge_model_name(llm_call: object) -> str:
    """A stable name for the judge: its ``model`` attribute, else the callable's name.

    Never raises, whatever reading the judge's attributes raises.
    """
    return _judge_name(llm_call)[0]


def _plain_usage(usage: object) -> Usage:
    """A fresh, validated :class:`Usage` (raises if the judge's object is not a valid one)."""
    if not issubclass(type(usage), Usage):
        raise TypeError(f"usage must be a Usage, not {type(usage).__name__}")
    assert isinstance(usage, Usage)
    return Usage(usage.prompt_tokens, usage.completion_tokens, usage.cost)


def _finish(output: Any, model: str) -> Verdict:
    """The verdict from what the judge returned (run inside the judge's guard, see below)."""
    usage, answered_by = Usage(), model
    if issubclass(type(output), JudgeResponse):
        # Re-checked here: a frozen dataclass can still be altered with object.__setattr__,
        # and the budget and the metrics must never see a bogus count.
        try:
            usage = _plain_usage(output.usage)
            name = output.model
            if name is not None and not issubclass(type(name), str):
                raise TypeError(f"model must be a str, not {type(name).__name__}")
            answered_by = (str.__str__(name) if name else "") or model
            output = output.text
        except Exception as exc:
            return Verdict.failed(FailReason.INVALID_RESPONSE, type(exc).__name__, model=model)
    verdict = parse_verdict(output)
    return replace(verdict, usage=usage, model=answered_by)


def _raised(exc: BaseException, model: str) -> Verdict:
    # Only the type: exception messages may carry request details (URLs, keys, content).
    return Verdict.failed(FailReason.RAISED, type(exc).__name__, model=model)


# The judge's guard. Everything that touches what the judge supplies (reading its attributes,
# calling it, awaiting it, reading its JudgeResponse) runs inside a guard that turns whatever
# the judge raises into a fail-closed verdict: KeyboardInterrupt, SystemExit, GeneratorExit
# included, because raised *by the judge* they are the judge's failure. The same exceptions
# delivered to the *caller* (a Ctrl-C while it waits, a cancelled task) arise outside the
# guard and propagate as Python users expect: sync judges run on a worker thread (signals go
# to the main thread), and an async judge runs in a task of its own (see _outcome), on the
# caller's loop (where its clients live) or, called from sync code, on vcg_otel's judge loop.


async def _guarded(start: Callable[[], Any], model: str, guard: Abandonable) -> Verdict:
    """Await an async judge's answer and read it; what the judge raises fails closed.

    ``CancelledError`` propagates: it ends this task as cancelled, and :func:`_outcome` knows
    whether it cancelled the task itself or the judge raised it. The judge's coroutines are
    awaited through ``guard``, so that a call given up on can be ended (:func:`_abandon`).
    """
    import asyncio

    try:
        output = start()
        for _ in range(2):  # an awaitable that returns one: await it once more
            if inspect.iscoroutine(output):
                output = await guard.wait(output)
            elif inspect.isawaitable(output):
                output = await output
        return _finish(output, model)
    except asyncio.CancelledError:
        raise
    except BaseException as exc:  # the judge's failure, whatever its kind (see above)
        return _raised(exc, model)


#: Seconds a cancelled async judge (a timeout, or its caller cancelled) gets to end; one still
#: running then ignores cancellation, and is closed (see :func:`_abandon`).
ABANDON_GRACE = 1.0


def _abandon(task: asyncio.Task[Verdict], guard: Abandonable) -> None:
    """Give up on a judge task already cancelled: if it is still running after
    :data:`ABANDON_GRACE` (a judge that swallows ``CancelledError`` and awaits again), its
    coroutine is closed and the task ends cancelled (:class:`~vcg_otel._aio.Abandonable`).
    ``asyncio.run`` cancels *and waits for* every task of its loop at shutdown: a task that
    never ended would hang the host's ``asyncio.run()`` for ever."""
    def close() -> None:
        if not task.done():
            guard.abandon(task)

    task.get_loop().call_later(ABANDON_GRACE, close)


async def _outcome(pending: asyncio.Future[Verdict], timeout: float | None,
                   model: str) -> Verdict:
    """Wait for a judge's verdict (on the judge loop or a thread) at most ``timeout`` seconds.

    ``asyncio.wait`` never raises what ``pending`` raised: a ``CancelledError`` here is the
    caller's (it cancels ``pending`` and propagates), while ``pending`` ending cancelled without
    us cancelling it means the judge raised ``CancelledError`` itself (or the pool was shut
    down under a queued call): fail closed. This needs no ``Task.cancelling()`` (Python 3.11),
    and a judge that ignores cancellation is not waited for.
    """
    import asyncio

    try:
        done, _ = await asyncio.wait({pending}, timeout=timeout)
    except asyncio.CancelledError:
        pending.cancel()
        raise
    if not done:
        pending.cancel()
        return Verdict.failed(FailReason.TIMEOUT, f"after {timeout}s", model=model)
    if pending.cancelled():
        return Verdict.failed(FailReason.RAISED, "CancelledError", model=model)
    verdict: Verdict = pending.result()
    return verdict


def _call_sync(llm_call: LLMCall, system: str, user: str, model: str) -> Verdict:
    """Call a sync judge (on a worker thread) and read its answer; what it raises fails closed."""
    try:
        output: Any = llm_call(system, user)
        if inspect.isawaitable(output):
            async def wait() -> Any:
                return await output

            output = run_sync(wait())
        return _finish(output, model)
    except BaseException as exc:  # the judge's failure, whatever its kind (see above)
        return _raised(exc, model)


async def ajudge_call(
    llm_call: LLMCall,
    call: JudgeCall,
    *,
    timeout: float | None,
    executor: concurrent.futures.Executor | None = None,
    prefer_async: bool = True,
) -> Verdict:
    """Run one judge request from async code: an async judge in a task of the running loop, a
    sync one in ``executor``.

    A judge with both a sync ``__call__`` and an async ``acall`` (like ``LiteLLMJudge``) is
    called through ``acall`` unless ``prefer_async`` is false. Without an ``executor`` a sync
    judge gets a private thread. A call that times out (or whose caller is cancelled) is
    given up on at once: a sync call's thread is let go (see
    :class:`~vcg_otel._executor.DaemonExecutor`), so hung calls cannot jam the pool, and an
    async call is cancelled, then closed if it ignores that (:func:`_abandon`), so it cannot
    keep the loop's shutdown waiting. Never raises, except the caller's own cancellation.
    """
    import asyncio  # lazily: see vcg_otel._aio

    model, broken = _judge_name(llm_call)
    if broken is not None:
        return Verdict.failed(FailReason.RAISED, broken, model=model)
    system, user = call.system, call.user
    private: DaemonExecutor | None = None
    future: concurrent.futures.Future[Verdict] | None = None
    try:
        target, broken = _target(llm_call, prefer_async)
        if broken is not None:  # reading the judge is part of calling it
            return Verdict.failed(FailReason.RAISED, broken, model=model)
        if target is not None:
            guard = Abandonable()
            task = asyncio.get_running_loop().create_task(
                _guarded(lambda: target(system, user), model, guard))
            try:
                return await _outcome(task, timeout, model)
            finally:
                if not task.done():  # cancelled by _outcome, and not ended yet
                    _abandon(task, guard)
        if executor is None:
            executor = private = DaemonExecutor(1, "vcg-judge")
        # The judge's thread sees this context (vcg_otel.audit's re-entrancy marker).
        future = executor.submit(contextvars.copy_context().run, _call_sync, llm_call,
                                 system, user, model)
        return await _outcome(asyncio.wrap_future(future), timeout, model)
    finally:
        # Given up on (timeout, or the caller cancelled): a thread still running the call is
        # no longer ours to wait for.
        if future is not None and not future.done() and isinstance(executor, DaemonExecutor):
            executor.abandon(future)
        if private is not None:
            private.shutdown(wait=False, cancel_futures=True)


def judge_call(
    llm_call: LLMCall,
    call: JudgeCall,
    *,
    timeout: float | None,
    executor: concurrent.futures.Executor | None = None,
) -> Verdict:
    """Run one judge request from sync code: a sync judge on a worker thread (``executor`` or
    a private one), an async one on the judge loop (:data:`vcg_otel._aio.judge_loop`).

    The judge never runs on the caller's thread, so what the judge raises (even
    ``KeyboardInterrupt``) is its failure, and a Ctrl-C of the caller while it waits still
    propagates. A call that times out is abandoned, never waited for. Never raises, except
    the caller's own interruption.
    """
    model, broken = _judge_name(llm_call)
    if broken is not None:
        return Verdict.failed(FailReason.RAISED, broken, model=model)
    target, broken = _target(llm_call, False)
    if broken is not None:  # reading the judge is part of calling it
        return Verdict.failed(FailReason.RAISED, broken, model=model)
    if target is not None:  # bounded by ajudge_call itself
        return run_on(judge_loop, ajudge_call(llm_call, call, timeout=timeout))
    pool = executor if executor is not None else DaemonExecutor(1, "vcg-judge")
    try:
        future = pool.submit(contextvars.copy_context().run, _call_sync, llm_call,
                             call.system, call.user, model)
        try:
            verdict: Verdict = future.result(timeout)
        except concurrent.futures.TimeoutError:
            if isinstance(pool, DaemonExecutor):
                pool.abandon(future)
            return Verdict.failed(FailReason.TIMEOUT, f"after {timeout}s", model=model)
        except concurrent.futures.CancelledError:  # the pool was shut down under it
            return Verdict.failed(FailReason.RAISED, "CancelledError", model=model)
    finally:
        if executor is None:
            pool.shutdown(wait=False, cancel_futures=True)  # never wait for a hung judge
    return verdict


def prepare(claim: str, quote: str, source: str, window: WindowConfig) -> JudgeCall | Verdict:
    """Build the prompts, or a fail-closed verdict when an input is over its bound.

    Inputs are read as plain ``str`` (a subclass cannot lie its way past the bounds).
    """
    claim, quote, source = str.__str__(claim), str.__str__(quote), str.__str__(source)
    for name, text, bound in (
        ("claim", claim, window.max_claim_chars),
        ("quote", quote, window.max_claim_chars),
        ("source", source, window.max_passage_chars + 2 * window.context_chars + 2),
    ):
        if len(text) > bound:
            return Verdict.failed(FailReason.OVERSIZED_INPUT, f"{name} of {len(text)} characters")
    return JudgeCall(SYSTEM_PROMPT, build_user_prompt(claim, quote, source), claim, source,
                     quote, PROMPT_VERSION)


def judge_support(
    claim: str, quote: str, source: str, llm_call: LLMCall, *, timeout: float | None = None
) -> Verdict:
    """Ask ``llm_call`` whether ``source`` establishes ``claim`` (seed-compatible).

    ``source`` is sent as given (it should be a bounded window, not a whole document: the
    auditor builds one with :func:`source_window`). Fails closed; nothing the judge does or
    returns makes it raise (its exceptions of any kind, its output, its usage).

    Raises:
        TypeError: claim, quote or source is not a ``str``, or llm_call is not callable.
    """
    for name, value in (("claim", claim), ("quote", quote), ("source", source)):
        if not isinstance(value, str):
            raise TypeError(f"{name} must be str, not {type(value).__name__}")
    if not callable(llm_call):
        raise TypeError(f"llm_call must be callable, not {type(llm_call).__name__}")
    source = str.__str__(source)
    window = WindowConfig(max_passage_chars=max(len(source), 1), context_chars=0)
    prepared = prepare(claim, quote, source, window)
    if isinstance(prepared, Verdict):
        return prepared
    return judge_call(llm_call, prepared, timeout=timeout)
