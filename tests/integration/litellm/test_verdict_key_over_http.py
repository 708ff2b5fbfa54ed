"""Issue 19, item 1 end to end: the decorator, a LiteLLMJudge over real HTTP, and a model
that answers by the quote in its prompt. Two inline quotes of one sentence over a short
document share their claim and their source window; each check span carries the verdict of
its own quote, and the model is asked twice (once per quote), also with the cache off."""

from __future__ import annotations

import asyncio
import importlib.util
import json
from typing import Any

import pytest
from support.fake_openai import FakeOpenAI, Reply
from support.telemetry import Telemetry

from vcg_otel import audited_citations
from vcg_otel.otel import semconv

if importlib.util.find_spec("litellm") is None:  # not importorskip: see test_litellm_judge
    pytest.skip("litellm not installed", allow_module_level=True)

from vcg_otel.llm import LiteLLMJudge

ANSWER = 'Better: "improves accuracy by 4.2%" [d] and "gains shrink on long documents" [d].'
DOCS = {"d": "The proposed reranker improves accuracy by 4.2% over the baseline, although "
             "gains shrink on long documents."}


def by_the_quote(body: dict[str, Any]) -> Reply:
    """The model: ``supports`` when the QUOTE section of its prompt holds 4.2%."""
    user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    quote = user.split("<<<QUOTE ", 1)[1].split("<<<END QUOTE", 1)[0]
    verdict = "supports" if "4.2%" in quote else "contradicts"
    return Reply(json.dumps({"verdict": verdict, "confidence": 0.9, "reasoning": "read"}),
                 120, 20)


def check_spans(telemetry: Telemetry) -> list[tuple[str, str, bool]]:
    spans = sorted(telemetry.spans(semconv.SPAN_CHECK),
                   key=lambda s: s.attributes[semconv.CITATION_INDEX])  # type: ignore[index]
    return [(str(s.attributes[semconv.CITATION_QUOTE]),  # type: ignore[index]
             str(s.attributes[semconv.JUDGE_VERDICT]),  # type: ignore[index]
             bool(s.attributes[semconv.JUDGE_CACHED])) for s in spans]  # type: ignore[index]


@pytest.mark.parametrize("cache", [True, False])
@pytest.mark.parametrize("kind", ["sync", "async"])
def test_each_quote_gets_the_verdict_of_its_own_quote_through_the_decorator(
        openai_server: FakeOpenAI, cache: bool, kind: str) -> None:
    openai_server.responder = by_the_quote
    telemetry = Telemetry()
    judge = LiteLLMJudge("openai/test-judge", api_base=openai_server.base_url,
                         api_key="sk-test", timeout=10.0, max_retries=0)
    decorate = audited_citations(judge=judge, cache=cache, **telemetry.providers)

    if kind == "sync":
        @decorate
        def answer(question: str, documents: dict[str, str]) -> str:
            return ANSWER

        assert answer("Is it better?", DOCS) == ANSWER
    else:
        @decorate
        async def aanswer(question: str, documents: dict[str, str]) -> str:
            return ANSWER

        assert asyncio.run(aanswer("Is it better?", DOCS)) == ANSWER
    assert check_spans(telemetry) == [("improves accuracy by 4.2%", "supports", False),
                                     ("gains shrink on long documents", "contradicts", False)]
    assert len(openai_server.requests) == 2
