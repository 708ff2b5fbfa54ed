"""LangChain: audit an LCEL chain's answer as one more step of the chain (extra: ``langchain``).

``chain | CitationAudit()`` passes the chain's output through unchanged (``invoke``,
``ainvoke``, ``batch``, ``stream``, ``astream``: chunks flow on as they come) and audits it when
it is complete: citations from the answer (inline quotes, a JSON answer, or the structured
output of LangChain's citation how-to, ``source_id`` being a position in the context list),
documents from ``context`` / ``source_documents`` / ``documents`` (LangChain ``Document``:
``id``, ``metadata`` ``source`` and the rest, see :mod:`vcg_otel.documents`).

Why a step and not a decorated function inside the chain: the OpenInference LangChain
instrumentor builds its spans from LangChain callbacks and, deliberately, never makes them the
current OpenTelemetry span (a callback that fails could leave a context attached forever). Any
span a chain step starts, ``@audited_citations`` or a plain ``tracer.start_span``, therefore
sees the context from *outside* the chain: with nothing outside, a new trace (orphaned).
:class:`CitationAudit` parents its ``citation_audit`` span on the step's own LangChain span
(``openinference.instrumentation.langchain.get_current_span``), and :func:`in_langchain_trace`
does the same for any function you put into a chain: ``RunnableLambda(in_langchain_trace(f))``.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

from langchain_core.runnables import RunnableGenerator
from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.context import Context

from ..audit import AuditReport
from ..config import AuditConfig, TelemetryConfig
from ..judge.runner import LLMCall
from ._record import OutputAuditor, configure

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ..config import Settings

__all__ = ["CitationAudit", "in_langchain_trace", "langchain_context"]

F = TypeVar("F", bound=Callable[..., Any])


def langchain_context() -> Context | None:
    """The OpenTelemetry context of the LangChain run in progress (its OpenInference span),
    or ``None`` outside a run or without the OpenInference LangChain instrumentor."""
    try:
        from openinference.instrumentation.langchain import LangChainInstrumentor, get_current_span
    except ImportError:
        return None
    # Installed but not switched on: it has no spans, and asking prints a warning to the app's
    # stdout on every call.
    if not LangChainInstrumentor().is_instrumented_by_opentelemetry:
        return None
    span = get_current_span()
    return None if span is None else trace.set_span_in_context(span)


@contextmanager
def _attached(context: Context | None) -> Iterator[None]:
    token = None if context is None else otel_context.attach(context)
    try:
        yield
    finally:
        if token is not None:
            otel_context.detach(token)


def in_langchain_trace(fn: F) -> F:
    """Run ``fn`` with its LangChain step's span as the current span, so the spans it starts
    (``@audited_citations`` included) stay in the chain's trace. Sync or async functions."""
    if inspect.iscoroutinefunction(fn):
        @functools.wraps(fn)
        async def arun(*args: Any, **kwargs: Any) -> Any:
            with _attached(langchain_context()):
                return await fn(*args, **kwargs)
        return arun  # type: ignore[return-value]

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        with _attached(langchain_context()):
            return fn(*args, **kwargs)
    return run  # type: ignore[return-value]


def _add(total: Any, chunk: Any) -> Any:
    """Streamed chunks add up (``AddableDict``, strings, message chunks); anything that does
    not is replaced by the later chunk."""
    if total is None:
        return chunk
    try:
        return total + chunk
    except TypeError:
        return chunk


class CitationAudit(RunnableGenerator[Any, Any]):
    """A pass-through chain step that audits the chain's answer once it is complete.

    Args:
        judge: an ``llm_call(system, user)`` (e.g. ``vcg_otel.llm.LiteLLMJudge``) for the
            skeptical judge; ``None`` for the verbatim gate alone.
        position_base (a setting): how numbers cite positions: ``None`` (0- or 1-based),
            ``0`` (LangChain's citation how-to numbers its sources from 0) or ``1``.
        id_keys (a setting): extra ``metadata`` keys that hold document identifiers.
        on_report: called with each :class:`~vcg_otel.audit.AuditReport` (e.g. to log it).
        config, telemetry, **settings: the audit and telemetry settings, as for
            ``@audited_citations`` (``timeout=5``, ``capture_content=False``,
            ``tracer_provider=...``); a setting given twice raises.

    The audit never changes the output and never raises into the chain: a failure inside it
    is recorded on the ``citation_audit`` span.
    """

    def __init__(self, judge: LLMCall | None = None, *,
                 on_report: Callable[[AuditReport], None] | None = None,
                 config: AuditConfig | None = None, telemetry: TelemetryConfig | None = None,
                 **settings: Unpack[Settings]) -> None:
        auditor, tele = configure(judge, settings, config=config, telemetry=telemetry,
                                  where="CitationAudit()")
        self._audits = OutputAuditor(auditor, tele, on_report=on_report)
        super().__init__(self._pass_through, self._apass_through, name="CitationAudit")

    def _pass_through(self, chunks: Iterator[Any]) -> Iterator[Any]:
        total = None
        try:
            for chunk in chunks:
                total = _add(total, chunk)
                yield chunk
        finally:
            self._audits.audit(self._audits.scope(langchain_context()), total)

    async def _apass_through(self, chunks: AsyncIterator[Any]) -> AsyncIterator[Any]:
        total = None
        try:
            async for chunk in chunks:
                total = _add(total, chunk)
                yield chunk
        finally:
            await self._audits.aaudit(self._audits.scope(langchain_context()), total)
