"""Haystack (haystack-ai 3.4): the checker components in real pipelines.

Real parts: Haystack's DocumentSplitter and InMemoryDocumentStore (content-hash ids, the
splitter's ``meta``), InMemoryBM25Retriever, ChatPromptBuilder, OpenAIChatGenerator calling a
model over HTTP (tests/support/fake_openai.py), the OpenInference Haystack instrumentor, and a real
Phoenix the trace is read back from.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("haystack")

from haystack import Document, Pipeline
from haystack.components.builders import ChatPromptBuilder
from haystack.components.generators.chat import OpenAIChatGenerator
from haystack.components.preprocessors import DocumentSplitter
from haystack.components.retrievers.in_memory import InMemoryBM25Retriever
from haystack.dataclasses import ChatMessage
from haystack.document_stores.in_memory import InMemoryDocumentStore
from haystack.utils import Secret
from support.fake_openai import FakeOpenAI, Reply
from support.frameworks import (
    FABRICATED,
    PAPERS,
    Script,
    answer_with,
    checks_by_quote,
    one_trace_with_audit_inside,
    phoenix_provider,
    project,
    read_trace,
    words,
)
from support.phoenix_server import PhoenixServer

from vcg_otel.integrations.haystack import (
    Citation,
    CitationConsistencyChecker,
    ReplyCitationChecker,
)

TEMPLATE = [ChatMessage.from_user(
    "Answer from these sources, quoting them verbatim as JSON citations.\n"
    "{% for doc in documents %}[{{ doc.meta.file_name }}] {{ doc.content }}\n{% endfor %}"
    "Question: {{ question }}")]


@pytest.fixture(scope="module")
def store() -> InMemoryDocumentStore:
    """The three papers, split into chunks by Haystack and stored with the ids it gives them."""
    files = [Document(content=text, meta={"file_name": name}) for name, text in PAPERS.items()]
    chunks = DocumentSplitter(split_by="word", split_length=60).run(documents=files)["documents"]
    store = InMemoryDocumentStore()
    store.write_documents(chunks)
    return store


def _chunks(store: InMemoryDocumentStore, file_name: str) -> list[Document]:
    return [d for d in store.filter_documents() if d.meta["file_name"] == file_name]


def _script(store: InMemoryDocumentStore) -> tuple[Script, Document, Document]:
    """An answer citing paper 0 by its file stem: a quote from its second chunk, a fabricated
    one, and one from paper 1."""
    first, second = list(PAPERS)[:2]
    honest_chunk = _chunks(store, first)[1]
    other_chunk = _chunks(store, second)[0]
    script = Script(cited=first.removesuffix(".txt"), honest=words(honest_chunk.content, 3, 12),
                    misattributed=words(other_chunk.content, 5, 12))
    return script, honest_chunk, other_chunk


def rag_pipeline(store: InMemoryDocumentStore, server: FakeOpenAI) -> Pipeline:
    pipe = Pipeline()
    pipe.add_component("retriever", InMemoryBM25Retriever(store, top_k=50))
    pipe.add_component("prompt", ChatPromptBuilder(template=TEMPLATE, required_variables="*"))
    pipe.add_component("llm", OpenAIChatGenerator(
        api_key=Secret.from_token("sk-test"), model="test-model",
        api_base_url=server.base_url, max_retries=0, timeout=10))
    pipe.add_component("checker", ReplyCitationChecker())
    pipe.connect("retriever.documents", "prompt.documents")
    pipe.connect("prompt.prompt", "llm.messages")
    pipe.connect("llm.replies", "checker.replies")
    pipe.connect("retriever.documents", "checker.documents")
    return pipe


def _inputs(script: Script) -> dict[str, Any]:
    """A question whose words BM25 finds in both the honest and the other paper's chunk."""
    question = f"{script.honest} {script.misattributed}?"
    return {"retriever": {"query": question}, "prompt": {"question": question}}


def _verdicts(result: dict[str, list[Citation]]) -> dict[str, Citation]:
    return {c.quote or "": c for side in ("consistent", "inconsistent") for c in result[side]}


def _assert_three_verdicts(out: dict[str, list[Citation]], script: Script, honest: Document,
                           other: Document) -> None:
    by_quote = _verdicts(out)
    good = by_quote[script.honest]
    assert good.status == "found" and good in out["consistent"]
    assert good.matched_document_id == honest.id  # the chunk, by the id Haystack gave it
    assert honest.content[good.start:good.end] == script.honest
    assert good.resolution == "stem"
    fabricated = by_quote[FABRICATED]
    assert (fabricated.status, fabricated.reason) == ("not_found", "no_match")
    moved = by_quote[script.misattributed]
    assert moved.status == "misattributed" and moved.matched_document_id == other.id
    assert len(out["inconsistent"]) == 2


# --- the seed's contract -----------------------------------------------------------------------

def test_seed_usage_example_routes_found_and_not_found() -> None:
    docs = [Document(id="d1", content="Body weight was unchanged in both arms of the trial.")]
    result = CitationConsistencyChecker().run(
        citations=[
            Citation(claim="Weight did not change.", document_id="d1",
                     quote="Body weight was unchanged in both arms"),
            Citation(claim="Weight dropped sharply.", document_id="d1",
                     quote="Body weight fell dramatically"),
        ],
        documents=docs,
    )
    assert [c.status for c in result["consistent"]] == ["found"]
    assert [c.status for c in result["inconsistent"]] == ["not_found"]


def test_empty_quotes_and_unknown_documents_fail_closed(store: InMemoryDocumentStore) -> None:
    docs = store.filter_documents()
    result = CitationConsistencyChecker().run(citations=[
        Citation("c", next(iter(PAPERS)), ""),
        Citation("c", "no-such-paper", FABRICATED),
        Citation("c", "no-such-paper", "   "),
    ], documents=docs)
    assert result["consistent"] == []
    assert [(c.status, c.reason) for c in result["inconsistent"]] == [
        ("not_found", "empty_quote"), ("not_found", "unknown_document"),
        ("not_found", "empty_quote")]


def test_misattributed_is_inconsistent_unless_treated_as_consistent(
        store: InMemoryDocumentStore) -> None:
    script, _, _ = _script(store)
    moved = [Citation("c", script.cited, script.misattributed)]
    docs = store.filter_documents()
    assert CitationConsistencyChecker().run(citations=moved, documents=docs)["inconsistent"]
    lenient = CitationConsistencyChecker(treat_misattributed_as_consistent=True)
    kept = lenient.run(citations=moved, documents=docs)["consistent"]
    assert [c.status for c in kept] == ["misattributed"]


def test_no_documents_leaves_citations_unverifiable_never_not_found() -> None:
    result = CitationConsistencyChecker().run(
        citations=[Citation("c", "paper", "a quote")], documents=[])
    assert [c.status for c in result["inconsistent"]] == ["unverifiable"]


def test_to_dict_from_dict_and_a_pipeline_yaml_round_trip() -> None:
    checker = CitationConsistencyChecker(treat_misattributed_as_consistent=True,
                                         judge_model="openai/gpt-4o-mini", position_base=1,
                                         id_keys=["paper_id"])
    data = checker.to_dict()
    assert data["init_parameters"]["judge_model"] == "openai/gpt-4o-mini"
    again = CitationConsistencyChecker.from_dict(data)
    assert again.to_dict() == data
    pipe = Pipeline()
    pipe.add_component("checker", checker)
    pipe.add_component("replies", ReplyCitationChecker(position_base=0))
    loaded = Pipeline.loads(pipe.dumps())
    assert loaded.get_component("checker").to_dict() == data
    assert loaded.get_component("replies").position_base == 0


def test_a_judge_given_as_a_litellm_model_string_judges_over_http(
        openai_server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    verdict = '{"verdict": "supports", "confidence": 0.9, "reasoning": "scripted"}'
    openai_server.responder = lambda body: Reply(verdict, 50, 10)
    checker = CitationConsistencyChecker(judge_model="openai/test-judge",
                                         judge_api_base=openai_server.base_url)
    docs = [Document(content=text, meta={"file_name": name}) for name, text in PAPERS.items()]
    name = next(iter(PAPERS))
    honest = words(PAPERS[name], 0, 10)
    result = checker.run(citations=[Citation("claim", name, honest),
                                    Citation("claim", name, FABRICATED)], documents=docs)
    assert [c.status for c in result["consistent"]] == ["supports"]
    assert [c.status for c in result["inconsistent"]] == ["not_found"]
    assert len(openai_server.requests) == 1  # the fabrication never reached the judge


# --- a real RAG pipeline -----------------------------------------------------------------------

@pytest.fixture
def instrumented() -> Iterator[Any]:
    """The OpenInference Haystack instrumentor, installed for one test, then removed."""
    from openinference.instrumentation.haystack import HaystackInstrumentor

    instrumentor = HaystackInstrumentor()
    yield instrumentor
    instrumentor.uninstrument()


def test_reply_checker_in_a_rag_pipeline_gives_the_right_verdicts(
        store: InMemoryDocumentStore, openai_server: FakeOpenAI) -> None:
    script, honest, other = _script(store)
    for text in (script.json_answer(), f"```json\n{script.json_answer()}\n```",
                 script.inline_answer()):
        answer_with(openai_server, text)
        out = rag_pipeline(store, openai_server).run(
            _inputs(script))
        _assert_three_verdicts(out["checker"], script, honest, other)
        assert out["checker"]["replies"][0].text == text  # the replies pass through


def test_reply_checker_in_an_async_pipeline_gives_the_right_verdicts(
        store: InMemoryDocumentStore, openai_server: FakeOpenAI) -> None:
    """Haystack 3 runs any pipeline asynchronously; the checkers' run_async is awaited."""
    script, honest, other = _script(store)
    answer_with(openai_server, script.json_answer())
    out = asyncio.run(rag_pipeline(store, openai_server).run_async(_inputs(script)))
    _assert_three_verdicts(out["checker"], script, honest, other)


def test_pipeline_spans_and_audit_spans_share_one_trace_in_phoenix(
        store: InMemoryDocumentStore, openai_server: FakeOpenAI, phoenix: PhoenixServer,
        instrumented: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    script, honest, other = _script(store)
    answer_with(openai_server, script.json_answer())
    name = project()
    with phoenix_provider(phoenix, name) as provider:
        monkeypatch.setattr("opentelemetry.trace._TRACER_PROVIDER", provider)
        instrumented.instrument(tracer_provider=provider)
        out = rag_pipeline(store, openai_server).run(
            _inputs(script))
        _assert_three_verdicts(out["checker"], script, honest, other)
        provider.force_flush()
        spans = read_trace(phoenix, name, expected_checks=3)
    parent = one_trace_with_audit_inside(spans)
    summary = sorted((s["name"], s["span_kind"]) for s in spans)
    assert "ReplyCitationChecker" in parent["name"], summary  # the checker component's span
    assert any(s["span_kind"] == "LLM" and "OpenAIChatGenerator" in s["name"]
               for s in spans), summary  # the generator's call, in the same trace
    assert any(s["span_kind"] == "RETRIEVER" for s in spans), summary
    checks = checks_by_quote(spans)
    assert checks[script.honest]["citation.gate.result"] == "found"
    assert checks[script.honest]["citation.gate.match.document_id"] == honest.id
    assert checks[FABRICATED]["citation.gate.reason"] == "no_match"
    assert checks[script.honest]["citation.document.resolution"] == "stem"
    assert checks[FABRICATED]["citation.document.group_size"] >= 1
    assert checks[script.misattributed]["citation.gate.source_document_ids"] == [other.id]
