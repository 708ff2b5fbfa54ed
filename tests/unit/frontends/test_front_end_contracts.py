"""Probing the issue-15 refactor (AuditConfig/TelemetryConfig, AuditScope, thin wrappers) the way a
demanding user would, through the real SDK (in-memory exporter, a span processor that counts).

The tests for the thirteen problems this probe found (six new with the refactor, seven already
at f5534b7) failed before their fixes; the others pin behaviour no test covered before.
"""

from __future__ import annotations

import asyncio
import copy
import functools
import logging
import pickle
import sys
import textwrap
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from opentelemetry import context as otel_context
from opentelemetry.context import Context
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor
from opentelemetry.trace import StatusCode
from support.answers import DOCS, FABRICATED, HONEST, MISATTRIBUTED
from support.telemetry import Telemetry

from vcg_otel import (
    AuditConfig,
    Auditor,
    CitationAuditError,
    TelemetryConfig,
    audited_citations,
)
from vcg_otel.config import env_vars
from vcg_otel.otel import semconv
from vcg_otel.otel.background import runner

ANSWER = {"answer": "...", "citations": [HONEST, FABRICATED]}


class Counting(SpanProcessor):
    """Counts starts and ends per span: every span must end exactly once."""

    def __init__(self) -> None:
        self.started: dict[int, str] = {}
        self.ends: dict[int, int] = {}

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        self.started[span.context.span_id] = span.name

    def on_end(self, span: ReadableSpan) -> None:
        self.ends[span.context.span_id] = self.ends.get(span.context.span_id, 0) + 1

    def unended(self) -> list[str]:
        return [name for sid, name in self.started.items() if sid not in self.ends]

    def ended_twice(self) -> list[str]:
        return [self.started.get(sid, "?") for sid, n in self.ends.items() if n > 1]


class _FailsOnStart(SpanProcessor):
    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        raise RuntimeError("span processor on_start failed")


@pytest.fixture
def telemetry() -> Iterator[Telemetry]:
    t = Telemetry()
    t.counting = Counting()  # type: ignore[attr-defined]
    t.tracer_provider.add_span_processor(t.counting)  # type: ignore[attr-defined]
    yield t
    runner.flush(10)
    t.tracer_provider.shutdown()
    t.meter_provider.shutdown()


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    for name in [*env_vars(), semconv.ENV_HIDE_INPUTS, semconv.ENV_HIDE_OUTPUTS]:
        monkeypatch.delenv(name, raising=False)
    yield monkeypatch


def _audit_spans(t: Telemetry) -> list[ReadableSpan]:
    return t.spans(semconv.SPAN_AUDIT)


def _assert_clean(t: Telemetry, before: Context) -> None:
    """Every span ended exactly once and the caller's context is what it was."""
    counting: Counting = t.counting  # type: ignore[attr-defined]
    assert counting.unended() == []
    assert counting.ended_twice() == []
    assert otel_context.get_current() == before


# --- observe mode: the caller sees exactly what the bare handler gives ----------------------


def _sync_raise(documents: Any) -> Any:
    raise ValueError("handler")


def _gen(documents: Any) -> Iterator[Any]:
    got = yield "a"
    got2 = yield f"b{got}"
    return f"done {got2}"


async def _agen(documents: Any) -> AsyncIterator[Any]:
    got = yield "a"
    yield f"b{got}"


def _drive_gen(fn: Callable[..., Any]) -> Any:
    it = fn(DOCS)
    first = next(it)
    second = it.send(1)
    try:
        it.send(2)
    except StopIteration as stop:
        return first, second, stop.value
    raise AssertionError("the stream did not end")


def _drive_agen(fn: Callable[..., Any]) -> Any:
    async def main() -> Any:
        it = fn(DOCS)
        first = await it.__anext__()
        second = await it.asend(1)
        with pytest.raises(StopAsyncIteration):
            await it.__anext__()
        return first, second

    return asyncio.run(main())


@pytest.mark.parametrize(("fn", "drive"), [
    (_gen, _drive_gen),
    (_agen, _drive_agen),
], ids=["generator", "async_generator"])
def test_send_values_and_the_return_value_pass_through_a_decorated_stream(
        telemetry: Telemetry, fn: Callable[..., Any], drive: Callable[..., Any]) -> None:
    before = otel_context.get_current()
    bare = drive(fn)
    decorated = drive(audited_citations(**telemetry.providers)(fn))
    assert decorated == bare
    assert len(_audit_spans(telemetry)) == 1
    _assert_clean(telemetry, before)


def test_an_unaudited_async_generator_still_gets_asend_and_athrow(
        telemetry: Telemetry) -> None:
    async def handler(documents: Any) -> AsyncIterator[Any]:
        got = yield 1
        try:
            yield f"got {got}"
        except ValueError:
            yield "recovered"

    async def drive(fn: Callable[..., Any]) -> Any:
        it = fn(DOCS)
        await it.__anext__()
        sent = await it.asend("hello")
        recovered = await it.athrow(ValueError("caller"))
        await it.aclose()
        return sent, recovered

    sampled_out = audited_citations(sample_rate=0.0, **telemetry.providers)(handler)
    assert asyncio.run(drive(handler)) == ("got hello", "recovered")
    assert asyncio.run(drive(sampled_out)) == ("got hello", "recovered")


def test_throw_generator_exit_reaches_the_handler_like_any_other_throw(
        telemetry: Telemetry) -> None:
    def handler(documents: Any) -> Iterator[Any]:
        try:
            yield 1
        except GeneratorExit:
            yield "cleaned up"

    def drive(fn: Callable[..., Any]) -> Any:
        it = fn(DOCS)
        next(it)
        return it.throw(GeneratorExit())

    assert drive(handler) == "cleaned up"
    assert drive(audited_citations(**telemetry.providers)(handler)) == "cleaned up"


def test_a_recursive_handler_gets_one_span_per_call_nested_in_its_caller(
        telemetry: Telemetry) -> None:
    @audited_citations(**telemetry.providers)
    def answer(depth: int, documents: Any = DOCS) -> dict[str, Any]:
        return ANSWER if depth == 0 else answer(depth - 1)

    before = otel_context.get_current()
    assert answer(2) is ANSWER
    spans = sorted(_audit_spans(telemetry), key=lambda s: s.start_time or 0)
    assert len(spans) == 3
    assert spans[1].parent is not None and spans[1].parent.span_id == spans[0].context.span_id
    assert spans[2].parent is not None and spans[2].parent.span_id == spans[1].context.span_id
    assert all(s.attributes[semconv.COUNT_TOTAL] == 2 for s in spans)
    _assert_clean(telemetry, before)


def test_methods_static_and_class_methods_and_partials_are_audited(
        telemetry: Telemetry) -> None:
    deco = audited_citations(**telemetry.providers)

    class Bot:
        @deco
        def method(self, documents: Any) -> Any:
            return ANSWER

        @staticmethod
        @deco
        def static(documents: Any) -> Any:
            return ANSWER

        @classmethod
        @deco
        def klass(cls, documents: Any) -> Any:
            return ANSWER

    def with_prefix(prefix: str, documents: Any) -> Any:
        return ANSWER

    partial = deco(functools.partial(with_prefix, "x"))
    assert Bot().method(DOCS) is ANSWER and Bot.static(DOCS) is ANSWER
    assert Bot.klass(DOCS) is ANSWER and partial(documents=DOCS) is ANSWER
    statuses = [s.attributes[semconv.AUDIT_STATUS] for s in _audit_spans(telemetry)]
    assert statuses == ["audited"] * 4  # documents found by name through every binding


# --- span lifecycle: every path ends the span once and restores the context ---------------


def _boom(arguments: Any, result: Any) -> Any:
    raise ZeroDivisionError("extractor")


class _BrokenAuditor(Auditor):
    """A real auditor whose audit raises (an Exception from inside the pipeline)."""

    def audit(self, citations: Any, documents: Any, **options: Any) -> Any:
        raise RuntimeError("audit failed")

    async def aaudit(self, citations: Any, documents: Any, **options: Any) -> Any:
        raise RuntimeError("audit failed")


SYNC_PATHS: dict[str, tuple[dict[str, Any], Callable[..., Any], Any]] = {
    # name: (decorator options, handler, (status, error) on the span)
    "audited": ({}, lambda documents: ANSWER, ("audited", None)),
    "nothing_to_audit": ({}, lambda documents: {"answer": "x"}, ("nothing_to_audit", None)),
    "handler_raises": ({}, _sync_raise, ("handler_error", None)),
    "extractor_raises": ({"citations": _boom}, lambda documents: ANSWER,
                         (None, "ZeroDivisionError")),
    "audit_raises": ({"auditor": _BrokenAuditor()}, lambda documents: ANSWER,
                     (None, "RuntimeError")),
}


@pytest.mark.parametrize("path", sorted(SYNC_PATHS))
@pytest.mark.parametrize("kind", ["sync", "async"])
def test_every_path_ends_the_audit_span_once_and_restores_the_context(
        telemetry: Telemetry, path: str, kind: str) -> None:
    options, handler, (status, error) = SYNC_PATHS[path]
    target: Callable[..., Any] = handler
    if kind == "async":
        async def target(documents: Any) -> Any:
            return handler(documents)

    audited = audited_citations(**options, **telemetry.providers)(target)
    before = otel_context.get_current()
    try:
        out = audited(DOCS) if kind == "sync" else asyncio.run(audited(DOCS))
    except ValueError as exc:
        assert path == "handler_raises" and str(exc) == "handler"
    else:
        assert out == handler(DOCS)
    (span,) = _audit_spans(telemetry)
    assert span.attributes.get(semconv.AUDIT_STATUS) == status
    assert span.attributes.get(semconv.AUDIT_ERROR) == error
    _assert_clean(telemetry, before)


def test_a_generator_called_with_bad_arguments_still_ends_its_span(
        telemetry: Telemetry) -> None:
    # fixed by the refactor: at f5534b7 the span started and never ended
    @audited_citations(**telemetry.providers)
    def stream(documents: Any) -> Iterator[str]:
        yield "x"

    before = otel_context.get_current()
    with pytest.raises(TypeError):
        list(stream(1, 2, 3))  # type: ignore[call-arg]
    (span,) = _audit_spans(telemetry)
    assert span.attributes[semconv.AUDIT_STATUS] == "handler_error"
    _assert_clean(telemetry, before)


def test_a_background_submit_that_raises_ends_the_span_as_dropped(
        telemetry: Telemetry, monkeypatch: pytest.MonkeyPatch) -> None:
    # fixed by the refactor: at f5534b7 the span was left open
    def refuse(*args: Any, **kwargs: Any) -> bool:
        raise RuntimeError("queue broken")

    monkeypatch.setattr(runner, "submit", refuse)

    @audited_citations(background=True, **telemetry.providers)
    def answer(documents: Any) -> Any:
        return ANSWER

    before = otel_context.get_current()
    assert answer(DOCS) is ANSWER
    (span,) = _audit_spans(telemetry)
    assert span.attributes[semconv.AUDIT_STATUS] == "dropped"
    _assert_clean(telemetry, before)


# --- enforce mode: fail closed, the cause chained ------------------------------------------


@pytest.mark.parametrize("kind", ["sync", "async"])
@pytest.mark.parametrize(("options", "cause"), [
    ({"citations": _boom}, ZeroDivisionError),
    ({"auditor": _BrokenAuditor()}, RuntimeError),
], ids=["extractor", "audit"])
def test_enforce_mode_raises_citation_audit_error_from_the_failure(
        telemetry: Telemetry, kind: str, options: dict[str, Any],
        cause: type[BaseException]) -> None:
    def handler(documents: Any) -> Any:
        return ANSWER

    async def ahandler(documents: Any) -> Any:
        return ANSWER

    audited = audited_citations(mode="enforce", **options, **telemetry.providers)(
        handler if kind == "sync" else ahandler)
    before = otel_context.get_current()
    with pytest.raises(CitationAuditError) as caught:
        audited(DOCS) if kind == "sync" else asyncio.run(audited(DOCS))
    assert isinstance(caught.value.__cause__, cause)
    (span,) = _audit_spans(telemetry)
    assert span.status.status_code is StatusCode.ERROR
    assert span.attributes[semconv.AUDIT_ERROR] == cause.__name__
    _assert_clean(telemetry, before)


def test_enforce_mode_fails_closed_when_an_extractor_raises_keyboard_interrupt(
        telemetry: Telemetry) -> None:
    def interrupt(arguments: Any, result: Any) -> Any:
        raise KeyboardInterrupt

    @audited_citations(mode="enforce", citations=interrupt, **telemetry.providers)
    def answer(documents: Any) -> Any:
        return ANSWER

    with pytest.raises(CitationAuditError) as caught:
        answer(DOCS)
    assert isinstance(caught.value.__cause__, KeyboardInterrupt)


def test_enforce_mode_never_passes_off_an_unaudited_answer_when_the_span_cannot_start(
        telemetry: Telemetry) -> None:
    telemetry.tracer_provider.add_span_processor(_FailsOnStart())

    @audited_citations(mode="enforce", **telemetry.providers)
    def answer(documents: Any) -> Any:
        return ANSWER

    try:
        out = answer(DOCS)
    except CitationAuditError:
        return  # failing closed is fine
    assert FABRICATED not in out["citations"] and "citation_audit" in out


# --- configs ---------------------------------------------------------------------------------


def test_with_changes_keeps_the_inputs_openinference_hides(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv(semconv.ENV_CAPTURE_CONTENT, "true")
    clean_env.setenv(semconv.ENV_HIDE_INPUTS, "true")
    telemetry = TelemetryConfig()
    assert telemetry.content.inputs is False
    assert telemetry.with_changes(sample_rate=0.5).content == telemetry.content


def test_content_capture_turned_off_after_decoration_is_honoured(
        telemetry: Telemetry, clean_env: pytest.MonkeyPatch) -> None:
    @audited_citations(**telemetry.providers)
    def answer(documents: Any) -> Any:
        return {"citations": [HONEST]}

    clean_env.setenv(semconv.ENV_CAPTURE_CONTENT, "false")
    answer(DOCS)
    text = telemetry.dump()
    assert HONEST["claim"] not in text and HONEST["quote"] not in text


@pytest.mark.parametrize(("variable", "raw", "field", "value"), [
    (semconv.ENV_JUDGE_TIMEOUT, " 5 ", "timeout", 5.0),
    (semconv.ENV_JUDGE_TIMEOUT, "NONE", "timeout", None),
    (semconv.ENV_JUDGE_TIMEOUT, "", "timeout", 30.0),
    (semconv.ENV_JUDGE_TIMEOUT, "   ", "timeout", 30.0),
    (semconv.ENV_JUDGE_TIMEOUT, "inf", "timeout", None),  # no limit, as timeout=inf
    (semconv.ENV_JUDGE_TIMEOUT, "nan", "timeout", 30.0),
    (semconv.ENV_JUDGE_TIMEOUT, "-1", "timeout", 30.0),
    (semconv.ENV_JUDGE_TIMEOUT, "0", "timeout", 30.0),
    (semconv.ENV_JUDGE_TIMEOUT, "5s", "timeout", 30.0),
    (semconv.ENV_MAX_JUDGE_CALLS, "0", "max_judge_calls", 0),
    (semconv.ENV_MAX_JUDGE_CALLS, " +4 ", "max_judge_calls", 4),
    (semconv.ENV_MAX_JUDGE_CALLS, "-3", "max_judge_calls", None),
    (semconv.ENV_MAX_JUDGE_CALLS, "3.0", "max_judge_calls", None),
    (semconv.ENV_MAX_JUDGE_CALLS, "9" * 5000, "max_judge_calls", None),
    (semconv.ENV_JUDGE_SAMPLE_RATE, "nan", "judge_sample_rate", 1.0),
    (semconv.ENV_JUDGE_SAMPLE_RATE, "1.5", "judge_sample_rate", 1.0),
    (semconv.ENV_JUDGE_SAMPLE_RATE, "1e-3", "judge_sample_rate", 0.001),
    (semconv.ENV_JUDGE_CACHE, "No", "cache", False),
    (semconv.ENV_MAX_CITATIONS, "0", "max_citations", 10_000),
])
def test_a_variable_is_parsed_leniently_and_a_bad_one_keeps_the_default(
        clean_env: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, variable: str,
        raw: str, field: str, value: Any) -> None:
    default = getattr(AuditConfig(), field)
    clean_env.setenv(variable, raw)
    with caplog.at_level(logging.WARNING, logger="vcg_otel"):
        got = getattr(AuditConfig(), field)
    assert got == value
    assert isinstance(got, type(value))
    if value == default and raw.strip():
        assert variable in caplog.text  # a value that was not used is never silent


def test_an_argument_beats_a_malformed_variable_without_a_warning(
        clean_env: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    clean_env.setenv(semconv.ENV_JUDGE_TIMEOUT, "soon")
    with caplog.at_level(logging.WARNING, logger="vcg_otel"):
        assert AuditConfig(timeout=3).timeout == 3
    assert caplog.text == ""


def test_configs_are_frozen_hashable_comparable_and_survive_copy_and_pickle(
        clean_env: pytest.MonkeyPatch) -> None:
    audit = AuditConfig(timeout=5, max_tokens=100)
    tele = TelemetryConfig(sample_rate=0.5, capture_content=False)
    for config, field in ((audit, "timeout"), (tele, "sample_rate")):
        assert pickle.loads(pickle.dumps(config)) == config
        assert copy.copy(config) == config and copy.deepcopy(config) == config
        assert hash(config) == hash(copy.deepcopy(config))
        with pytest.raises(AttributeError):
            setattr(config, field, 1.0)
    assert pickle.loads(pickle.dumps(tele)).content == tele.content
    assert audit.with_changes(timeout=7) == AuditConfig(timeout=7, max_tokens=100)
    with pytest.raises(ValueError, match="timeout"):
        audit.with_changes(timeout=-1)


@pytest.mark.parametrize("settings", [
    {"max_concurrency": "int64:4"},
    {"max_judge_calls": "int64:4"},
    {"judge_sample_rate": "float32:0.5"},
    {"sample_rate": "float32:0.5"},
    {"timeout": "inf"},
], ids=lambda s: next(iter(s)))
def test_numbers_the_old_options_took_are_still_taken(settings: dict[str, str]) -> None:
    np = pytest.importorskip("numpy")
    (name, raw), = settings.items()
    kind, _, text = raw.partition(":")
    value = float("inf") if raw == "inf" else getattr(np, kind)(float(text))
    audited_citations(**{name: value})(lambda documents: None)


@pytest.mark.parametrize("options", [
    {"on_violation": "raise"},
    {"mode": "enforce", "sample_rate": 0.1},
    {"citations": "citations"},
    {"documents": ["not", "a", "function"]},
], ids=["raise_in_observe", "sample_rate_in_enforce", "citations", "documents"])
def test_an_option_that_cannot_take_effect_raises_at_decoration(options: dict[str, Any]) -> None:
    with pytest.raises((TypeError, ValueError)):
        audited_citations(**options)(lambda documents: None)


# --- integrations: every setting honoured or rejected ---------------------------------------


def _langchain_audit(**settings: Any) -> Callable[[], Any]:
    pytest.importorskip("langchain_core")
    from vcg_otel.integrations.langchain import CitationAudit

    audit = CitationAudit(**settings)
    return lambda: audit.invoke({"answer": "x", "citations": [HONEST], "documents": DOCS})


def _llamaindex_query(**settings: Any) -> Callable[[], Any]:
    pytest.importorskip("llama_index.core")
    from llama_index.core.base.response.schema import Response
    from llama_index.core.query_engine import CustomQueryEngine

    from vcg_otel.integrations.llamaindex import AuditedQueryEngine

    class Engine(CustomQueryEngine):
        def custom_query(self, query_str: str) -> Response:
            return Response(response="The reranker improves accuracy by 4.2% [1].")

    engine = AuditedQueryEngine(Engine(), **settings)
    return lambda: engine.query("Does the reranker help?")


INTEGRATIONS = {"langchain": _langchain_audit, "llamaindex": _llamaindex_query}


@pytest.mark.parametrize("name", sorted(INTEGRATIONS))
def test_an_integration_honours_or_rejects_the_call_sample_rate(
        telemetry: Telemetry, name: str) -> None:
    try:
        call = INTEGRATIONS[name](sample_rate=0.0, tracer_provider=telemetry.tracer_provider)
    except (TypeError, ValueError):
        return
    for _ in range(3):
        call()
    assert _audit_spans(telemetry) == []


@pytest.mark.parametrize("name", sorted(INTEGRATIONS))
def test_a_span_processor_failing_on_start_never_reaches_an_integrations_caller(
        telemetry: Telemetry, name: str) -> None:
    telemetry.tracer_provider.add_span_processor(_FailsOnStart())
    call = INTEGRATIONS[name](tracer_provider=telemetry.tracer_provider)
    call()


def _haystack() -> Any:
    pytest.importorskip("haystack")
    from vcg_otel.integrations import haystack

    return haystack


def test_haystack_settings_survive_a_pipeline_yaml_round_trip(
        clean_env: pytest.MonkeyPatch) -> None:
    haystack = _haystack()
    from haystack import Pipeline

    checker = haystack.CitationConsistencyChecker(
        settings={"max_tokens": 20_000, "capture_content": False, "timeout": None})
    data = checker.to_dict()
    assert haystack.CitationConsistencyChecker.from_dict(data).to_dict() == data
    pipe = Pipeline()
    pipe.add_component("checker", checker)
    loaded = Pipeline.loads(pipe.dumps())  # haystack_integrations: allowed by default
    again = loaded.get_component("checker")
    assert again.to_dict() == data
    assert again._auditor.max_tokens == 20_000 and again._auditor.timeout is None
    assert again._telemetry.content.inputs is False
    with pytest.raises(TypeError, match="nope"):
        haystack.CitationConsistencyChecker(settings={"nope": 1})


def test_haystack_settings_either_serialize_or_are_rejected_at_construction() -> None:
    haystack = _haystack()
    from haystack import Pipeline

    from vcg_otel.judge.runner import WindowConfig

    try:
        checker = haystack.CitationConsistencyChecker(
            settings={"window": WindowConfig(context_chars=100)})
    except (TypeError, ValueError):
        return
    pipe = Pipeline()
    pipe.add_component("checker", checker)
    pipe.dumps()


def test_haystack_ignores_the_misattributed_variable_a_saved_pipeline_must_not_depend_on(
        clean_env: pytest.MonkeyPatch) -> None:
    """``treat_misattributed_as_consistent`` defaults to False, as in the original component,
    and is saved with the pipeline: the environment it is loaded in cannot change it."""
    haystack = _haystack()
    from haystack import Document

    clean_env.setenv(semconv.ENV_MISATTRIBUTED_IS_CONSISTENT, "true")
    moved = haystack.Citation(MISATTRIBUTED["claim"], "paper", MISATTRIBUTED["quote"])
    docs = [Document(id=name, content=text) for name, text in DOCS.items()]
    routed = haystack.CitationConsistencyChecker().run(citations=[moved], documents=docs)
    assert [c.status for c in routed["inconsistent"]] == ["misattributed"]


# --- the instrumentor -----------------------------------------------------------------------

APP = textwrap.dedent('''
    def answer(documents):
        return {"citations": []}

    def stream(documents):
        yield "x"
''')


@pytest.fixture
def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    name = f"probeapp_{abs(hash(tmp_path)) % 10**8}"
    (tmp_path / f"{name}.py").write_text(APP)
    monkeypatch.syspath_prepend(str(tmp_path))
    __import__(name)
    yield sys.modules[name]
    pytest.importorskip("opentelemetry.instrumentation")
    from vcg_otel.instrumentor import CitationAuditInstrumentor

    if CitationAuditInstrumentor().is_instrumented_by_opentelemetry:
        CitationAuditInstrumentor().uninstrument()
    sys.modules.pop(name, None)


def test_an_unknown_instrument_option_raises_before_anything_is_wrapped(app: Any) -> None:
    pytest.importorskip("opentelemetry.instrumentation")
    from vcg_otel.instrumentor import CitationAuditInstrumentor

    original = app.answer
    with pytest.raises(TypeError, match="bogus"):
        CitationAuditInstrumentor().instrument(targets=[f"{app.__name__}:answer"], bogus=1)
    assert app.answer is original
    assert not CitationAuditInstrumentor().is_instrumented_by_opentelemetry


def test_an_instrument_call_that_raises_leaves_no_target_wrapped(app: Any) -> None:
    pytest.importorskip("opentelemetry.instrumentation")
    from vcg_otel.instrumentor import CitationAuditInstrumentor

    original = app.answer
    with pytest.raises(TypeError, match="enforce"):
        CitationAuditInstrumentor().instrument(
            targets=[f"{app.__name__}:answer", f"{app.__name__}:stream"], mode="enforce")
    assert app.answer is original
