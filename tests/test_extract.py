"""Extraction of citations and documents from the shapes RAG apps and model APIs return."""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from vcg_otel.audit import Auditor, Citation, Outcome
from vcg_otel.extract import extract_citations, extract_documents

DOC = "The reranker improves accuracy by 4.2% over the baseline."


def test_plain_dicts_with_aliases_and_a_citations_wrapper() -> None:
    items = [
        {"claim": "a", "quote": "q1", "doc_id": "d1"},
        {"claim": "b", "quote": "q2", "document_id": "d2", "extra": 1},
        {"claim": "c", "quote": "q3", "source_id": 3},
    ]
    for shape in (items, {"answer": "...", "citations": items},
                  SimpleNamespace(answer="...", citations=items)):
        got = extract_citations(shape)
        assert [(c.claim, c.quote, c.document_id) for c in got] == [
            ("a", "q1", "d1"), ("b", "q2", "d2"), ("c", "q3", "3")]


def test_dataclasses_and_pydantic_style_objects() -> None:
    @dataclass
    class Cite:
        claim: str
        quote: str
        doc_id: str

    class Model:  # pydantic models expose fields as attributes, like this
        def __init__(self) -> None:
            self.claim, self.quote, self.document_id = "m", "mq", "md"

    got = extract_citations([Cite("x", "xq", "xd"), Model()])
    assert [(c.claim, c.document_id) for c in got] == [("x", "xd"), ("m", "md")]


def test_anthropic_citation_blocks() -> None:
    message = {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Accuracy rose by 4.2%.", "citations": [
                {"type": "char_location", "cited_text": "improves accuracy by 4.2%",
                 "document_index": 0, "document_title": "paper",
                 "start_char_index": 13, "end_char_index": 38},
                {"type": "page_location", "cited_text": "over the baseline",
                 "document_index": 1, "start_page_number": 2, "end_page_number": 3},
            ]},
            {"type": "text", "text": " Plain text without citations."},
        ],
    }
    first, second = extract_citations(message)
    assert (first.claim, first.document_id, first.quote) == (
        "Accuracy rose by 4.2%.", "0", "improves accuracy by 4.2%")
    assert (first.start, first.end) == (13, 38)
    assert (second.document_id, second.start) == ("1", None)
    report = Auditor().audit([first], {"0": DOC})
    assert report.results[0].outcome is Outcome.FOUND  # offsets and quote both check out


def test_cohere_citations_are_unverifiable_not_found() -> None:
    response = SimpleNamespace(message=SimpleNamespace(citations=[
        {"start": 0, "end": 12, "text": "Accuracy rose",
         "sources": [{"type": "document", "id": "doc-0", "document": {"text": DOC}}]},
    ]))
    (c,) = extract_citations(response)
    assert (c.claim, c.document_id, c.quote, c.start) == ("Accuracy rose", "doc-0", None, None)
    assert Auditor().audit([c], {"doc-0": DOC}).results[0].outcome is Outcome.UNVERIFIABLE


def test_openai_file_citations_are_recorded_as_unverifiable() -> None:
    responses_api = {"output": [{"type": "message", "content": [
        {"type": "output_text", "text": "Accuracy rose [1].", "annotations": [
            {"type": "file_citation", "file_id": "file-abc", "filename": "paper.pdf",
             "index": 14}]}]}]}
    (c,) = extract_citations(responses_api)
    assert (c.document_id, c.quote) == ("file-abc", None)
    assert Auditor().audit([c], {"file-abc": DOC}).results[0].outcome is Outcome.UNVERIFIABLE


def test_inline_quotes_in_answer_text() -> None:
    answer = ('The method helps. It "improves accuracy by 4.2%" [paper]. '
              "Another claim cites \u201cgains vanish\u201d [blog]!")
    first, second = extract_citations(answer)
    assert (first.quote, first.document_id) == ("improves accuracy by 4.2%", "paper")
    assert first.claim == 'It "improves accuracy by 4.2%" [paper].'
    assert (second.quote, second.document_id) == ("gains vanish", "blog")


def test_nothing_auditable_yields_no_citations() -> None:
    for result in (None, 42, "no quotes here", {"answer": "x"}, [], object()):
        assert extract_citations(result) == []


def test_malformed_citation_lists_in_content_blocks_are_ignored() -> None:
    # found by atheris: a content block whose "citations" (or "annotations") is no list
    for bad in (-3, "abc", 1.5, {"quote": "q"}):
        result = {"content": [{"citations": bad, "annotations": bad, "text": "t"}]}
        assert extract_citations(result) == []


def test_deeply_nested_or_cyclic_results_do_not_recurse_forever() -> None:
    nested: Any = {"quote": "q", "doc_id": "d"}
    for _ in range(10_000):
        nested = [nested]
    assert extract_citations(nested) == []
    cyclic: list[Any] = []
    cyclic.append(cyclic)
    assert extract_citations(cyclic) == []


def test_documents_from_every_supported_shape() -> None:
    class LangChainDoc:
        def __init__(self, text: str, source: str) -> None:
            self.page_content, self.metadata, self.id = text, {"source": source}, None

    class LlamaNode:
        def __init__(self, node_id: str, text: str) -> None:
            self.node_id, self._text = node_id, text

        def get_content(self) -> str:
            return self._text

    class HaystackDoc:
        def __init__(self, doc_id: str, content: str) -> None:
            self.id, self.content = doc_id, content

    assert extract_documents({"a": "x", "b": "y"}) == {"a": "x", "b": "y"}
    assert extract_documents(["x", "y"]) == {"0": "x", "1": "y"}
    # a document without an id never overwrites one whose id equals its position
    assert extract_documents([{"id": "a", "text": "x"}, {"id": 2, "page_content": "y"},
                              {"content": "z"}]) == {"a": "x", "2": "y", "2#2": "z"}
    assert extract_documents([{"id": "a", "text": "x"}, {"id": 2, "page_content": "y"}]) == {
        "a": "x", "2": "y"}
    assert extract_documents([LangChainDoc("x", "s.pdf")]) == {"s.pdf": "x"}
    assert extract_documents([LlamaNode("n1", "x")]) == {"n1": "x"}
    assert extract_documents([SimpleNamespace(node=LlamaNode("n2", "y"), score=0.3)]) == {
        "n2": "y"}
    assert extract_documents([HaystackDoc("h1", "z")]) == {"h1": "z"}
    assert extract_documents({"documents": [{"id": "a", "content": "x"}]}) == {"a": "x"}
    assert extract_documents(None) == {} and extract_documents("text") == {}


def test_citation_objects_pass_through() -> None:
    c = Citation("claim", "d", "q")
    assert extract_citations([c]) == [c] and extract_citations(c) == [c]
