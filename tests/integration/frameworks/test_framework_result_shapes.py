"""The result shapes frameworks return, read by default: citations from the answer wherever the
framework put it, documents wherever it put them, and an answer that cites with no documents
at all recorded as ``no_documents`` (citations ``unverifiable``, never ``not_found``).

Framework objects are the frameworks' own classes (each test skips without its framework).
"""

from __future__ import annotations

import json

import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from support.frameworks import FABRICATED, PAPERS, words

from vcg_otel.audit import Auditor, Citation
from vcg_otel.config import TelemetryConfig
from vcg_otel.documents import DocumentSet
from vcg_otel.integrations.answers import answer_citations, citations_in_text
from vcg_otel.scope import AuditScope

NAME, TEXT = next(iter(PAPERS.items()))
QUOTE = words(TEXT, 2, 10)
INLINE = f'The paper reports "{QUOTE}" [{NAME}], and "{FABRICATED}" [{NAME}].'
CITATIONS = [{"claim": "c", "quote": QUOTE, "doc_id": NAME}]


def _quotes(found: list[Citation]) -> list[str | None]:
    return [c.quote for c in found]


def test_json_answers_fenced_or_not_and_inline_quotes() -> None:
    body = json.dumps({"answer": "a", "citations": CITATIONS})
    assert _quotes(citations_in_text(body)) == [QUOTE]
    assert _quotes(citations_in_text(f"```json\n{body}\n```")) == [QUOTE]
    assert _quotes(citations_in_text(INLINE)) == [QUOTE, FABRICATED]
    assert citations_in_text("{not json, and no quotes}") == []


@pytest.mark.parametrize("result", [
    {"input": "q", "context": [], "answer": INLINE},             # create_retrieval_chain
    {"query": "q", "result": INLINE, "source_documents": []},    # RetrievalQA
    {"llm": {"replies": [INLINE]}},                              # a Haystack pipeline output
])
def test_answers_under_the_keys_frameworks_use(result: object) -> None:
    assert _quotes(answer_citations(result)) == [QUOTE, FABRICATED]


def test_langchain_messages_and_structured_citations_get_the_answer_as_claim() -> None:
    messages = pytest.importorskip("langchain_core.messages")
    assert _quotes(answer_citations(messages.AIMessage(content=INLINE))) == [QUOTE, FABRICATED]
    structured = {"answer": "The reranker helps.",
                  "citations": [{"source_id": 0, "quote": QUOTE}]}
    found = answer_citations({"input": "q", "context": [], "answer": structured})
    assert [(c.document_id, c.claim) for c in found] == [("0", "The reranker helps.")]


def test_llamaindex_responses() -> None:
    pytest.importorskip("llama_index.core")
    from llama_index.core.base.response.schema import (
        PydanticResponse,
        Response,
        StreamingResponse,
    )
    from pydantic import BaseModel

    class Cited(BaseModel):
        answer: str
        citations: list[dict[str, str]]

    assert _quotes(answer_citations(Response(INLINE))) == [QUOTE, FABRICATED]
    streamed = StreamingResponse(response_gen=iter([INLINE[:20], INLINE[20:]]))
    streamed.get_response()  # consumed: the text is in response_txt
    assert _quotes(answer_citations(streamed)) == [QUOTE, FABRICATED]
    pydantic = PydanticResponse(Cited(answer="a", citations=CITATIONS))
    assert _quotes(answer_citations(pydantic)) == [QUOTE]


def test_haystack_generated_answers_and_chat_replies() -> None:
    pytest.importorskip("haystack")
    from haystack import Document
    from haystack.dataclasses import ChatMessage, GeneratedAnswer

    doc = Document(content=TEXT, meta={"file_name": NAME})
    answer = GeneratedAnswer(data=INLINE, query="q", documents=[doc], meta={})
    output = {"llm": {"replies": [ChatMessage.from_assistant(INLINE)]},
              "answer_builder": {"answers": [answer]}}
    assert _quotes(answer_citations(answer)) == [QUOTE, FABRICATED]
    assert _quotes(answer_citations(output)) == [QUOTE, FABRICATED]
    assert _gate_all(output) == ["found", "not_found"]


def _gate_all(result: object) -> list[str]:
    docs = DocumentSet.from_sources(result)
    return [str(docs.gate(c)) for c in answer_citations(result)]


def test_an_answer_citing_with_no_documents_is_no_documents_and_unverifiable() -> None:
    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    reader = InMemoryMetricReader()
    meter_provider = MeterProvider(metric_readers=[reader])
    citations = answer_citations({"answer": INLINE, "context": []})
    scope = AuditScope(Auditor(), TelemetryConfig(tracer_provider=tracer_provider,
                                                  meter_provider=meter_provider))
    report = scope.run(citations, DocumentSet.from_sources({"answer": INLINE, "context": []}))
    assert report is not None
    assert [r.outcome.value for r in report.results] == ["unverifiable", "unverifiable"]
    audit = next(s for s in exporter.get_finished_spans() if s.name == "citation_audit")
    assert audit.attributes is not None
    assert audit.attributes["citation.audit.status"] == "no_documents"
    assert audit.attributes["citation.audit.document_count"] == 0
    metrics = reader.get_metrics_data()
    assert metrics is not None
    counted = [m for rm in metrics.resource_metrics for sm in rm.scope_metrics
               for m in sm.metrics if m.name == "citation.audit.no_documents"]
    assert [p.value for p in counted[0].data.data_points] == [1]  # type: ignore[union-attr]


def test_importing_vcg_otel_and_its_integrations_package_loads_no_framework() -> None:
    import subprocess
    import sys

    code = ("import sys, vcg_otel, vcg_otel.integrations, vcg_otel.documents, "
            "vcg_otel.integrations.answers\n"
            "heavy = {'haystack', 'langchain_core', 'llama_index', 'litellm', 'phoenix'}\n"
            "print(sorted(heavy.intersection(m.split('.')[0] for m in sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, check=True)
    assert out.stdout.strip() == "[]"
