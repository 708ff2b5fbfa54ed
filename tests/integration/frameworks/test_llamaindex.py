"""LlamaIndex (llama-index-core 0.14): an audited query engine over a real index.

Real parts: SimpleDirectoryReader over the papers written as files (its metadata: file_name,
file_path, ...), SentenceSplitter (several nodes per file, UUID node ids, ``ref_doc_id``),
VectorStoreIndex with OpenAIEmbedding and LlamaIndex's LiteLLM LLM over HTTP
(tests/support/fake_openai.py, streaming included), the OpenInference LlamaIndex instrumentor, and a
real Phoenix. (LiteLLM, not OpenAILike: llama-index-llms-openai caps openai below 3, which the
Phoenix server needs.)
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("llama_index.core")
pytest.importorskip("llama_index.llms.litellm")
pytest.importorskip("llama_index.embeddings.openai")

from llama_index.core import SimpleDirectoryReader, VectorStoreIndex
from llama_index.core.base.response.schema import (
    AsyncStreamingResponse,
    Response,
    StreamingResponse,
)
from llama_index.core.node_parser import SentenceSplitter
from llama_index.embeddings.openai import OpenAIEmbedding
from llama_index.llms.litellm import LiteLLM
from support.fake_openai import FakeOpenAI
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

from vcg_otel.audit import AuditReport
from vcg_otel.integrations.llamaindex import AuditedQueryEngine


@pytest.fixture
def index(tmp_path: Path, openai_server: FakeOpenAI) -> VectorStoreIndex:
    """The papers as files, read, split and embedded the way LlamaIndex does it."""
    for name, text in PAPERS.items():
        (tmp_path / name).write_text(text)
    documents = SimpleDirectoryReader(str(tmp_path)).load_data()
    embed = OpenAIEmbedding(api_base=openai_server.base_url, api_key="sk-test",
                            model_name="text-embedding-3-small")
    return VectorStoreIndex.from_documents(
        documents, embed_model=embed,
        transformations=[SentenceSplitter(chunk_size=64, chunk_overlap=0)])


def _llm(server: FakeOpenAI) -> LiteLLM:
    return LiteLLM(model="openai/test-model", api_base=server.base_url, api_key="sk-test",
                   max_retries=0, timeout=10)


def _nodes(index: VectorStoreIndex, file_name: str) -> list[Any]:
    nodes = index.docstore.docs.values()
    return [n for n in nodes if n.metadata.get("file_name") == file_name]


def _script(index: VectorStoreIndex) -> tuple[Script, Any, Any]:
    """Cite paper 0 by its stem: a quote from its last node, a fabrication, one from paper 1."""
    first, second = list(PAPERS)[:2]
    honest_node = _nodes(index, first)[-1]
    other_node = _nodes(index, second)[0]
    script = Script(cited=first.removesuffix(".txt"),
                    honest=words(honest_node.get_content(), 1, 8),
                    misattributed=words(other_node.get_content(), 1, 8))
    return script, honest_node, other_node


def _assert_verdicts(report: AuditReport, script: Script, honest: Any, other: Any) -> None:
    by_quote = {r.citation.quote: r for r in report.results}
    good = by_quote[script.honest]
    assert good.outcome == "found" and good.gate is not None
    assert good.gate.document_id == honest.node_id  # the node, by the UUID LlamaIndex gave it
    assert honest.get_content()[good.gate.start:good.gate.end] == script.honest
    fabricated = by_quote[FABRICATED]
    assert fabricated.outcome == "not_found" and fabricated.gate is not None
    assert fabricated.gate.reason == "no_match"
    moved = by_quote[script.misattributed]
    assert moved.outcome == "misattributed" and moved.gate is not None
    assert moved.gate.source_document_ids == (other.node_id,)


@pytest.mark.parametrize("how", ["query", "aquery", "stream", "astream"])
def test_every_way_of_querying_is_audited(index: VectorStoreIndex, openai_server: FakeOpenAI,
                                          how: str) -> None:
    script, honest, other = _script(index)
    answer_with(openai_server, script.inline_answer())
    reports: list[AuditReport] = []
    streaming = how in ("stream", "astream")
    inner = index.as_query_engine(llm=_llm(openai_server), similarity_top_k=50,
                                  streaming=streaming)
    engine = AuditedQueryEngine(inner, on_report=reports.append)
    question = "What do the papers find?"
    if how == "query":
        response = engine.query(question)
        assert isinstance(response, Response)
        assert response.response == script.inline_answer()  # unchanged
    elif how == "aquery":
        response = asyncio.run(engine.aquery(question))
        assert isinstance(response, Response)
    elif how == "stream":
        streamed = engine.query(question)
        assert isinstance(streamed, StreamingResponse)
        assert reports == []  # nothing to audit until the stream has been read
        assert "".join(streamed.response_gen) == script.inline_answer()
    else:
        async def consume() -> str:
            streamed = await engine.aquery(question)
            assert isinstance(streamed, AsyncStreamingResponse)
            return "".join([t async for t in streamed.async_response_gen()])
        assert asyncio.run(consume()) == script.inline_answer()
    assert len(reports) == 1
    _assert_verdicts(reports[0], script, honest, other)


def test_a_node_is_found_under_its_file_name_stem_ref_doc_id_and_node_id(
        index: VectorStoreIndex, openai_server: FakeOpenAI) -> None:
    script, honest, _ = _script(index)
    reports: list[AuditReport] = []
    engine = AuditedQueryEngine(index.as_query_engine(llm=_llm(openai_server),
                                                      similarity_top_k=50),
                                on_report=reports.append)
    names = [honest.metadata["file_name"], script.cited, honest.ref_doc_id, honest.node_id,
             honest.metadata["file_path"]]
    answer_with(openai_server, " ".join(f'It says "{script.honest}" [{n}].' for n in names))
    engine.query("What?")
    assert [(r.outcome.value, r.gate.document_id if r.gate else None)
            for r in reports[0].results] == [("found", honest.node_id)] * len(names)


# --- traces ------------------------------------------------------------------------------------

@pytest.fixture
def instrumentor() -> Iterator[Any]:
    from openinference.instrumentation.llama_index import LlamaIndexInstrumentor

    instrumentor = LlamaIndexInstrumentor()
    yield instrumentor
    instrumentor.uninstrument()


def test_query_spans_and_audit_spans_share_one_trace_in_phoenix(
        index: VectorStoreIndex, openai_server: FakeOpenAI, phoenix: PhoenixServer,
        instrumentor: Any) -> None:
    script, honest, other = _script(index)
    answer_with(openai_server, script.inline_answer())
    name = project()
    with phoenix_provider(phoenix, name) as provider:
        instrumentor.instrument(tracer_provider=provider)
        engine = AuditedQueryEngine(
            index.as_query_engine(llm=_llm(openai_server), similarity_top_k=50),
            tracer_provider=provider)
        engine.query("What do the papers find?")
        provider.force_flush()
        spans = read_trace(phoenix, name, expected_checks=3)
    parent = one_trace_with_audit_inside(spans)
    summary = sorted((s["name"], s["span_kind"]) for s in spans)
    assert "AuditedQueryEngine" in parent["name"], summary
    # LlamaIndex parents its spans by its own span tree: the wrapped engine's retrieval,
    # synthesis and LLM spans and our audit all hang under AuditedQueryEngine's query span.
    by_id = {s["context"]["span_id"]: s for s in spans}
    llm_spans = [s for s in spans if s["span_kind"] == "LLM"]
    assert llm_spans, summary

    def ancestors(span: dict[str, Any]) -> list[str]:
        names = []
        while span.get("parent_id") in by_id:
            span = by_id[span["parent_id"]]
            names.append(span["name"])
        return names

    assert all(parent["name"] in ancestors(s) for s in llm_spans), summary
    checks = checks_by_quote(spans)
    assert checks[script.honest]["citation.gate.match.document_id"] == honest.node_id
    assert checks[FABRICATED]["citation.gate.reason"] == "no_match"
    assert checks[script.honest]["citation.document.resolution"] == "stem"
    assert checks[FABRICATED]["citation.document.group_size"] >= 1
    assert checks[script.misattributed]["citation.gate.source_document_ids"] == [other.node_id]
