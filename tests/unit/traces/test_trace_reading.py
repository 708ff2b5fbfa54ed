"""Reading a trace: OTLP/JSON ids and values, the answer span, documents in either shape."""

from __future__ import annotations

import base64
import json

from vcg_otel.traces.assemble import assemble, documents_of_span
from vcg_otel.traces.model import SpanRecord, TraceRecord
from vcg_otel.traces.otlp import parse_request, span_id_hex
from vcg_otel.traces.run import read_answer

TRACE = "5b8efff798038103d269b633813fc60c"


def span(span_id: str, kind: str, parent: str | None = "a" * 16, end: int | None = 2,
         **attributes: object) -> SpanRecord:
    return SpanRecord(TRACE, span_id, parent, kind.lower(), kind, 1, end, attributes)


def test_ids_are_read_as_hex_or_base64_and_a_zero_parent_is_none() -> None:
    raw = bytes.fromhex(TRACE)
    assert span_id_hex(TRACE.upper(), 32) == TRACE
    assert span_id_hex(base64.b64encode(raw).decode(), 32) == TRACE
    assert span_id_hex("0" * 16, 16) is None
    assert span_id_hex("", 16) is None


def test_an_otlp_json_span_keeps_its_times_kind_and_typed_attributes() -> None:
    request = {"resourceSpans": [{"scopeSpans": [{"spans": [{
        "traceId": TRACE, "spanId": "eee19b7ec3c1b174", "parentSpanId": "",
        "name": "query", "startTimeUnixNano": "1700000000000000000",
        "endTimeUnixNano": "0",
        "attributes": [
            {"key": "openinference.span.kind", "value": {"stringValue": "chain"}},
            {"key": "n", "value": {"intValue": "7"}},
            {"key": "tags", "value": {"arrayValue": {"values": [{"stringValue": "x"}]}}}],
    }]}]}]}
    (record,) = parse_request(request)
    assert (record.kind, record.parent_id, record.start_ns, record.open) == (
        "CHAIN", None, 1_700_000_000_000_000_000, True)
    assert record.attributes["n"] == 7 and record.attributes["tags"] == ["x"]


def test_documents_read_from_otlp_json_metadata_and_from_phoenix_flattened_metadata() -> None:
    otlp = span("b" * 16, "RETRIEVER", **{
        "retrieval.documents.0.document.content": "Text one.",
        "retrieval.documents.0.document.id": "d1",
        "retrieval.documents.0.document.metadata": json.dumps({"file_name": "one.txt"})})
    stored = span("b" * 16, "RETRIEVER", **{
        "retrieval.documents.0.document.content": "Text one.",
        "retrieval.documents.0.document.id": "d1",
        "retrieval.documents.0.document.metadata.file_name": "one.txt"})
    assert documents_of_span(otlp) == documents_of_span(stored) == [
        {"text": "Text one.", "id": "d1", "metadata": {"file_name": "one.txt"}}]


def test_a_document_without_an_id_takes_the_one_its_retriever_output_lists() -> None:
    listed = {"documents": [{"id": "uuid-1", "page_content": "Text one.", "metadata": {}}]}
    retriever = span("b" * 16, "RETRIEVER", **{
        "retrieval.documents.0.document.content": "Text one.",
        "output.value": json.dumps(listed)})
    assert documents_of_span(retriever)[0]["id"] == "uuid-1"


def test_the_answer_comes_from_the_llm_span_that_ended_last_and_cites() -> None:
    cited = json.dumps({"citations": [{"claim": "c", "quote": "Text one", "doc_id": "d1"}]})
    trace = TraceRecord(TRACE, [
        span("a" * 16, "CHAIN", parent=None, end=9, **{"input.value": "q?",
                                                        "output.value": "done"}),
        span("c" * 16, "LLM", end=3, **{"llm.output_messages.0.message.role": "assistant",
                                        "llm.output_messages.0.message.content": cited}),
        span("d" * 16, "LLM", end=5, **{"llm.output_messages.0.message.role": "assistant",
                                        "llm.output_messages.0.message.content": "no cites"}),
    ])
    found = assemble(trace, read_answer)
    assert found.answer_span is not None and found.answer_span.span_id == "c" * 16
    assert [c.quote for c in found.citations] == ["Text one"]
    assert found.question == "q?" and found.documents == []
