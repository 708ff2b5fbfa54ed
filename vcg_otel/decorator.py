"""``@audited_citations``: one decorator on a RAG handler, every citation's fate in telemetry.

The decorated call gets a ``citation_audit`` span (OpenInference kind GUARDRAIL), current while
the handler runs so the handler's own spans nest under it. When the handler has returned (or
its stream has ended, or was closed early) the citations and documents are extracted, audited,
and written as child spans, events and metrics.

Modes:
    * ``observe`` (default): the handler's return value and exceptions are exactly what they
      would be without the decorator. Anything that goes wrong inside the audit is recorded on
      the span (status ERROR, exception event, ``citation.audit.error``) and swallowed.
    * ``enforce``: the caller receives the audit. A result that is a dict with a
      ``citations`` list comes back as a copy whose ``citations`` keep only the consistent
      citations (verbatim and, with a judge, supported) and which carries the report under
      ``"citation_audit"``; any other result comes back as :class:`AuditedResult`. With
      ``on_violation="raise"`` an answer with any inconsistent citation raises
      :class:`CitationViolation` instead. An audit that cannot run raises
      :class:`CitationAuditError` (fail closed). Not available for generators or with
      ``background=True``.

With no OpenTelemetry SDK configured (no tracer or meter provider) and mode ``observe``,
nothing can record the audit, so it is skipped: the wrapper costs a couple of microseconds.

Whose exception is it? Anything raised while the result is read (by a ``citations=`` or
``documents=`` extractor, or by the result's own attributes), ``KeyboardInterrupt`` and
``SystemExit`` included, is the extractor's failure: recorded, the audit fails closed, the
caller gets its result. A Ctrl-C or a task cancellation that arrives while the handler runs or
while the caller waits for the judge is the caller's: the audit span ends, recording it, and the
exception propagates. (A Ctrl-C that lands in the microseconds while a foreground result is
being read cannot be told from one the result raised; it is recorded as the extractor's.)
Telemetry trouble (a span processor or exporter that raises) never reaches the caller.

With ``background=True`` nothing of the result is read on the caller's thread: extraction runs
on the audit thread, typically within milliseconds. The result is never mutated by us; if the
app mutates it after returning, the audit sees the object as it is when it is read (mutate a
copy, or audit in the foreground).
"""

from __future__ import annotations

import functools
import inspect
import logging
import random
from collections.abc import Callable, Mapping
from contextvars import Token
from dataclasses import dataclass
from typing import Any, Literal, ParamSpec, TypeVar, overload

from opentelemetry import context as otel_context
from opentelemetry import metrics, trace
from opentelemetry.context import Context
from opentelemetry.trace import Span, Status, StatusCode

from ._version import __version__
from .audit import Auditor, AuditReport, Citation, VerdictCache
from .documents import DocumentSet
from .extract import Budget, citations_from_item, extract_citations
from .integrations.answers import answer_citations
from .judge.runner import LLMCall, WindowConfig
from .otel import semconv
from .otel.background import runner
from .otel.content import ContentPolicy, record_exception
from .otel.events import logs_configured
from .otel.metrics import instruments_for
from .otel.record import record

__all__ = ["AuditedResult", "CitationAuditError", "CitationViolation", "audited_citations"]

F = TypeVar("F", bound=Callable[..., Any])
P = ParamSpec("P")
Mode = Literal["observe", "enforce"]
Extractor = Callable[[Mapping[str, Any], Any], Any]

_DOCUMENT_ARGS = ("documents", "docs", "context", "sources")

logger = logging.getLogger(__name__)


def _quiet(method: Callable[P, None]) -> Callable[P, None]:
    """Telemetry trouble never reaches the caller: a span processor or exporter that raises
    costs the record, not the call (logged at debug level)."""

    @functools.wraps(method)
    def quiet(*args: P.args, **kwargs: P.kwargs) -> None:
        try:
            method(*args, **kwargs)
        except Exception:
            logger.debug("recording the citation audit failed", exc_info=True)

    return quiet


class CitationViolation(Exception):
    """Raised in ``enforce`` mode with ``on_violation="raise"``: a citation failed its audit."""

    def __init__(self, report: AuditReport) -> None:
        self.report = report
        bad = ", ".join(f"#{r.index} {r.outcome.value}" for r in report.inconsistent)
        super().__init__(f"{len(report.inconsistent)} citation(s) failed the audit: {bad}")


class CitationAuditError(Exception):
    """Raised in ``enforce`` mode when the audit itself could not run (fail closed)."""


class DocumentsIncomplete(Exception):
    """The documents could not all be read within the extraction budget (recorded as
    ``citation.audit.error``): auditing against part of them could call an honest quote
    ``not_found``, so the audit does not run."""


@dataclass(frozen=True, slots=True)
class AuditedResult:
    """An ``enforce``-mode result that is not a dict: the handler's value and its audit."""

    value: Any
    report: AuditReport


def _telemetry_active(tracer_provider: Any, meter_provider: Any, logger_provider: Any) -> bool:
    """Whether anything would record the audit: traces, metrics or logs (events)."""
    tp = tracer_provider if tracer_provider is not None else trace.get_tracer_provider()
    if not isinstance(tp, (trace.ProxyTracerProvider, trace.NoOpTracerProvider)):
        return True
    mp = meter_provider if meter_provider is not None else metrics.get_meter_provider()
    if type(mp).__name__ not in ("_ProxyMeterProvider", "NoOpMeterProvider"):
        return True
    return logs_configured(logger_provider)


class _Plan:
    """Everything decided at decoration time, and the steps each call goes through."""

    def __init__(self, fn: Callable[..., Any], *, auditor: Auditor, mode: Mode,
                 on_violation: Literal["filter", "raise"], background: bool,
                 capture_content: bool | None, sample_rate: float,
                 citations: Extractor | None, documents: Extractor | None,
                 tracer_provider: Any, meter_provider: Any, logger_provider: Any = None,
                 check_spans: bool = True) -> None:
        self.fn = fn
        self.check_spans = check_spans
        self.auditor = auditor
        self.mode = mode
        self.on_violation = on_violation
        self.background = background
        self.capture_content = capture_content
        self.sample_rate = sample_rate
        self.citations_fn = citations
        self.documents_fn = documents
        self.tracer_provider = tracer_provider
        self.meter_provider = meter_provider
        self.logger_provider = logger_provider
        self.tracer = trace.get_tracer("vcg_otel", __version__, tracer_provider)
        try:
            self.signature: inspect.Signature | None = inspect.signature(fn)
        except (TypeError, ValueError):
            self.signature = None
        self.name = getattr(fn, "__qualname__", repr(fn))

    # -- per call --------------------------------------------------------------------------

    def skip(self) -> bool:
        if self.mode == "enforce":
            return False
        if self.sample_rate < 1.0 and random.random() >= self.sample_rate:
            return True
        return not _telemetry_active(self.tracer_provider, self.meter_provider,
                                     self.logger_provider)

    def start(self) -> tuple[Span, Token[Context]] | None:
        """The audit span, current; ``None`` if telemetry failed to start one (a span
        processor whose ``on_start`` raises): the handler then runs unaudited."""
        try:
            span = self.tracer.start_span(semconv.SPAN_AUDIT, attributes={
                semconv.OPENINFERENCE_SPAN_KIND: semconv.KIND_GUARDRAIL,
                semconv.AUDIT_MODE: self.mode,
            })
        except Exception:
            logger.debug("starting the citation_audit span failed", exc_info=True)
            return None
        token = otel_context.attach(trace.set_span_in_context(span))
        return span, token

    @_quiet
    def handler_failed(self, span: Span, exc: BaseException) -> None:
        try:
            span.set_attribute(semconv.AUDIT_STATUS, "handler_error")
            record_exception(span, exc, ContentPolicy.resolve(self.capture_content))
            span.set_status(Status(StatusCode.ERROR, type(exc).__name__))
        finally:
            span.end()

    def arguments(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
        if self.signature is None:
            return dict(kwargs)
        try:
            bound = self.signature.bind_partial(*args, **kwargs)
        except TypeError:
            return dict(kwargs)
        bound.apply_defaults()  # a default ``documents=...`` counts too
        return dict(bound.arguments)

    def extract(self, args: tuple[Any, ...], kwargs: dict[str, Any],
                result: Any) -> tuple[list[Citation], DocumentSet, Budget, Budget]:
        """Citations and documents of one call, each walk within its :class:`Budget`
        (returned, so the span can say whether one ran out)."""
        budget = Budget()
        arguments = self.arguments(args, kwargs)
        if self.citations_fn is not None:
            citations = extract_citations(self.citations_fn(arguments, result), budget)
        else:
            # framework results wrap the answer (LlamaIndex Response, Haystack outputs, ...)
            citations = extract_citations(result, budget) or answer_citations(result, budget)
        doc_budget = budget.after()
        if self.documents_fn is not None:
            sources = [self.documents_fn(arguments, result)]
        else:  # arguments first: their order is the context list the prompt showed
            sources = [arguments[name] for name in _DOCUMENT_ARGS if name in arguments]
            sources.append(result)
        # every chunk under every id a prompt could show (vcg_otel.documents)
        documents = DocumentSet.from_sources(*sources, budget=doc_budget)
        return citations, documents, budget, doc_budget

    @_quiet
    def finish(self, span: Span, report: AuditReport, status: str = "audited") -> None:
        """Write the report as telemetry and end the audit span."""
        try:
            record(report, span, self.tracer, ContentPolicy.resolve(self.capture_content),
                   status=status, check_spans=self.check_spans,
                   meter_provider=self.meter_provider, logger_provider=self.logger_provider)
        finally:
            span.end()

    @_quiet
    def internal_error(self, span: Span, exc: BaseException, *, trace_back: bool = True) -> None:
        """End the span as a failed audit. ``trace_back=False``: the type only (a background
        audit cancelled at exit: formatting a thousand asyncio stacks would cost seconds)."""
        try:
            span.set_attribute(semconv.AUDIT_ERROR, type(exc).__name__)
            if trace_back:
                record_exception(span, exc, ContentPolicy.resolve(self.capture_content))
            span.set_status(Status(StatusCode.ERROR,
                                   f"citation audit failed: {type(exc).__name__}"))
        finally:
            span.end()

    @_quiet
    def nothing(self, span: Span, documents: DocumentSet) -> None:
        span.set_attribute(semconv.AUDIT_STATUS, "nothing_to_audit")
        span.set_attribute(semconv.COUNT_TOTAL, 0)
        span.set_attribute(semconv.AUDIT_DOCUMENT_COUNT, len(documents))
        span.end()

    def shaped(self, result: Any, report: AuditReport) -> Any:
        """The enforce-mode result (see the module docstring for the rule)."""
        if self.on_violation == "raise" and report.inconsistent:
            raise CitationViolation(report)
        listed = result.get("citations") if isinstance(result, dict) else None
        if isinstance(listed, list):
            keep = _consistent_items(listed, report)
            return {**result, "citations": keep, "citation_audit": report.to_dict()}
        return AuditedResult(result, report)

    @_quiet
    def submit_background(self, span: Span, args: tuple[Any, ...], kwargs: dict[str, Any],
                          result: Any) -> None:
        """Extract and audit on the audit thread: the caller's thread never reads the result."""
        span.set_attribute(semconv.AUDIT_BACKGROUND, True)

        async def job() -> None:
            import asyncio

            try:
                work = self._begin(span, args, kwargs, result)
                if work is not None:
                    self.finish(span, await self.auditor.aaudit(*work), _status(work[1]))
            except asyncio.CancelledError as exc:  # by the runner, at exit
                self.internal_error(span, exc, trace_back=False)
            except BaseException as exc:  # nothing here is a caller's: all of it is the audit's
                self.internal_error(span, exc)

        def abandoned() -> None:  # cancelled at exit before it started
            import asyncio

            self.internal_error(span, asyncio.CancelledError(), trace_back=False)

        if not runner.submit(job, abandoned):
            instruments_for(self.meter_provider).dropped.add(1)
            span.set_attribute(semconv.AUDIT_STATUS, "dropped")
            span.end()

    def _begin(self, span: Span, args: tuple[Any, ...], kwargs: dict[str, Any],
               result: Any) -> tuple[list[Citation], DocumentSet] | None:
        """Extract what to audit; ``None`` when there is nothing to audit."""
        citations, documents, budget, doc_budget = self.extract(args, kwargs, result)
        limit = budget.exhausted or doc_budget.exhausted
        if limit is not None:
            span.set_attribute(semconv.AUDIT_EXTRACT_LIMIT, limit)
        if not citations:
            self.nothing(span, documents)
            return None
        if not doc_budget.complete:  # fewer citations are fine; fewer documents are not
            raise DocumentsIncomplete(limit or "unreadable")
        span.set_attribute(semconv.AUDIT_DOCUMENT_COUNT, len(documents))
        return citations, documents

    def _extracted(self, span: Span, args: tuple[Any, ...], kwargs: dict[str, Any],
                   result: Any) -> tuple[list[Citation], DocumentSet] | None:
        """:meth:`_begin` in the foreground: whatever reading the result raises is the
        extractor's failure (see the module docstring), never the caller's."""
        try:
            return self._begin(span, args, kwargs, result)
        except BaseException as exc:
            self._failed(span, exc)
            return None

    def _failed(self, span: Span, exc: BaseException) -> None:
        """Record a failed audit; in enforce mode the caller gets :class:`CitationAuditError`."""
        self.internal_error(span, exc)
        if self.mode == "enforce":
            raise CitationAuditError(f"citation audit of {self.name} failed") from exc

    def _conclude(self, span: Span, result: Any, report: AuditReport,
                  status: str = "audited") -> Any:
        self.finish(span, report, status)
        return self.shaped(result, report) if self.mode == "enforce" else result

    def after(self, span: Span, args: tuple[Any, ...], kwargs: dict[str, Any],
              result: Any) -> Any:
        """Audit a finished sync call; returns what the caller gets."""
        if self.background:
            self.submit_background(span, args, kwargs, result)
            return result
        work = self._extracted(span, args, kwargs, result)
        if work is None:
            return result
        try:
            report = self.auditor.audit(*work)
        except Exception as exc:
            self._failed(span, exc)
            return result
        except BaseException as exc:  # a Ctrl-C delivered to the waiting caller: theirs
            self.internal_error(span, exc)
            raise
        return self._conclude(span, result, report, _status(work[1]))

    async def aafter(self, span: Span, args: tuple[Any, ...], kwargs: dict[str, Any],
                     result: Any) -> Any:
        """Audit a finished async call; returns what the caller gets."""
        if self.background:
            self.submit_background(span, args, kwargs, result)
            return result
        work = self._extracted(span, args, kwargs, result)
        if work is None:
            return result
        try:
            report = await self.auditor.aaudit(*work)
        except Exception as exc:
            self._failed(span, exc)
            return result
        except BaseException as exc:  # the caller's task was cancelled: theirs
            self.internal_error(span, exc)
            raise
        return self._conclude(span, result, report, _status(work[1]))


def _status(documents: DocumentSet) -> str:
    """``no_documents`` when the answer cites but nothing came to check it against (its
    citations are then all ``unverifiable``), else ``audited``."""
    return "audited" if len(documents) else semconv.STATUS_NO_DOCUMENTS


def _consistent_items(items: list[Any], report: AuditReport) -> list[Any]:
    """Items of a result's ``citations`` list whose audit came out consistent.

    Items that are not recognisable citations were not audited: nothing vouches for them, so
    they are dropped too. An item citing several sources (a Cohere span) gave one result per
    source: it is kept only when all of them are consistent.
    """
    kept: list[Any] = []
    results = iter(report.results)
    for item in items:
        mine = [r for _, r in zip(citations_from_item(item), results, strict=False)]
        if mine and all(report.is_consistent(r) for r in mine):
            kept.append(item)
    return kept


def _streamed(chunks: list[Any]) -> Any:
    if chunks and all(isinstance(c, str) for c in chunks):
        return "".join(chunks)
    return chunks


def _wrap(fn: Callable[..., Any], plan: _Plan) -> Callable[..., Any]:
    if inspect.isasyncgenfunction(fn):
        @functools.wraps(fn)
        async def agen_wrapper(*args: Any, **kwargs: Any) -> Any:
            started = None if plan.skip() else plan.start()
            if started is None:
                async for item in fn(*args, **kwargs):
                    yield item
                return
            span, token = started
            chunks: list[Any] = []
            try:
                agen = fn(*args, **kwargs)
            finally:
                otel_context.detach(token)
            sent: Any = None
            thrown: BaseException | None = None  # from the caller's athrow(): the handler's
            while True:
                token = otel_context.attach(trace.set_span_in_context(span))
                try:
                    item = await (agen.asend(sent) if thrown is None else agen.athrow(thrown))
                except StopAsyncIteration:
                    break
                except BaseException as exc:
                    plan.handler_failed(span, exc)
                    raise
                finally:
                    otel_context.detach(token)
                    thrown = None
                chunks.append(item)
                try:
                    sent = yield item
                except GeneratorExit:
                    try:
                        await agen.aclose()
                    finally:
                        await plan.aafter(span, args, kwargs, _streamed(chunks))
                    raise
                except BaseException as exc:
                    sent, thrown = None, exc
            await plan.aafter(span, args, kwargs, _streamed(chunks))

        return agen_wrapper

    if inspect.isgeneratorfunction(fn):
        @functools.wraps(fn)
        def gen_wrapper(*args: Any, **kwargs: Any) -> Any:
            started = None if plan.skip() else plan.start()
            if started is None:
                return (yield from fn(*args, **kwargs))
            span, token = started
            chunks: list[Any] = []
            try:
                gen = fn(*args, **kwargs)
            finally:
                otel_context.detach(token)
            sent: Any = None
            thrown: BaseException | None = None  # from the caller's throw(): the handler's
            while True:
                token = otel_context.attach(trace.set_span_in_context(span))
                try:
                    item = gen.send(sent) if thrown is None else gen.throw(thrown)
                except StopIteration as stop:
                    value = stop.value
                    break
                except BaseException as exc:
                    plan.handler_failed(span, exc)
                    raise
                finally:
                    otel_context.detach(token)
                    thrown = None
                chunks.append(item)
                try:
                    sent = yield item
                except GeneratorExit:
                    try:
                        gen.close()
                    finally:
                        plan.after(span, args, kwargs, _streamed(chunks))
                    raise
                except BaseException as exc:
                    sent, thrown = None, exc
            plan.after(span, args, kwargs, _streamed(chunks))
            return value

        return gen_wrapper

    if inspect.iscoroutinefunction(fn):
        @functools.wraps(fn)
        async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
            started = None if plan.skip() else plan.start()
            if started is None:
                return await fn(*args, **kwargs)
            span, token = started
            try:
                result = await fn(*args, **kwargs)
            except BaseException as exc:
                otel_context.detach(token)
                plan.handler_failed(span, exc)
                raise
            otel_context.detach(token)
            return await plan.aafter(span, args, kwargs, result)

        return async_wrapper

    @functools.wraps(fn)
    def sync_wrapper(*args: Any, **kwargs: Any) -> Any:
        started = None if plan.skip() else plan.start()
        if started is None:
            return fn(*args, **kwargs)
        span, token = started
        try:
            result = fn(*args, **kwargs)
        except BaseException as exc:
            otel_context.detach(token)
            plan.handler_failed(span, exc)
            raise
        otel_context.detach(token)
        return plan.after(span, args, kwargs, result)

    return sync_wrapper


@overload
def audited_citations(fn: F) -> F: ...


@overload
def audited_citations(
    fn: None = None, *, judge: LLMCall | None = ..., auditor: Auditor | None = ...,
    mode: Mode = ..., on_violation: Literal["filter", "raise"] = ..., background: bool = ...,
    capture_content: bool | None = ..., sample_rate: float = ...,
    judge_sample_rate: float = ..., max_judge_calls: int | None = ...,
    max_tokens: int | None = ..., timeout: float | None = ..., max_concurrency: int = ...,
    window: WindowConfig | None = ..., cache: VerdictCache | bool | None = ...,
    citations: Extractor | None = ..., documents: Extractor | None = ...,
    tracer_provider: Any = ..., meter_provider: Any = ..., logger_provider: Any = ...,
    check_spans: bool = ...,
) -> Callable[[F], F]: ...


def audited_citations(
    fn: Callable[..., Any] | None = None,
    *,
    judge: LLMCall | None = None,
    auditor: Auditor | None = None,
    mode: Mode = "observe",
    on_violation: Literal["filter", "raise"] = "filter",
    background: bool = False,
    capture_content: bool | None = None,
    sample_rate: float = 1.0,
    judge_sample_rate: float = 1.0,
    max_judge_calls: int | None = None,
    max_tokens: int | None = None,
    timeout: float | None = 30.0,
    max_concurrency: int = 8,
    window: WindowConfig | None = None,
    cache: VerdictCache | bool | None = True,
    citations: Extractor | None = None,
    documents: Extractor | None = None,
    tracer_provider: Any = None,
    meter_provider: Any = None,
    logger_provider: Any = None,
    check_spans: bool = True,
) -> Any:
    """Audit the citations of every answer the decorated handler returns.

    Use bare (``@audited_citations``) or with options. Works on sync and async functions,
    generators and async generators (a stream is audited when it ends or is closed).

    Args:
        judge: any ``llm_call(system, user)`` (e.g. ``LiteLLMJudge``); ``None``: gate only.
        auditor: a configured :class:`~vcg_otel.audit.Auditor` instead of the judge options.
        mode: ``"observe"`` (default) or ``"enforce"`` (see the module docstring).
        on_violation: in enforce mode, ``"filter"`` unsupported citations out or ``"raise"``
            :class:`CitationViolation`.
        background: return at once and finish the audit (judge included) on a background
            thread; the spans are still complete and parented to the call's span.
        capture_content: write claims, quotes, prompts and reasoning to telemetry; ``None``
            follows ``VCG_OTEL_CAPTURE_CONTENT`` and ``OPENINFERENCE_HIDE_INPUTS/OUTPUTS``.
        sample_rate: fraction of calls audited at all (observe mode).
        judge_sample_rate, max_judge_calls, max_tokens, timeout, max_concurrency, window,
            cache: passed to the :class:`~vcg_otel.audit.Auditor`.
        citations, documents: ``f(arguments, result)`` overriding where citations and
            documents come from (``arguments`` maps parameter names to values). By default
            citations come from the result and documents from the result and from arguments
            named ``documents``, ``docs``, ``context`` or ``sources``.
        tracer_provider, meter_provider, logger_provider: explicit providers (default: the
            global ones); the logger provider receives the events (``gen_ai.evaluation.result``
            and the others, see :mod:`vcg_otel.otel.events`).
        check_spans: one ``citation.check`` span per citation (default), or ``False`` for one
            ``citation.check`` *event* per citation on the ``citation_audit`` span: a sixth of
            the spans for five citations, for high-volume services (README, "Load").
    """
    if mode not in ("observe", "enforce"):
        raise ValueError(f"mode must be 'observe' or 'enforce', not {mode!r}")
    if on_violation not in ("filter", "raise"):
        raise ValueError(f"on_violation must be 'filter' or 'raise', not {on_violation!r}")
    if not 0.0 <= sample_rate <= 1.0:
        raise ValueError("sample_rate must be between 0 and 1")
    if mode == "enforce" and background:
        raise ValueError("enforce mode needs the audit before returning: background=False")
    the_auditor = auditor or Auditor(
        judge, timeout=timeout, max_concurrency=max_concurrency,
        max_judge_calls=max_judge_calls, max_tokens=max_tokens, sample_rate=judge_sample_rate,
        cache=cache, window=window)

    def decorate(target: Callable[..., Any]) -> Callable[..., Any]:
        if not callable(target):
            raise TypeError(f"@audited_citations needs a function, not {type(target).__name__}")
        streaming = inspect.isgeneratorfunction(target) or inspect.isasyncgenfunction(target)
        if mode == "enforce" and streaming:
            raise TypeError("enforce mode cannot take back streamed chunks: use observe")
        plan = _Plan(target, auditor=the_auditor, mode=mode, on_violation=on_violation,
                     background=background, capture_content=capture_content,
                     sample_rate=sample_rate, citations=citations, documents=documents,
                     tracer_provider=tracer_provider, meter_provider=meter_provider,
                     logger_provider=logger_provider,
                     check_spans=check_spans)
        wrapper = _wrap(target, plan)
        wrapper.__vcg_otel_plan__ = plan  # type: ignore[attr-defined]
        return wrapper

    if fn is not None:
        return decorate(fn)
    return decorate
