"""The host never waits on us and never sees our errors (issue 10), through the real SDK.

Whose exception is it: anything raised while the result is read is the extractor's (recorded,
the caller gets its result); a Ctrl-C or cancellation delivered to the caller is the caller's
(it propagates, and the audit span still ends). Telemetry trouble never reaches the caller.
"""

from __future__ import annotations

import asyncio
import signal
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry.context import Context
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor
from opentelemetry.trace import StatusCode
from support.answers import DOCS, HONEST
from support.telemetry import Telemetry

from vcg_otel import audited_citations
from vcg_otel.otel import semconv
from vcg_otel.otel.background import BackgroundRunner, runner

NOT_EXCEPTIONS = (KeyboardInterrupt, SystemExit, GeneratorExit, asyncio.CancelledError)


@pytest.fixture
def telemetry() -> Iterator[Telemetry]:
    t = Telemetry()
    yield t
    runner.flush(10)
    t.tracer_provider.shutdown()


def _audit_span(telemetry: Telemetry) -> ReadableSpan:
    (span,) = telemetry.spans(semconv.SPAN_AUDIT)
    return span


# --- errors that are not Exception, raised while the result is read ----------------------


@pytest.mark.parametrize("kind", NOT_EXCEPTIONS)
@pytest.mark.parametrize("background", [False, True])
def test_an_extractor_raising_a_base_exception_fails_closed_and_the_caller_gets_its_result(
        telemetry: Telemetry, kind: type[BaseException], background: bool) -> None:
    def explode(arguments: dict[str, Any], result: Any) -> Any:
        raise kind()

    @audited_citations(citations=explode, background=background, **telemetry.providers)
    def answer(documents: dict[str, str]) -> dict[str, Any]:
        return {"citations": [HONEST]}

    assert answer(DOCS) == {"citations": [HONEST]}
    assert runner.flush(10)
    span = _audit_span(telemetry)
    assert span.attributes[semconv.AUDIT_ERROR] == kind.__name__
    assert span.status.status_code is StatusCode.ERROR


class _Hostile:
    """A result whose every attribute read raises ``KeyboardInterrupt``."""

    def __getattr__(self, name: str) -> Any:
        raise KeyboardInterrupt


@pytest.mark.parametrize("background", [False, True])
def test_a_result_whose_attributes_raise_keyboard_interrupt_never_reaches_the_caller(
        telemetry: Telemetry, background: bool) -> None:
    hostile = _Hostile()

    @audited_citations(background=background, **telemetry.providers)
    def answer(documents: dict[str, str]) -> Any:
        return hostile

    assert answer(DOCS) is hostile
    assert runner.flush(10)
    assert _audit_span(telemetry).attributes[semconv.AUDIT_ERROR] == "KeyboardInterrupt"


class _Watched:
    """A result that records which threads read its attributes."""

    def __init__(self) -> None:
        self.citations = [HONEST]
        self.readers: set[int] = set()

    def __getattribute__(self, name: str) -> Any:
        if name != "readers":
            object.__getattribute__(self, "readers").add(threading.get_ident())
        return object.__getattribute__(self, name)


def test_with_background_nothing_of_the_result_is_read_on_the_callers_thread(
        telemetry: Telemetry) -> None:
    @audited_citations(background=True, **telemetry.providers)
    def answer(documents: dict[str, str]) -> _Watched:
        return _Watched()

    result = answer(DOCS)
    assert runner.flush(10)
    assert result.readers and threading.get_ident() not in result.readers
    span = _audit_span(telemetry)
    assert span.attributes[semconv.AUDIT_STATUS] == "audited"
    assert span.attributes[semconv.AUDIT_DOCUMENT_COUNT] == 2  # from the argument, read there


def test_extraction_that_runs_out_of_budget_says_so_on_the_span(telemetry: Telemetry) -> None:
    @audited_citations(foreground_deadline=None, **telemetry.providers)  # the node budget's test
    def answer(documents: dict[str, str]) -> list[Any]:
        return [0.1] * 200_000 + [HONEST]

    answer(DOCS)
    span = _audit_span(telemetry)
    assert span.attributes[semconv.AUDIT_EXTRACT_LIMIT] == "nodes"
    assert span.attributes[semconv.AUDIT_STATUS] == "nothing_to_audit"


# --- the background loop survives --------------------------------------------------------


@pytest.mark.parametrize("kind", [KeyboardInterrupt, SystemExit])
def test_a_base_exception_in_one_background_audit_does_not_stop_the_others(
        kind: type[BaseException]) -> None:
    own = BackgroundRunner()
    done: list[int] = []

    async def boom() -> None:
        raise kind()

    async def fine() -> None:
        done.append(1)

    assert own.submit(boom)
    assert own.submit(fine)
    assert own.flush(10) and done == [1] and own.pending == 0


def test_cancelled_background_audits_end_their_spans(telemetry: Telemetry) -> None:
    own = BackgroundRunner()
    started = threading.Event()

    async def hang() -> None:
        span = telemetry.tracer_provider.get_tracer("t").start_span("hung")
        try:
            started.set()
            await asyncio.sleep(3600)
        finally:
            span.end()

    assert own.submit(hang) and started.wait(10)
    assert not own.flush(0.05)
    assert own.cancel_pending(10) and own.pending == 0
    assert [s.name for s in telemetry.spans()] == ["hung"]


# --- a Ctrl-C or cancellation delivered to the caller is the caller's --------------------


def test_cancelling_the_callers_task_while_the_judge_runs_propagates_and_ends_the_span(
        telemetry: Telemetry) -> None:
    judging = asyncio.Event()

    async def slow_judge(system: str, user: str) -> str:
        judging.set()
        await asyncio.sleep(3600)
        return ""

    @audited_citations(judge=slow_judge, timeout=None, **telemetry.providers)
    async def answer(documents: dict[str, str]) -> dict[str, Any]:
        return {"citations": [HONEST]}

    async def main() -> None:
        task = asyncio.create_task(answer(DOCS))
        await judging.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    span = _audit_span(telemetry)
    assert span.attributes[semconv.AUDIT_ERROR] == "CancelledError"


def test_a_ctrl_c_while_the_handler_runs_propagates_and_ends_the_span(
        telemetry: Telemetry) -> None:
    @audited_citations(**telemetry.providers)
    def answer(documents: dict[str, str]) -> dict[str, Any]:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        answer(DOCS)
    assert _audit_span(telemetry).attributes[semconv.AUDIT_STATUS] == "handler_error"


# --- telemetry trouble never reaches the caller ------------------------------------------


class _Broken(SpanProcessor):
    def __init__(self, on_start: bool = False, on_end: bool = False) -> None:
        self.fail_start, self.fail_end = on_start, on_end

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        if self.fail_start:
            raise RuntimeError("processor on_start")

    def on_end(self, span: ReadableSpan) -> None:
        if self.fail_end:
            raise RuntimeError("processor on_end")


def test_a_span_processor_failing_on_start_does_not_stop_the_handler(
        telemetry: Telemetry) -> None:
    telemetry.tracer_provider.add_span_processor(_Broken(on_start=True))
    calls: list[int] = []

    @audited_citations(**telemetry.providers)
    def answer(documents: dict[str, str]) -> dict[str, Any]:
        calls.append(1)
        return {"citations": [HONEST]}

    assert answer(DOCS) == {"citations": [HONEST]} and calls == [1]


@pytest.mark.parametrize("raises", [False, True])
def test_a_span_processor_failing_on_end_never_replaces_what_the_caller_gets(
        telemetry: Telemetry, raises: bool) -> None:
    telemetry.tracer_provider.add_span_processor(_Broken(on_end=True))

    @audited_citations(**telemetry.providers)
    def answer(documents: dict[str, str], cited: list[Any]) -> dict[str, Any]:
        if raises:
            raise ValueError("the handler's own")
        return {"citations": cited}

    for cited in ([HONEST], [], [{"claim": "c", "quote": "q", "doc_id": "paper"}]):
        if raises:
            with pytest.raises(ValueError, match="the handler's own"):
                answer(DOCS, cited)
        else:
            assert answer(DOCS, cited) == {"citations": cited}


# --- generators: throw() reaches the handler's generator ---------------------------------


def test_throw_into_a_decorated_generator_reaches_the_handler_which_may_recover(
        telemetry: Telemetry) -> None:
    @audited_citations(**telemetry.providers)
    def stream(documents: dict[str, str]) -> Iterator[str]:
        try:
            yield "The reranker "
        except ValueError:
            yield 'recovered: "improves accuracy by 4.2%" [paper]'

    gen = stream(DOCS)
    assert next(gen) == "The reranker "
    assert gen.throw(ValueError("stop")) == 'recovered: "improves accuracy by 4.2%" [paper]'
    assert list(gen) == []
    span = _audit_span(telemetry)
    assert span.attributes[semconv.AUDIT_STATUS] == "audited"
    assert span.attributes["citation.count.found"] == 1


def test_throw_the_handler_does_not_catch_propagates_and_ends_the_span(
        telemetry: Telemetry) -> None:
    @audited_citations(**telemetry.providers)
    def stream(documents: dict[str, str]) -> Iterator[str]:
        yield "one"
        yield "two"

    gen = stream(DOCS)
    next(gen)
    with pytest.raises(ValueError, match="stop"):
        gen.throw(ValueError("stop"))
    assert _audit_span(telemetry).attributes[semconv.AUDIT_STATUS] == "handler_error"


def test_athrow_into_a_decorated_async_generator_reaches_the_handler(
        telemetry: Telemetry) -> None:
    @audited_citations(**telemetry.providers)
    async def stream(documents: dict[str, str]) -> Any:
        try:
            yield "The reranker "
        except ValueError:
            yield 'recovered: "improves accuracy by 4.2%" [paper]'

    async def main() -> list[str]:
        agen = stream(DOCS)
        got = [await agen.__anext__(), await agen.athrow(ValueError("stop"))]
        return got + [item async for item in agen]

    assert asyncio.run(main())[1].startswith("recovered")
    assert _audit_span(telemetry).attributes["citation.count.found"] == 1


def test_a_ctrl_c_while_the_caller_waits_for_the_judge_propagates_and_ends_the_span(
        telemetry: Telemetry) -> None:
    release = threading.Event()
    main = threading.get_ident()

    def judge(system: str, user: str) -> str:
        signal.pthread_kill(main, signal.SIGINT)  # the user presses Ctrl-C while we wait
        release.wait(10)
        return ""

    @audited_citations(judge=judge, timeout=None, **telemetry.providers)
    def answer(documents: dict[str, str]) -> dict[str, Any]:
        return {"citations": [HONEST]}

    try:
        with pytest.raises(KeyboardInterrupt):
            answer(DOCS)
    finally:
        release.set()
    span = _audit_span(telemetry)
    assert span.attributes[semconv.AUDIT_ERROR] == "KeyboardInterrupt"


class _Slow:
    """A result whose every attribute takes 150 ms to read (or raises KeyboardInterrupt),
    counting the reads."""

    def __init__(self, fails: bool) -> None:
        self.fails, self.reads = fails, 0

    def __getattr__(self, name: str) -> Any:
        self.reads += 1
        if self.fails:
            raise KeyboardInterrupt
        time.sleep(0.15)
        raise AttributeError(name)


@pytest.mark.parametrize("fails", [False, True])
def test_a_slow_or_failing_result_is_read_once_not_thirteen_times(
        telemetry: Telemetry, fails: bool) -> None:
    slow = _Slow(fails)

    @audited_citations(**telemetry.providers)
    def answer(documents: dict[str, str]) -> Any:
        return slow

    assert answer(DOCS) is slow
    assert slow.reads == 1  # without the rule: 7 reads, until the 1 s budget ran out
    span = _audit_span(telemetry)
    if fails:
        assert span.attributes[semconv.AUDIT_ERROR] == "KeyboardInterrupt"
    else:
        assert span.attributes[semconv.AUDIT_STATUS] == "nothing_to_audit"
        assert span.attributes[semconv.AUDIT_EXTRACT_LIMIT] == "seconds"


def test_documents_cut_short_by_the_budget_fail_the_audit_closed_never_not_found(
        telemetry: Telemetry) -> None:
    paper = DOCS["paper"]

    # the node budget is under test, not the time: no deadline, whatever the machine's load
    @audited_citations(foreground_deadline=None, **telemetry.providers)
    def answer(documents: list[str]) -> dict[str, Any]:
        return {"citations": [{**HONEST, "doc_id": str(len(documents) - 1)}]}

    answer(["filler"] * 150_000 + [paper])  # the cited document lies past the node budget
    span = _audit_span(telemetry)
    assert span.attributes[semconv.AUDIT_ERROR] == "DocumentsIncomplete"
    assert span.attributes[semconv.AUDIT_EXTRACT_LIMIT] == "nodes"
    assert telemetry.spans(semconv.SPAN_CHECK) == []  # no verdict at all, not a not_found
