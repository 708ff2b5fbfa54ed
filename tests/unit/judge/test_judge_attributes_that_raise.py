"""Issue 19, item 5: reading a judge's attributes is part of calling it. A judge whose
``model``, ``acall`` or any other attribute raises when read, even ``KeyboardInterrupt`` or
``SystemExit`` from ``__getattr__``, fails closed (``raised``, with what was read); the
handler runs and its caller gets its result."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest
from support.telemetry import Telemetry

from vcg_otel import audited_citations
from vcg_otel.audit import Auditor, Citation, Outcome
from vcg_otel.judge import FailReason, judge_support
from vcg_otel.otel import semconv

DOCS = {"paper": "The proposed reranker improves accuracy by 4.2% over the baseline."}
ANSWER = 'It helps: "improves accuracy by 4.2%" [paper].'
SUPPORTS = json.dumps({"verdict": "supports", "confidence": 0.9, "reasoning": "ok"})


def trapped(names: set[str] | None, kind: type[BaseException]) -> Any:
    """A judge whose ``__getattr__`` raises ``kind`` for ``names`` (``None``: any name)."""

    class Trapped:
        def __call__(self, system: str, user: str) -> str:
            return SUPPORTS

        def __getattr__(self, name: str) -> Any:
            if names is None or name in names:
                raise kind(f"read {name}")
            raise AttributeError(name)

    return Trapped()


CASES = [
    pytest.param(None, KeyboardInterrupt, "model", id="every-attribute-KeyboardInterrupt"),
    pytest.param({"model"}, SystemExit, "model", id="model-SystemExit"),
    pytest.param({"model"}, KeyboardInterrupt, "model", id="model-KeyboardInterrupt"),
    pytest.param({"__qualname__"}, KeyboardInterrupt, "__qualname__", id="name-Interrupt"),
]


def audited(judge: Any, kind: str) -> tuple[Callable[[], Any], Telemetry, list[str]]:
    telemetry = Telemetry()
    ran: list[str] = []
    decorate = audited_citations(judge=judge, **telemetry.providers)
    if kind == "sync":
        @decorate
        def answer(question: str, documents: dict[str, str]) -> str:
            ran.append(question)
            return ANSWER

        return lambda: answer("q", DOCS), telemetry, ran

    @decorate
    async def aanswer(question: str, documents: dict[str, str]) -> str:
        ran.append(question)
        return ANSWER

    return lambda: asyncio.run(aanswer("q", DOCS)), telemetry, ran


def call_as_the_host(call: Callable[[], Any]) -> Any:
    try:
        return call()
    except BaseException as exc:  # what reaches the host is the finding
        pytest.fail(f"{type(exc).__name__} reached the caller")


@pytest.mark.parametrize("kind", ["sync", "async"])
@pytest.mark.parametrize(("names", "error", "read"), CASES)
def test_the_handler_runs_and_the_judge_fails_closed(
        names: set[str] | None, error: type[BaseException], read: str, kind: str) -> None:
    call, telemetry, ran = audited(trapped(names, error), kind)
    assert call_as_the_host(call) == ANSWER and ran == ["q"]
    check = telemetry.spans(semconv.SPAN_CHECK)[0]
    attrs = dict(check.attributes or {})
    assert attrs[semconv.VERDICT] == "unjudged"
    assert attrs[semconv.JUDGE_FAIL_REASON] == "raised"


@pytest.mark.parametrize(("names", "error", "read"), CASES)
def test_the_reason_names_what_was_read(names: set[str] | None, error: type[BaseException],
                                        read: str) -> None:
    judge = trapped(names, error)
    auditor = call_as_the_host(lambda: Auditor(judge))
    r = call_as_the_host(lambda: auditor.audit(
        [Citation("It helps.", "paper", "improves accuracy by 4.2%")], DOCS)).results[0]
    assert (r.outcome, r.fail_reason) == (Outcome.UNJUDGED, FailReason.RAISED)
    assert r.verdict is not None and r.verdict.detail == f"{error.__name__} reading {read!r}"
    v = call_as_the_host(lambda: judge_support("c", "q", "s", judge))
    assert (v.fail_reason, v.detail) == (FailReason.RAISED, f"{error.__name__} reading {read!r}")


def test_an_acall_that_raises_when_read_fails_the_async_audit_closed() -> None:
    call, telemetry, ran = audited(trapped({"acall"}, KeyboardInterrupt), "async")
    assert call_as_the_host(call) == ANSWER and ran == ["q"]
    check = telemetry.spans(semconv.SPAN_CHECK)[0]
    assert (check.attributes or {})[semconv.JUDGE_FAIL_REASON] == "raised"
    report = call_as_the_host(lambda: asyncio.run(Auditor(trapped({"acall"}, SystemExit)).aaudit(
        [Citation("It helps.", "paper", "improves accuracy by 4.2%")], DOCS)))
    assert report.results[0].verdict.detail == "SystemExit reading 'acall'"


def test_a_judge_whose_attributes_read_cleanly_is_still_judged() -> None:
    report = Auditor(trapped(set(), KeyboardInterrupt)).audit(
        [Citation("It helps.", "paper", "improves accuracy by 4.2%")], DOCS)
    assert report.results[0].outcome is Outcome.SUPPORTS
