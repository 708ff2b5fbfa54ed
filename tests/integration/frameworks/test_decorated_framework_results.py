"""``@audited_citations`` around a handler that returns what a framework returns: the documents
and the answer are found where the framework put them, cited identifiers resolve to the
framework's chunks, and the span says how.

Framework objects are the frameworks' own classes (each test skips without its framework).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from support.frameworks import FABRICATED, PAPERS, words

from vcg_otel import audited_citations

FIRST, SECOND = list(PAPERS)[:2]
HONEST = words(PAPERS[FIRST], 2, 10)
ELSEWHERE = words(PAPERS[SECOND], 2, 10)
STEM = FIRST.removesuffix(".txt")
INLINE = (f'It says "{HONEST}" [{STEM}], "{FABRICATED}" [{STEM}] and "{ELSEWHERE}" '
          f"[{STEM}].")


class Telemetry:
    def __init__(self) -> None:
        self.exporter = InMemorySpanExporter()
        self.tracer_provider = TracerProvider()
        self.tracer_provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.reader = InMemoryMetricReader()
        self.meter_provider = MeterProvider(metric_readers=[self.reader])

    def audit(self, fn: Any) -> Any:
        return audited_citations(tracer_provider=self.tracer_provider,
                                 meter_provider=self.meter_provider)(fn)

    def checks(self) -> dict[str, dict[str, Any]]:
        return {s.attributes["citation.quote"]: dict(s.attributes)  # type: ignore[index]
                for s in self.exporter.get_finished_spans() if s.name == "citation.check"}

    def audit_span(self) -> dict[str, Any]:
        span = next(s for s in self.exporter.get_finished_spans() if s.name == "citation_audit")
        return dict(span.attributes or {})


@pytest.fixture
def telemetry() -> Iterator[Telemetry]:
    yield Telemetry()


def _three_verdicts(telemetry: Telemetry, honest_chunk: str) -> None:
    checks = telemetry.checks()
    assert checks[HONEST]["citation.gate.result"] == "found"
    assert checks[HONEST]["citation.gate.match.document_id"] == honest_chunk
    assert checks[HONEST]["citation.document.resolution"] == "stem"
    assert checks[FABRICATED]["citation.gate.reason"] == "no_match"
    assert checks[ELSEWHERE]["citation.gate.result"] == "misattributed"


def test_a_langchain_retrieval_chain_result(telemetry: Telemetry) -> None:
    documents = pytest.importorskip("langchain_core.documents")
    docs = [documents.Document(page_content=text, metadata={"source": f"papers/{name}"},
                               id=f"uuid-{i}") for i, (name, text) in enumerate(PAPERS.items())]

    @telemetry.audit
    def answer(question: str) -> dict[str, Any]:
        return {"input": question, "context": docs, "answer": INLINE}

    answer("q")
    _three_verdicts(telemetry, "uuid-0")


def test_a_llamaindex_response(telemetry: Telemetry) -> None:
    pytest.importorskip("llama_index.core")
    from llama_index.core.base.response.schema import Response
    from llama_index.core.schema import NodeWithScore, TextNode

    nodes = [NodeWithScore(node=TextNode(text=text, metadata={"file_name": name}), score=1.0)
             for name, text in PAPERS.items()]

    @telemetry.audit
    def answer(question: str) -> Any:
        return Response(INLINE, source_nodes=nodes)

    answer("q")
    _three_verdicts(telemetry, nodes[0].node.node_id)


def test_a_haystack_pipeline_output(telemetry: Telemetry) -> None:
    pytest.importorskip("haystack")
    from haystack import Document
    from haystack.dataclasses import ChatMessage

    docs = [Document(content=text, meta={"file_name": name}) for name, text in PAPERS.items()]

    @telemetry.audit
    def answer(question: str) -> dict[str, Any]:
        return {"retriever": {"documents": docs},
                "llm": {"replies": [ChatMessage.from_assistant(INLINE)]}}

    answer("q")
    _three_verdicts(telemetry, docs[0].id)


def test_citations_without_any_documents_are_unverifiable_and_counted(
        telemetry: Telemetry) -> None:
    @telemetry.audit
    def answer(question: str) -> dict[str, Any]:
        return {"input": question, "context": [], "answer": INLINE}

    answer("q")
    assert {c["citation.verdict"] for c in telemetry.checks().values()} == {"unverifiable"}
    assert telemetry.audit_span()["citation.audit.status"] == "no_documents"
    data = telemetry.reader.get_metrics_data()
    assert data is not None
    counted = [m for rm in data.resource_metrics for sm in rm.scope_metrics
               for m in sm.metrics if m.name == "citation.audit.no_documents"]
    assert [p.value for p in counted[0].data.data_points] == [1]  # type: ignore[union-attr]


def test_a_documents_extractor_may_name_the_metadata_key_that_holds_ids(
        telemetry: Telemetry) -> None:
    """The explicit override for an app whose ids live under its own key."""
    from vcg_otel.documents import DocumentSet

    docs = [{"text": text, "metadata": {"paper": name.removesuffix(".txt").upper()}}
            for name, text in PAPERS.items()]
    cited = FIRST.removesuffix(".txt").upper()

    @audited_citations(tracer_provider=telemetry.tracer_provider,
                       documents=lambda args, result: DocumentSet.from_sources(
                           args["docs"], id_keys=["paper"], position_base=1))
    def answer(question: str, docs: list[dict[str, Any]]) -> dict[str, Any]:
        return {"citations": [{"claim": "c", "quote": HONEST, "doc_id": cited}]}

    answer("q", docs)
    check = telemetry.checks()[HONEST]
    assert (check["citation.gate.result"], check["citation.document.resolution"]) == (
        "found", "id")
