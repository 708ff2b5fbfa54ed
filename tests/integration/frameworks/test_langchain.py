"""LangChain (langchain-core 1.8, langchain-openai 1.7): auditing an LCEL RAG chain.

Real parts: InMemoryVectorStore (UUID ids) over OpenAIEmbeddings and ChatOpenAI, both calling
tests/support/fake_openai.py over HTTP, an LCEL retrieval chain shaped like
``create_retrieval_chain`` (``{"input", "context", "answer"}``), the structured-output citation
pattern from LangChain's documentation, the OpenInference LangChain instrumentor, and a real
Phoenix.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from operator import itemgetter
from typing import Any

import pytest

pytest.importorskip("langchain_core")
pytest.importorskip("langchain_openai")

from langchain_core.documents import Document
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import Runnable, RunnableLambda, RunnablePassthrough
from langchain_core.vectorstores import InMemoryVectorStore
from langchain_openai import ChatOpenAI, OpenAIEmbeddings
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pydantic import BaseModel, Field
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

from vcg_otel import audited_citations
from vcg_otel.audit import AuditReport
from vcg_otel.integrations.langchain import CitationAudit, in_langchain_trace

PROMPT = ChatPromptTemplate.from_messages([
    ("system", "Answer from these sources. Quote them verbatim and cite each quote as "
               '"quote" [source].\n\n{context}'),
    ("human", "{input}"),
])


class QuotedCitation(BaseModel):
    """LangChain's citation how-to: the source's position in the context list and a quote."""

    source_id: int = Field(description="The integer ID of a SPECIFIC source")
    quote: str = Field(description="The VERBATIM quote from the specified source")


class CitedAnswer(BaseModel):
    answer: str
    citations: list[QuotedCitation]


def _sources(docs: list[Document]) -> str:
    return "\n\n".join(f"[{d.metadata['source']}] {d.page_content}" for d in docs)


def _numbered(docs: list[Document]) -> str:
    return "\n\n".join(f"Source ID: {i}\nArticle Snippet: {d.page_content}"
                       for i, d in enumerate(docs))


@pytest.fixture
def rag(openai_server: FakeOpenAI) -> dict[str, Any]:
    """A vector store of the three papers (ids by the store) and the LCEL pieces over HTTP."""
    embeddings = OpenAIEmbeddings(base_url=openai_server.base_url, api_key="sk-test",
                                  model="test-embedding", check_embedding_ctx_length=False)
    store = InMemoryVectorStore(embeddings)
    ids = store.add_documents([Document(page_content=text, metadata={"source": f"papers/{n}"})
                               for n, text in PAPERS.items()])
    llm = ChatOpenAI(base_url=openai_server.base_url, api_key="sk-test", model="test-model",
                     max_retries=0, timeout=10)
    retriever = store.as_retriever(search_kwargs={"k": 3})
    return {"store": store, "ids": ids, "llm": llm, "retriever": retriever}


def retrieval_chain(rag: dict[str, Any]) -> Runnable[Any, Any]:
    """``create_retrieval_chain``'s shape, in LCEL: ``{"input", "context", "answer"}``."""
    answer = (RunnableLambda(lambda x: {"input": x["input"], "context": _sources(x["context"])})
              | PROMPT | rag["llm"] | StrOutputParser())
    return (RunnablePassthrough.assign(context=itemgetter("input") | rag["retriever"])
            .assign(answer=answer))


def _script() -> Script:
    first, second = list(PAPERS)[:2]
    return Script(cited=first.removesuffix(".txt"), honest=words(PAPERS[first], 2, 12),
                  misattributed=words(PAPERS[second], 4, 12))


def _assert_verdicts(report: AuditReport, script: Script, rag: dict[str, Any]) -> None:
    by_quote = {r.citation.quote: r for r in report.results}
    honest = by_quote[script.honest]
    assert honest.outcome == "found"
    assert honest.gate is not None and honest.gate.document_id == rag["ids"][0]  # store's UUID
    assert getattr(honest.gate, "resolution", None) == "stem"
    fabricated = by_quote[FABRICATED]
    assert fabricated.outcome == "not_found" and fabricated.gate is not None
    assert fabricated.gate.reason == "no_match"
    moved = by_quote[script.misattributed]
    assert moved.outcome == "misattributed" and moved.gate is not None
    assert moved.gate.source_document_ids == (rag["ids"][1],)


@pytest.mark.parametrize("how", ["invoke", "ainvoke", "batch", "stream", "astream"])
def test_every_way_of_running_the_chain_is_audited(rag: dict[str, Any], how: str,
                                                   openai_server: FakeOpenAI) -> None:
    script = _script()
    answer_with(openai_server, script.inline_answer())
    reports: list[AuditReport] = []
    chain = retrieval_chain(rag) | CitationAudit(on_report=reports.append)
    question = {"input": "What do the papers find?"}
    if how == "invoke":
        outputs = [chain.invoke(question)]
    elif how == "ainvoke":
        outputs = [asyncio.run(chain.ainvoke(question))]
    elif how == "batch":
        outputs = chain.batch([question, question])
    elif how == "stream":
        chunks = list(chain.stream(question))
        assert len(chunks) > 2  # chunks still flow one by one through the audit step
        outputs = [chunks]
    else:
        async def consume() -> list[Any]:
            return [c async for c in chain.astream(question)]
        outputs = [asyncio.run(consume())]
    assert len(reports) == len(outputs)
    for report in reports:
        _assert_verdicts(report, script, rag)
    if how in ("invoke", "ainvoke", "batch"):  # the output passes through unchanged
        assert all(o["answer"] == script.inline_answer() for o in outputs)


def test_structured_output_citations_by_position_in_the_context_list(
        rag: dict[str, Any], openai_server: FakeOpenAI) -> None:
    """The how-to's pattern: ``source_id`` is a 0-based position in the formatted context."""
    docs = rag["retriever"].invoke("anything")  # the order the prompt will show
    honest = words(docs[2].page_content, 3, 10)
    elsewhere = words(docs[1].page_content, 3, 10)
    openai_server.responder = lambda body: _reply(CitedAnswer(answer="Two findings.", citations=[
        QuotedCitation(source_id=2, quote=honest),
        QuotedCitation(source_id=2, quote=FABRICATED),
        QuotedCitation(source_id=0, quote=elsewhere),
    ]).model_dump_json())
    structured = rag["llm"].with_structured_output(CitedAnswer)
    answer = (RunnableLambda(lambda x: {"input": x["input"], "context": _numbered(x["context"])})
              | PROMPT | structured)
    chain = (RunnablePassthrough.assign(context=itemgetter("input") | rag["retriever"])
             .assign(answer=answer))
    reports: list[AuditReport] = []
    out = (chain | CitationAudit(position_base=0, on_report=reports.append)).invoke(
        {"input": "anything"})
    assert isinstance(out["answer"], CitedAnswer)
    outcomes = [(r.outcome.value, getattr(r.gate, "resolution", None)) for r in reports[0].results]
    assert outcomes == [("found", "position"), ("not_found", "position"),
                        ("misattributed", "position")]
    assert reports[0].results[0].citation.claim == "Two findings."  # the answer is the claim


def _reply(text: str) -> Any:
    from support.fake_openai import Reply
    return Reply(text, prompt_tokens=100, completion_tokens=40)


# --- traces ------------------------------------------------------------------------------------

@pytest.fixture
def instrumentor() -> Iterator[Any]:
    from openinference.instrumentation.langchain import LangChainInstrumentor

    instrumentor = LangChainInstrumentor()
    yield instrumentor
    instrumentor.uninstrument()


def test_a_decorated_step_inside_a_chain_is_orphaned_unless_put_in_the_chain_trace(
        rag: dict[str, Any], openai_server: FakeOpenAI, instrumentor: Any) -> None:
    """Why CitationAudit and in_langchain_trace exist: the OpenInference LangChain
    instrumentor never makes its spans current, so a span started inside a chain step sees
    the context from outside the chain (here: none) and starts a new trace."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    instrumentor.instrument(tracer_provider=provider)
    answer_with(openai_server, _script().inline_answer())

    @audited_citations(tracer_provider=provider)
    def audit(output: dict[str, Any]) -> dict[str, Any]:
        return output

    def audit_trace() -> tuple[int, Any]:
        spans = exporter.get_finished_spans()
        exporter.clear()
        mine = next(s for s in spans if s.name == "citation_audit")
        return len({s.context.trace_id for s in spans}), mine.parent

    retrieval_chain(rag).pipe(RunnableLambda(audit)).invoke({"input": "q"})
    traces, parent = audit_trace()
    assert (traces, parent) == (2, None)  # orphaned: a trace of its own
    retrieval_chain(rag).pipe(RunnableLambda(in_langchain_trace(audit))).invoke({"input": "q"})
    traces, parent = audit_trace()
    assert traces == 1 and parent is not None
    (retrieval_chain(rag) | CitationAudit(tracer_provider=provider)).invoke({"input": "q"})
    traces, parent = audit_trace()
    assert traces == 1 and parent is not None


def test_chain_spans_and_audit_spans_share_one_trace_in_phoenix(
        rag: dict[str, Any], openai_server: FakeOpenAI, phoenix: PhoenixServer,
        instrumentor: Any) -> None:
    script = _script()
    answer_with(openai_server, script.inline_answer())
    name = project()
    with phoenix_provider(phoenix, name) as provider:
        instrumentor.instrument(tracer_provider=provider)
        chain = retrieval_chain(rag) | CitationAudit(tracer_provider=provider)
        chain.invoke({"input": "What do the papers find?"})
        provider.force_flush()
        spans = read_trace(phoenix, name, expected_checks=3)
    parent = one_trace_with_audit_inside(spans)
    summary = sorted((s["name"], s["span_kind"]) for s in spans)
    assert parent["name"] == "CitationAudit", summary  # the chain step's own span
    assert any(s["name"] == "ChatOpenAI" and s["span_kind"] == "LLM" for s in spans), summary
    assert any(s["span_kind"] == "RETRIEVER" for s in spans), summary
    checks = checks_by_quote(spans)
    assert checks[script.honest]["citation.gate.match.document_id"] == rag["ids"][0]
    assert checks[FABRICATED]["citation.gate.reason"] == "no_match"
    assert checks[script.honest]["citation.document.resolution"] == "stem"
    assert checks[FABRICATED]["citation.document.group_size"] >= 1
    assert checks[script.misattributed]["citation.gate.result"] == "misattributed"
