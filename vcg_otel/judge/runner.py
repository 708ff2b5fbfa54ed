"""Calling a judge: any ``llm_call(system, user)``, sync or async, bounded in time and size.

The contract is the smallest possible: a callable taking the system and user prompts and
returning the model's text (or a :class:`JudgeResponse` with token usage), either directly or
as an awaitable. Everything that can go wrong — an exception, a timeout, a non-string, an
unparseable answer — becomes a fail-closed :class:`Verdict` with its reason. Nothing raises.
"""

from __future__ import annotations

import concurrent.futures
import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any

from .._aio import run_sync
from .._executor import DaemonExecutor
from .parse import parse_verdict
from .prompt import SYSTEM_PROMPT, build_user_prompt
from .verdict import FailReason, JudgeResponse, Usage, Verdict

__all__ = [
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
    """One prepared judge request (prompts plus the key the verdict cache uses)."""

    system: str
    user: str
    claim: str
    source: str


def _is_coroutine_callable(llm_call: object) -> bool:
    return inspect.iscoroutinefunction(llm_call) or inspect.iscoroutinefunction(
        getattr(llm_call, "__call__", None)  # noqa: B004 - an async __call__ on an object
    )


def is_async_judge(llm_call: object) -> bool:
    """Whether the callable is a coroutine function (or has an ``acall`` coroutine method)."""
    return inspect.iscoroutinefunction(getattr(llm_call, "acall", None)) or (
        _is_coroutine_callable(llm_call)
    )


def judge_model_name(llm_call: object) -> str:
    """A stable name for the judge: its ``model`` attribute, else the callable's name."""
    model = getattr(llm_call, "model", None)
    if isinstance(model, str) and model:
        return model
    name = getattr(llm_call, "__qualname__", None) or type(llm_call).__qualname__
    return f"callable:{getattr(llm_call, '__module__', '?')}.{name}"


def _finish(output: Any, model: str) -> Verdict:
    usage, answered_by = Usage(), model
    if isinstance(output, JudgeResponse):
        usage, answered_by, output = output.usage, output.model or model, output.text
    verdict = parse_verdict(output)
    return replace(verdict, usage=usage, model=answered_by)


def _raised(exc: BaseException, model: str) -> Verdict:
    # Only the type: exception messages may carry request details (URLs, keys, content).
    return Verdict.failed(FailReason.RAISED, type(exc).__name__, model=model)


async def ajudge_call(
    llm_call: LLMCall,
    call: JudgeCall,
    *,
    timeout: float | None,
    executor: concurrent.futures.Executor | None = None,
    prefer_async: bool = True,
) -> Verdict:
    """Run one judge request from async code; a sync judge runs in ``executor``.

    A judge with both a sync ``__call__`` and an async ``acall`` (like ``LiteLLMJudge``) is
    called through ``acall`` unless ``prefer_async`` is false — sync audits run each on a
    short-lived event loop, where a client bound to another loop must not be used.
    """
    import asyncio  # lazily: see vcg_otel._aio

    model = judge_model_name(llm_call)
    try:
        acall = getattr(llm_call, "acall", None)
        if prefer_async and inspect.iscoroutinefunction(acall):
            pending: Awaitable[Any] = acall(call.system, call.user)
        elif _is_coroutine_callable(llm_call):
            pending = llm_call(call.system, call.user)  # type: ignore[assignment]
        else:
            loop = asyncio.get_running_loop()
            pending = loop.run_in_executor(executor, llm_call, call.system, call.user)
        output = await asyncio.wait_for(pending, timeout)
        if inspect.isawaitable(output):
            output = await asyncio.wait_for(output, timeout)
    except (asyncio.TimeoutError, TimeoutError):
        return Verdict.failed(FailReason.TIMEOUT, f"after {timeout}s", model=model)
    except Exception as exc:
        return _raised(exc, model)
    return _finish(output, model)


def _call_sync(llm_call: LLMCall, system: str, user: str) -> Any:
    output = llm_call(system, user)
    if not inspect.isawaitable(output):
        return output

    async def wait() -> Any:
        return await output

    return run_sync(wait())


def judge_call(
    llm_call: LLMCall,
    call: JudgeCall,
    *,
    timeout: float | None,
    executor: concurrent.futures.Executor | None = None,
) -> Verdict:
    """Run one judge request from sync code. With a timeout it runs in ``executor``."""
    model = judge_model_name(llm_call)
    try:
        if timeout is None or executor is None:
            output = _call_sync(llm_call, call.system, call.user)
        else:
            output = executor.submit(_call_sync, llm_call, call.system, call.user).result(timeout)
    except concurrent.futures.TimeoutError:
        return Verdict.failed(FailReason.TIMEOUT, f"after {timeout}s", model=model)
    except Exception as exc:
        return _raised(exc, model)
    return _finish(output, model)


def prepare(claim: str, quote: str, source: str, window: WindowConfig) -> JudgeCall | Verdict:
    """Build the prompts, or a fail-closed verdict when an input is over its bound."""
    for name, text, bound in (
        ("claim", claim, window.max_claim_chars),
        ("quote", quote, window.max_claim_chars),
        ("source", source, window.max_passage_chars + 2 * window.context_chars + 2),
    ):
        if len(text) > bound:
            return Verdict.failed(FailReason.OVERSIZED_INPUT, f"{name} of {len(text)} characters")
    return JudgeCall(SYSTEM_PROMPT, build_user_prompt(claim, quote, source), claim, source)


def judge_support(
    claim: str, quote: str, source: str, llm_call: LLMCall, *, timeout: float | None = None
) -> Verdict:
    """Ask ``llm_call`` whether ``source`` establishes ``claim`` (seed-compatible).

    ``source`` is sent as given (it should be a bounded window, not a whole document: the
    auditor builds one with :func:`source_window`). Fails closed, never raises for judge
    failures.

    Raises:
        TypeError: claim, quote or source is not a ``str``, or llm_call is not callable.
    """
    for name, value in (("claim", claim), ("quote", quote), ("source", source)):
        if not isinstance(value, str):
            raise TypeError(f"{name} must be str, not {type(value).__name__}")
    if not callable(llm_call):
        raise TypeError(f"llm_call must be callable, not {type(llm_call).__name__}")
    window = WindowConfig(max_passage_chars=max(len(source), 1), context_chars=0)
    prepared = prepare(claim, quote, source, window)
    if isinstance(prepared, Verdict):
        return prepared
    if timeout is None:
        return judge_call(llm_call, prepared, timeout=None)
    pool = DaemonExecutor(1, "vcg-judge")
    try:
        return judge_call(llm_call, prepared, timeout=timeout, executor=pool)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)  # never wait for a hung judge
