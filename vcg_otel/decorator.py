"""``@audited_citations``: one decorator on a RAG handler, every citation's fate in telemetry.

The decorated call gets a ``citation_audit`` span (OpenInference kind GUARDRAIL), current while
the handler runs so the handler's own spans nest under it. When the handler has returned (or
its stream has ended, or was closed early) the citations and documents are extracted, audited,
and written as child spans, events and metrics.

Modes:
    * ``observe`` (default): the handler's return value and exceptions are exactly what they
      would be without the decorator. Anything that goes wrong inside the audit is recorded on
      the span (status ERROR, exception event, ``citation.audit.error``) and swallowed.
    * ``enforce``: the caller receives the audit (:mod:`vcg_otel.enforce`: the result with
      only its consistent citations, :class:`AuditedResult`, or :class:`CitationViolation`);
      an audit that cannot run raises :class:`CitationAuditError` (fail closed), and one
      whose span cannot start still runs, unrecorded. Not available for generators or with
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

import asyncio
import contextlib
import functools
import inspect
import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

from opentelemetry.trace import Tracer

from ._deadline import Deadline
from ._stream import StreamKept
from .audit import Auditor, AuditReport, Citation
from .config import AUDIT_FIELDS, AuditConfig, TelemetryConfig, split_settings
from .documents import DocumentSet
from .enforce import (
    AuditedResult,
    CitationAuditError,
    CitationViolation,
    OnViolation,
    enforce,
)
from .judge.runner import LLMCall
from .otel import semconv
from .otel.background import runner
from .otel.providers import any_configured
from .reading import read_output
from .reading.generic import call_binder
from .reading.walk import Budget
from .scope import AuditScope, configure, tracer_for

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from .config import Settings

__all__ = ["AuditedResult", "CitationAuditError", "CitationViolation", "audited_citations"]

F = TypeVar("F", bound=Callable[..., Any])
Mode = Literal["observe", "enforce"]
Extractor = Callable[[Mapping[str, Any], Any], Any]
Work = tuple[list[Citation], DocumentSet]


class _Setup:
    """The auditor and the telemetry config of one ``@audited_citations(...)``, built on the
    first call rather than at decoration: decoration runs at import, and the ``VCG_OTEL_*``
    variables an app loads in ``main()`` (``load_dotenv()``) must still apply. The arguments
    were validated at decoration (anything wrong raised there); building them again here
    cannot fail differently, except for a variable, which only warns."""

    def __init__(self, build: Callable[[], tuple[Auditor, TelemetryConfig]]) -> None:
        self._build = build
        self._lock = threading.Lock()
        self.auditor: Auditor
        self.telemetry: TelemetryConfig
        self.tracer: Tracer
        self.ready = False

    def get(self) -> _Setup:
        if not self.ready:
            with self._lock:
                if not self.ready:
                    self.auditor, self.telemetry = self._build()
                    self.tracer = tracer_for(self.telemetry)
                    self.ready = True
        return self


class _Handler:
    """What is decided once, at decoration time, for one decorated function."""

    def __init__(self, fn: Callable[..., Any], setup: _Setup, *, mode: Mode,
                 on_violation: OnViolation, background: bool,
                 citations: Extractor | None, documents: Extractor | None) -> None:
        self.fn = fn
        self.name = getattr(fn, "__qualname__", repr(fn))
        try:
            self.signature: inspect.Signature | None = inspect.signature(fn)
        except (TypeError, ValueError):
            self.signature = None
        # every call binds its arguments to the same signature: what that takes is worked
        # out here, once (:func:`~vcg_otel.reading.generic.call_binder`)
        self.bind = call_binder(self.signature)
        self.setup = setup
        self.mode = mode
        self.enforcing = mode == "enforce"
        self.on_violation = on_violation
        self.background = background
        self.citations_fn = citations
        self.documents_fn = documents

    def call(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> _Call | None:
        """The audit of one call, its span started; ``None``: run the call unaudited (in
        observe mode, a call sampled out or one that nothing could record; enforce mode
        always audits)."""
        setup = self.setup.get()
        t = setup.telemetry
        if not self.enforcing and (t.sampled_out() or not any_configured(
                t.tracer_provider, t.meter_provider, t.logger_provider)):
            return None
        scope = AuditScope.start(setup.auditor, t, tracer=setup.tracer, mode=self.mode,
                                 required=self.enforcing)
        return None if scope is None else _Call(self, scope, args, kwargs)


class _Call:
    """One audited call: its :class:`AuditScope` (``running`` while the handler runs), then
    :meth:`output`, the step that turns the handler's result into what the caller gets."""

    __slots__ = ("args", "handler", "kwargs", "running", "scope")

    def __init__(self, handler: _Handler, scope: AuditScope, args: tuple[Any, ...],
                 kwargs: dict[str, Any]) -> None:
        self.handler, self.scope, self.args, self.kwargs = handler, scope, args, kwargs
        self.running = scope.running

    def _read(self, result: Any, deadline: Deadline | None = None,
              kept: StreamKept | None = None) -> Work | None:
        """The citations and documents of the call, each walk within its :class:`Budget`
        (and all of them within the foreground ``deadline``); ``None`` when the output cites
        nothing (the span then says so). ``kept``: what a stream kept of its chunks.

        Documents cut by the deadline do not fail the audit: it runs past the deadline,
        which makes every citation ``unverifiable`` (reason ``deadline``)."""
        h = self.handler
        config = self.scope.auditor.config
        reading = read_output(result, budget=Budget(deadline=deadline),
                              arguments=h.bind(self.args, self.kwargs),
                              citations=h.citations_fn, documents=h.documents_fn,
                              id_keys=config.id_keys, position_base=config.position_base)
        limit = (kept.limit if kept is not None else None) or reading.completeness.limit
        if limit is not None:
            self.scope.annotate(semconv.AUDIT_EXTRACT_LIMIT, limit)
        if kept is not None and kept.dropped:
            self.scope.annotate(semconv.AUDIT_STREAM_DROPPED, kept.dropped)
        work = reading.work()
        if work is None:
            self.scope.nothing(reading.documents)
        return work

    def _work(self, result: Any, deadline: Deadline,
              kept: StreamKept | None) -> Work | None:
        """What to audit in the foreground; ``None`` when there is nothing (more) to do here:
        nothing cited, the read failed, or the audit went to the background.

        Whatever reading the result raises (even a ``KeyboardInterrupt`` from a property) is
        the extractor's failure, never the caller's: recorded, and in enforce mode the audit
        fails closed (:meth:`_answer`)."""
        if self.handler.background:
            self._submit(result, kept)
            return None
        try:
            return self._read(result, deadline, kept)
        except BaseException as exc:
            self.scope.error(exc)
            return None

    def _deadline(self) -> Deadline:
        """The foreground deadline of this call, from now (``foreground_deadline``)."""
        return Deadline(self.scope.auditor.config.foreground_deadline)

    def _answer(self, result: Any, report: AuditReport | None) -> Any:
        """What the caller gets: in observe mode always ``result``. In enforce mode the
        enforced result, :class:`CitationAuditError` when the audit failed (fail closed), or
        ``result`` unchanged when it cites nothing."""
        h = self.handler
        if not h.enforcing:
            return result
        if self.scope.failure is not None:
            raise CitationAuditError(f"citation audit of {h.name} failed") from self.scope.failure
        return result if report is None else enforce(result, report, h.on_violation)

    def output(self, result: Any, kept: StreamKept | None = None) -> Any:
        """Audit a finished sync call (``kept``: a stream's); returns what the caller gets."""
        deadline = self._deadline()
        work = self._work(result, deadline, kept)
        return self._answer(result, None if work is None
                            else self.scope.run(*work, deadline=deadline))

    async def aoutput(self, result: Any, kept: StreamKept | None = None) -> Any:
        """Audit a finished async call; returns what the caller gets."""
        deadline = self._deadline()
        work = self._work(result, deadline, kept)
        return self._answer(result, None if work is None
                            else await self.scope.arun(*work, deadline=deadline))

    def _submit(self, result: Any, kept: StreamKept | None = None) -> None:
        """Read and audit on the audit thread: the caller's thread never reads the result."""
        scope = self.scope
        scope.annotate(semconv.AUDIT_BACKGROUND, True)

        async def job() -> None:
            try:
                work = self._read(result, None, kept)
            except BaseException as exc:  # nothing here is a caller's: all of it is the audit's
                scope.error(exc, trace_back=not isinstance(exc, asyncio.CancelledError))
                return
            if work is not None:
                with contextlib.suppress(BaseException):  # cancelled at exit: arun recorded it
                    await scope.arun(*work)

        def abandoned() -> None:  # cancelled at exit before it started
            scope.error(asyncio.CancelledError(), trace_back=False)

        try:
            submitted = runner.submit(job, abandoned)
        except Exception:
            submitted = False
        if not submitted:
            scope.dropped()


def _check_options(mode: Any, on_violation: Any, background: Any, citations: Any,
                   documents: Any, settings: Mapping[str, Any]) -> None:
    """Reject, at decoration, options that are invalid or could not take effect."""
    if mode not in ("observe", "enforce"):
        raise ValueError(f"mode must be 'observe' or 'enforce', not {mode!r}")
    if on_violation not in (None, "filter", "raise"):
        raise ValueError(f"on_violation must be 'filter' or 'raise', not {on_violation!r}")
    if on_violation is not None and mode != "enforce":
        raise ValueError("on_violation applies in enforce mode only: add mode='enforce'")
    if mode == "enforce" and background:
        raise ValueError("enforce mode needs the audit before returning: background=False")
    if mode == "enforce" and "sample_rate" in settings:
        raise ValueError("enforce mode audits every call: sample_rate cannot apply")
    for name, extractor in (("citations", citations), ("documents", documents)):
        if extractor is not None and not callable(extractor):
            raise TypeError(f"{name}= must be a function f(arguments, result), "
                            f"not {type(extractor).__name__}")


def _wrap(fn: Callable[..., Any], handler: _Handler) -> Callable[..., Any]:
    """The wrapper for ``fn``'s kind. Each is thin: start the call's audit (or not), run the
    handler inside :meth:`AuditScope.running`, hand the result to the output step.

    Streams make the span current around each step of the handler and are audited when they
    end or are closed early. Everything the caller does to the stream reaches the handler's
    own generator as it would without us: ``send``/``asend`` values, ``throw``/``athrow``
    (``GeneratorExit`` included: ``close()`` is a thrown ``GeneratorExit``, and a handler that
    catches it and yields behaves as it would bare)."""
    if inspect.isasyncgenfunction(fn):
        @functools.wraps(fn)
        async def agen_wrapper(*args: Any, **kwargs: Any) -> Any:
            call = handler.call(args, kwargs)
            running = call.running if call is not None else contextlib.nullcontext
            with running():
                agen = fn(*args, **kwargs)
            kept = StreamKept()  # at most what the audit can read (vcg_otel._stream)
            sent: Any = None
            thrown: BaseException | None = None  # from the caller: for the handler
            closed = False  # the caller closed the stream and the handler let it close
            while True:
                closing = isinstance(thrown, GeneratorExit)
                with running():
                    try:
                        item = await (agen.asend(sent) if thrown is None
                                      else agen.athrow(thrown))
                    except StopAsyncIteration:
                        break
                    except GeneratorExit:
                        if not closing:
                            raise
                        closed = True  # closed early: what was produced is audited below
                        break
                    finally:
                        thrown = None
                if call is not None:  # an unaudited stream keeps nothing
                    kept.add(item)
                try:
                    sent = yield item
                except BaseException as exc:
                    sent, thrown = None, exc
            if call is not None:
                await call.aoutput(kept.value(), kept)
            if closed:
                raise GeneratorExit

        return agen_wrapper

    if inspect.isgeneratorfunction(fn):
        @functools.wraps(fn)
        def gen_wrapper(*args: Any, **kwargs: Any) -> Any:
            call = handler.call(args, kwargs)
            if call is None:
                return (yield from fn(*args, **kwargs))
            with call.running():
                gen = fn(*args, **kwargs)
            kept = StreamKept()
            sent: Any = None
            thrown: BaseException | None = None  # from the caller: for the handler
            closed = False  # the caller closed the stream and the handler let it close
            value = None
            while True:
                closing = isinstance(thrown, GeneratorExit)
                with call.running():
                    try:
                        item = gen.send(sent) if thrown is None else gen.throw(thrown)
                    except StopIteration as stop:
                        value = stop.value
                        break
                    except GeneratorExit:
                        if not closing:
                            raise
                        closed = True  # closed early: what was produced is audited below
                        break
                    finally:
                        thrown = None
                kept.add(item)
                try:
                    sent = yield item
                except BaseException as exc:
                    sent, thrown = None, exc
            call.output(kept.value(), kept)
            if closed:
                raise GeneratorExit
            return value

        return gen_wrapper

    if inspect.iscoroutinefunction(fn):
        @functools.wraps(fn)
        async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
            call = handler.call(args, kwargs)
            if call is None:
                return await fn(*args, **kwargs)
            with call.running():
                result = await fn(*args, **kwargs)
            return await call.aoutput(result)

        return async_wrapper

    @functools.wraps(fn)
    def sync_wrapper(*args: Any, **kwargs: Any) -> Any:
        call = handler.call(args, kwargs)
        if call is None:
            return fn(*args, **kwargs)
        with call.running():
            result = fn(*args, **kwargs)
        return call.output(result)

    return sync_wrapper


@overload
def audited_citations(fn: F) -> F: ...


@overload
def audited_citations(
    fn: None = None, *, judge: LLMCall | None = ..., auditor: Auditor | None = ...,
    mode: Mode = ..., on_violation: OnViolation | None = ..., background: bool = ...,
    citations: Extractor | None = ..., documents: Extractor | None = ...,
    config: AuditConfig | None = ..., telemetry: TelemetryConfig | None = ...,
    **settings: Unpack[Settings],
) -> Callable[[F], F]: ...


def audited_citations(
    fn: Callable[..., Any] | None = None,
    *,
    judge: LLMCall | None = None,
    auditor: Auditor | None = None,
    mode: Mode = "observe",
    on_violation: OnViolation | None = None,
    background: bool = False,
    citations: Extractor | None = None,
    documents: Extractor | None = None,
    config: AuditConfig | None = None,
    telemetry: TelemetryConfig | None = None,
    **settings: Unpack[Settings],
) -> Any:
    """Audit the citations of every answer the decorated handler returns.

    Use bare (``@audited_citations``) or with options. Works on sync and async functions,
    generators and async generators (a stream is audited when it ends or is closed).

    Args:
        judge: any ``llm_call(system, user)`` (e.g. ``LiteLLMJudge``); ``None``: gate only.
        auditor: a configured :class:`~vcg_otel.audit.Auditor` to share, instead of
            ``judge`` and the audit settings (giving both raises: the auditor's own would
            silently win).
        mode: ``"observe"`` (default) or ``"enforce"`` (see :mod:`vcg_otel.enforce`).
        on_violation: in enforce mode, ``"filter"`` (default) unsupported citations out or
            ``"raise"`` :class:`CitationViolation`.
        background: return at once and finish the audit (judge included) on a background
            thread; the spans are still complete and parented to the call's span.
        citations, documents: ``f(arguments, result)`` overriding where citations and
            documents come from (``arguments`` maps parameter names to values). By default
            citations come from the result and documents from the result and from arguments
            named ``documents``, ``docs``, ``context`` or ``sources``.
        config: an :class:`~vcg_otel.config.AuditConfig` (the judge's budget, sampling,
            window; the gate's bounds).
        telemetry: a :class:`~vcg_otel.config.TelemetryConfig` (content capture, call
            sampling, span shapes, providers).
        **settings: any field of either config as a keyword instead (``timeout=5``,
            ``capture_content=False``, ``sample_rate=0.1``, ``check_spans=False``,
            ``tracer_provider=...``); a field given both ways raises. Unset fields come from
            their environment variables (:func:`vcg_otel.config.env_vars`).

    The settings are validated here; the variables they fall back on are read on the first
    call (decoration runs at import, before an app's ``main()`` may load them).

    Raises:
        TypeError, ValueError: at decoration time, for an unknown or invalid setting, one
            given twice, ``auditor=`` with ``judge=`` or audit settings, an extractor that is
            not callable, an option that cannot take effect (``on_violation`` in observe
            mode, ``sample_rate`` in enforce mode, which audits every call), enforce mode with
            ``background=True`` or on a generator.
    """
    _check_options(mode, on_violation, background, citations, documents, settings)
    split_settings(settings, config=config, telemetry=telemetry, where="@audited_citations")
    if auditor is not None:
        given = [name for name, value in (("judge", judge), ("config", config))
                 if value is not None] + sorted(AUDIT_FIELDS.intersection(settings))
        if given:
            raise TypeError(f"@audited_citations: auditor= carries its own judge and settings; "
                            f"{', '.join(given)} would be ignored (configure the Auditor)")

    def build() -> tuple[Auditor, TelemetryConfig]:
        if auditor is None:
            return configure(judge, settings, config=config, telemetry=telemetry,
                             where="@audited_citations")
        return auditor, split_settings(settings, telemetry=telemetry)[1]

    setup = _Setup(build)  # shared by every function this decorator wraps
    violation: OnViolation = on_violation or "filter"

    def decorate(target: Callable[..., Any]) -> Callable[..., Any]:
        if not callable(target):
            raise TypeError(f"@audited_citations needs a function, not {type(target).__name__}")
        streaming = inspect.isgeneratorfunction(target) or inspect.isasyncgenfunction(target)
        if mode == "enforce" and streaming:
            raise TypeError("enforce mode cannot take back streamed chunks: use observe")
        handler = _Handler(target, setup, mode=mode,
                           on_violation=violation, background=background,
                           citations=citations, documents=documents)
        wrapper = _wrap(target, handler)
        wrapper.__vcg_otel_handler__ = handler  # type: ignore[attr-defined]
        return wrapper

    if fn is not None:
        return decorate(fn)
    return decorate
