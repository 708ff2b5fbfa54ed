"""Three small RAG apps as people write them -- LangChain, LlamaIndex, Haystack -- with no
vcg_otel inside: a retriever over the three papers and a model over HTTP
(support.fake_openai). The trace-audit tests run them under the OpenInference instrumentors
(the traces people already have) and, decorated, live, and compare what each audit finds.

Each app's model answers with the same four citations, built from the chunks the framework
itself produced: an honest quote, a fabricated one, a real quote from another paper cited as
the first (misattributed), and a quote-less citation of the first paper.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from opentelemetry.sdk.trace.id_generator import IdGenerator

from support.fake_openai import FakeOpenAI, Reply
from support.frameworks import FABRICATED, PAPERS, words

__all__ = ["APPS", "App", "CountingIds", "Quotes", "build", "live_outcomes", "run_traced",
           "trace_outcomes"]

FIRST, SECOND = list(PAPERS)[:2]
QUESTION = "What do the papers find?"


@dataclass(frozen=True)
class Quotes:
    """What the model cites: ``cited`` names the first paper the way the prompt showed it."""

    cited: str
    honest: str
    misattributed: str
    fabricated: str = FABRICATED
    quoteless_claim: str = "The first paper reports its results on a benchmark."

    def answer(self) -> str:
        """The model's reply: JSON citations, as a model asked for structured citations
        writes them."""
        return json.dumps({"answer": "Three findings, one without a quote.", "citations": [
            {"claim": "The paper says so.", "quote": self.honest, "doc_id": self.cited},
            {"claim": "The paper says more.", "quote": self.fabricated, "doc_id": self.cited},
            {"claim": "The paper says this too.", "quote": self.misattributed,
             "doc_id": self.cited},
            {"claim": self.quoteless_claim, "doc_id": self.cited},
        ]})

    def expected(self) -> dict[str, str]:
        """Gate-only outcome of each citation, keyed by quote (the claim for the quote-less)."""
        return {self.honest: "found", self.fabricated: "not_found",
                self.misattributed: "misattributed", self.quoteless_claim: "unverifiable"}


@dataclass
class App:
    """One app: ``handler(question)`` returns what the framework returns; ``instrument`` /
    ``uninstrument`` put the OpenInference instrumentor on and off a tracer provider."""

    name: str
    handler: Callable[[str], Any]
    quotes: Quotes
    instrumentor: Any

    def instrument(self, tracer_provider: Any) -> None:
        self.instrumentor.instrument(tracer_provider=tracer_provider)

    def uninstrument(self) -> None:
        self.instrumentor.uninstrument()


def _reply_with(server: FakeOpenAI, text: str) -> None:
    server.responder = lambda body: Reply(text, prompt_tokens=120, completion_tokens=60)


def langchain_app(server: FakeOpenAI, workdir: Path) -> App:
    from operator import itemgetter

    from langchain_core.documents import Document
    from langchain_core.output_parsers import StrOutputParser
    from langchain_core.prompts import ChatPromptTemplate
    from langchain_core.runnables import RunnableLambda, RunnablePassthrough
    from langchain_core.vectorstores import InMemoryVectorStore
    from langchain_openai import ChatOpenAI, OpenAIEmbeddings
    from openinference.instrumentation.langchain import LangChainInstrumentor

    embeddings = OpenAIEmbeddings(base_url=server.base_url, api_key="sk-test",
                                  model="test-embedding", check_embedding_ctx_length=False)
    store = InMemoryVectorStore(embeddings)
    store.add_documents([Document(page_content=text, metadata={"source": f"papers/{n}"})
                         for n, text in PAPERS.items()])
    llm = ChatOpenAI(base_url=server.base_url, api_key="sk-test", model="test-model",
                     max_retries=0, timeout=10)
    prompt = ChatPromptTemplate.from_messages([
        ("system", "Answer from these sources, citing them as JSON.\n\n{context}"),
        ("human", "{input}")])

    def sources(docs: list[Document]) -> str:
        return "\n\n".join(f"[{d.metadata['source']}] {d.page_content}" for d in docs)

    answer = (RunnableLambda(lambda x: {"input": x["input"], "context": sources(x["context"])})
              | prompt | llm | StrOutputParser())
    chain = (RunnablePassthrough.assign(
        context=itemgetter("input") | store.as_retriever(search_kwargs={"k": 3}))
        .assign(answer=answer))
    quotes = Quotes(cited=FIRST.removesuffix(".txt"), honest=words(PAPERS[FIRST], 2, 12),
                    misattributed=words(PAPERS[SECOND], 4, 12))
    _reply_with(server, quotes.answer())
    return App("langchain", lambda q: chain.invoke({"input": q}), quotes,
               LangChainInstrumentor())


def llamaindex_app(server: FakeOpenAI, workdir: Path) -> App:
    from llama_index.core import SimpleDirectoryReader, VectorStoreIndex
    from llama_index.core.node_parser import SentenceSplitter
    from llama_index.embeddings.openai import OpenAIEmbedding
    from llama_index.llms.litellm import LiteLLM
    from openinference.instrumentation.llama_index import LlamaIndexInstrumentor

    folder = workdir / "papers"
    folder.mkdir(exist_ok=True)
    for name, text in PAPERS.items():
        (folder / name).write_text(text)
    embed = OpenAIEmbedding(api_base=server.base_url, api_key="sk-test",
                            model_name="text-embedding-3-small")
    index = VectorStoreIndex.from_documents(
        SimpleDirectoryReader(str(folder)).load_data(), embed_model=embed,
        transformations=[SentenceSplitter(chunk_size=128, chunk_overlap=0)])
    nodes = list(index.docstore.docs.values())
    honest = [n for n in nodes if n.metadata.get("file_name") == FIRST][-1]
    other = next(n for n in nodes if n.metadata.get("file_name") == SECOND)
    quotes = Quotes(cited=FIRST.removesuffix(".txt"), honest=words(honest.get_content(), 1, 8),
                    misattributed=words(other.get_content(), 1, 8))
    llm = LiteLLM(model="openai/test-model", api_base=server.base_url, api_key="sk-test",
                  max_retries=0, timeout=10)
    engine = index.as_query_engine(llm=llm, similarity_top_k=200)  # every chunk
    _reply_with(server, quotes.answer())
    return App("llamaindex", engine.query, quotes, LlamaIndexInstrumentor())


def haystack_app(server: FakeOpenAI, workdir: Path) -> App:
    from haystack import Document, Pipeline
    from haystack.components.builders import ChatPromptBuilder
    from haystack.components.generators.chat import OpenAIChatGenerator
    from haystack.components.preprocessors import DocumentSplitter
    from haystack.components.retrievers.in_memory import InMemoryBM25Retriever
    from haystack.dataclasses import ChatMessage
    from haystack.document_stores.in_memory import InMemoryDocumentStore
    from haystack.utils import Secret
    from openinference.instrumentation.haystack import HaystackInstrumentor

    files = [Document(content=text, meta={"file_name": name}) for name, text in PAPERS.items()]
    chunks = DocumentSplitter(split_by="word", split_length=60).run(documents=files)["documents"]
    store = InMemoryDocumentStore()
    store.write_documents(chunks)
    honest = [d for d in chunks if d.meta["file_name"] == FIRST][1]
    other = next(d for d in chunks if d.meta["file_name"] == SECOND)
    quotes = Quotes(cited=FIRST.removesuffix(".txt"),
                    honest=words(honest.content or "", 3, 12),
                    misattributed=words(other.content or "", 5, 12))
    template = [ChatMessage.from_user(
        "Answer from these sources, quoting them verbatim as JSON citations.\n"
        "{% for doc in documents %}[{{ doc.meta.file_name }}] {{ doc.content }}\n{% endfor %}"
        "Question: {{ question }}")]
    pipe = Pipeline()
    pipe.add_component("retriever", InMemoryBM25Retriever(store, top_k=50))
    pipe.add_component("prompt", ChatPromptBuilder(template=template, required_variables="*"))
    pipe.add_component("llm", OpenAIChatGenerator(
        api_key=Secret.from_token("sk-test"), model="test-model",
        api_base_url=server.base_url, max_retries=0, timeout=10))
    pipe.connect("retriever.documents", "prompt.documents")
    pipe.connect("prompt.prompt", "llm.messages")

    def handler(question: str) -> Any:
        # BM25 must find both papers' chunks: ask with the words of both quotes
        words_asked = f"{question} {quotes.honest} {quotes.misattributed}"
        return pipe.run({"retriever": {"query": words_asked},
                         "prompt": {"question": question}},
                        include_outputs_from={"retriever"})

    _reply_with(server, quotes.answer())
    return App("haystack", handler, quotes, HaystackInstrumentor())


APPS: dict[str, Callable[[FakeOpenAI, Path], App]] = {
    "langchain": langchain_app, "llamaindex": llamaindex_app, "haystack": haystack_app}


def build(name: str, server: FakeOpenAI, workdir: Path) -> App:
    """The app ``name`` over ``server`` (skips the test when its framework is missing)."""
    import pytest

    needs = {"langchain": ("langchain_openai", "openinference.instrumentation.langchain"),
             "llamaindex": ("llama_index.llms.litellm",
                            "openinference.instrumentation.llama_index"),
             "haystack": ("haystack", "openinference.instrumentation.haystack")}
    for module in needs[name]:
        pytest.importorskip(module)
    return APPS[name](server, workdir)


class CountingIds(IdGenerator):
    """An SDK id generator with ids from a counter: the same trace ids on every run, so
    which shard a trace falls in is the same on every run too."""

    def __init__(self, seed: int) -> None:
        self.next = seed << 32

    def generate_span_id(self) -> int:
        self.next += 1
        return self.next & ((1 << 64) - 1) or 1

    def generate_trace_id(self) -> int:
        self.next += 1
        return (self.next * 0x9E3779B97F4A7C15) & ((1 << 128) - 1) or 1


def run_traced(app: App, exporter: Any, project: str, times: int = 1,
               id_generator: Any = None, question: str = QUESTION) -> list[str]:
    """Run ``app`` ``times`` under its OpenInference instrumentor, exporting with
    ``exporter`` (a span exporter) as Phoenix project ``project``; the trace ids (hex), in
    the order run."""
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    roots: list[str] = []

    class Roots(SpanProcessor):
        def on_end(self, span: ReadableSpan) -> None:
            if span.parent is None and span.context is not None:
                roots.append(format(span.context.trace_id, "032x"))

    kwargs = {"id_generator": id_generator} if id_generator is not None else {}
    provider = TracerProvider(resource=Resource({"openinference.project.name": project}),
                              **kwargs)
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    provider.add_span_processor(Roots())
    app.instrument(provider)
    try:
        for _ in range(times):
            app.handler(question)
    finally:
        app.uninstrument()
        provider.shutdown()
    return roots


def live_outcomes(app: App) -> dict[str, tuple[str, Any]]:
    """The same app's handler decorated live: (verdict, matched chunk) by quote (or claim)."""
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from vcg_otel import audited_citations

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    audited_citations(tracer_provider=provider)(app.handler)("What do the papers find?")
    return {str(a.get("citation.quote") or a["citation.claim"]):
            (str(a["citation.verdict"]), a.get("citation.gate.match.document_id"))
            for a in (dict(s.attributes or {}) for s in exporter.get_finished_spans()
                      if s.name == "citation.check")}


def trace_outcomes(records: list[dict[str, Any]]) -> dict[str, tuple[str, Any]]:
    """What a trace audit's ``--out`` records say, in :func:`live_outcomes`' shape."""
    return {r["citation"].get("quote") or r["citation"]["claim"]:
            (r["outcome"], (r.get("gate") or {}).get("document_id")) for r in records}
