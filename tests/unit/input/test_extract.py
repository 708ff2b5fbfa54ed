"""Extraction of citations and documents from the shapes RAG apps and model APIs return."""

from __future__ import annotations

import re
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import pytest

from vcg_otel.audit import Auditor, Citation, Outcome
from vcg_otel.extract import Budget, document_id, extract_citations, extract_documents
from vcg_otel.reading import generic as extract_module

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


def test_a_cohere_span_citing_two_sources_gives_two_citations_of_the_span() -> None:
    response = SimpleNamespace(message=SimpleNamespace(citations=[
        {"start": 0, "end": 13, "text": "Accuracy rose",
         "sources": [{"type": "document", "id": "doc-0", "document": {"text": DOC}},
                     {"type": "document", "id": "doc-1", "document": {"text": DOC}}]},
    ]))
    got = extract_citations(response)
    assert [(c.claim, c.document_id, c.quote) for c in got] == [
        ("Accuracy rose", "doc-0", None), ("Accuracy rose", "doc-1", None)]
    v1 = {"text": "x", "citations": [{"start": 0, "end": 1, "text": "x",
                                      "document_ids": ["a", "b", "a"]}]}
    assert [c.document_id for c in extract_citations(v1)] == ["a", "b"]


def test_an_openai_file_citation_claims_the_sentence_carrying_it() -> None:
    openai = pytest.importorskip("openai")
    del openai
    from openai.types.responses.response_output_text import AnnotationFileCitation

    text = "Accuracy rose by 4.2%. Costs are unchanged."
    block = {"type": "output_text", "text": text, "annotations": [
        AnnotationFileCitation(type="file_citation", file_id="file-abc", filename="paper.pdf",
                               index=22).model_dump()]}
    (c,) = extract_citations({"output": [{"type": "message", "content": [block]}]})
    assert (c.claim, c.document_id, c.quote) == ("Accuracy rose by 4.2%.", "file-abc", None)
    no_offsets = {"content": text, "annotations": [{"type": "file_citation", "file_id": "f"}]}
    (whole,) = extract_citations(no_offsets)  # kept, claiming the whole text
    assert (whole.claim, whole.document_id) == (text, "f")


def test_an_answer_with_numbered_markers_gives_one_citation_per_marker() -> None:
    answer = ("The reranker improves accuracy by 4.2% [1][2]. It also cures cancer [7]. "
              'Here "improves accuracy" is quoted nowhere.')
    got = extract_citations(answer)
    assert [(c.claim, c.document_id, c.quote) for c in got] == [
        ("The reranker improves accuracy by 4.2%.", "1", None),
        ("The reranker improves accuracy by 4.2%.", "2", None),
        ("It also cures cancer.", "7", None)]
    docs = {f"d{i}": DOC for i in range(5)}
    report = Auditor().audit(got, docs)
    assert [r.outcome for r in report.results] == [
        Outcome.UNVERIFIABLE, Outcome.UNVERIFIABLE, Outcome.UNKNOWN_SOURCE]  # no judge
    # a mixed answer: the quote and the marker are both audited (issue 20, item 3)
    quoted = extract_citations('It "improves accuracy by 4.2%" [d1]. Also [2].')
    assert [(c.document_id, c.quote) for c in quoted] == [("d1", "improves accuracy by 4.2%"),
                                                          ("2", None)]


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


# --- bounded work (issue 10: the host never waits) ------------------------------------------


class _Counted:
    """A citation as an object that counts how often its attributes are read."""

    reads = 0

    def __init__(self) -> None:
        self.claim, self.quote, self.doc_id = "c", "improves accuracy", "d1"

    def __getattribute__(self, name: str) -> Any:
        type(self).reads += 1
        return object.__getattribute__(self, name)


def test_a_result_reusing_one_sub_list_is_read_once_not_n_to_the_depth() -> None:
    leaf = _Counted()
    nested: Any = [leaf]
    for _ in range(6):
        nested = [nested] * 5  # 15,625 paths to one leaf
    _Counted.reads = 0
    got = extract_citations(nested)
    assert [(c.quote, c.document_id) for c in got] == [("improves accuracy", "d1")]
    assert _Counted.reads < 200  # one visit (~70 reads); before: one per path, 15,625 paths


class _ScanCounter:
    """Stands in for the sentence-end pattern and adds up the characters each call scans."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern, self.scanned = pattern, 0

    def finditer(self, text: str, pos: int = 0, endpos: int | None = None) -> Any:
        end = len(text) if endpos is None else endpos
        self.scanned += max(end - pos, 0)
        return self.pattern.finditer(text, pos, end)

    def search(self, text: str, pos: int = 0) -> re.Match[str] | None:
        m = self.pattern.search(text, pos)
        self.scanned += (m.end() if m else len(text)) - pos
        return m


@pytest.mark.parametrize("unit", ['x. "improves accuracy by 4.2%" [d1] y. ',
                                  '"improves accuracy by 4.2%" [d1] and ', 'a "bcd" [c]\n'])
def test_inline_quotes_are_found_in_one_pass_over_the_answer(
        unit: str, monkeypatch: pytest.MonkeyPatch) -> None:
    text = unit * 2_000
    counter = _ScanCounter(extract_module._SENTENCE_END)
    monkeypatch.setattr(extract_module, "_SENTENCE_END", counter)
    assert len(extract_citations(text)) == 2_000
    assert counter.scanned <= 3 * len(text)  # before: quadratic, ~1,000 times the text


def test_an_inline_claim_is_its_sentence_within_a_bounded_window() -> None:
    got = extract_citations('One. Two "alpha beta" [d1] three. Four.')
    assert got[0].claim == 'Two "alpha beta" [d1] three.'
    long = "word " * 10_000
    got = extract_citations(long + '"alpha beta" [d1]' + long)
    limit = 2 * extract_module.MAX_CLAIM_CONTEXT + len('"alpha beta" [d1]')
    assert '"alpha beta" [d1]' in got[0].claim and len(got[0].claim) <= limit


def test_a_huge_flat_list_stops_at_the_node_budget_and_says_so() -> None:
    good = {"claim": "c", "quote": "alpha beta", "doc_id": "d"}
    budget = Budget(nodes=1_000)
    assert extract_citations([0.1] * 100_000 + [good], budget) == []
    assert budget.exhausted == "nodes"
    budget = Budget(nodes=1_000)
    assert len(extract_citations([0.1] * 500 + [good], budget)) == 1
    assert budget.exhausted is None


def test_answer_text_beyond_the_character_budget_is_not_searched() -> None:
    budget = Budget(text_chars=100)
    text = "x" * 200 + '"alpha beta" [d1]'
    assert extract_citations(text, budget) == [] and budget.exhausted == "text_chars"
    assert len(extract_citations(text, Budget(text_chars=1_000))) == 1


def test_slow_attribute_reads_stop_at_the_time_budget() -> None:
    budget = Budget(seconds=-1.0)  # already past: the first node stops the walk
    assert extract_citations([[{"quote": "q", "doc_id": "d"}]], budget) == []
    assert budget.exhausted == "seconds"


def test_one_budget_bounds_citations_and_documents_together() -> None:
    budget = Budget(nodes=50)
    extract_citations([0.1] * 40, budget)
    assert extract_documents(["x"] * 40, budget) != {} and budget.exhausted == "nodes"


# --- hostile types and ids ------------------------------------------------------------------


def test_a_citation_type_that_is_a_dict_or_list_is_not_a_citation_type() -> None:
    # issue 12: TypeError: unhashable type from the Anthropic type check
    for kind in ({"a": 1}, ["char_location"], {"char_location"}):
        block = {"type": "text", "text": "t",
                 "citations": [{"type": kind, "cited_text": "q", "document_index": 0}]}
        assert extract_citations({"content": [block]}) == []
        annotated = {"content": "t", "annotations": [{"type": kind, "file_id": "f"}]}
        assert extract_citations(annotated) == []


def test_only_ids_become_document_ids() -> None:
    assert document_id("paper-1") == "paper-1" and document_id(3) == "3"
    for not_an_id in ({"body": "secret text"}, ["d"], 1.5, True, "", "a\nb", "x" * 513,
                      "tab\there", 10**30, object()):
        assert document_id(not_an_id) is None, not_an_id
    body = {"text": "The whole secret document body."}
    got = extract_citations([{"claim": "c", "quote": "q", "doc_id": body},
                             {"claim": "c", "quote": "q", "doc_id": "x" * 5000},
                             {"claim": "c", "quote": "q", "source_id": 7}])
    assert [c.document_id for c in got] == [None, None, "7"]  # quotes kept, no made-up id
    docs = extract_documents([{"id": {"k": "v"}, "text": "t"}, {"id": "a\nb", "text": "u"}])
    assert docs == {"0": "t", "1": "u"}


def test_inline_ids_hold_no_whitespace_or_control_characters() -> None:
    assert extract_citations('"alpha beta" [d\x1b\x07]') == []
    assert extract_citations('"alpha beta" [two words]') == []
    assert [c.document_id for c in extract_citations('"alpha beta" [doc-7]')] == ["doc-7"]
