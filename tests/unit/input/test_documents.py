"""The document model: a citation finds its chunks under any identifier a prompt could show.

Documents are real arXiv abstracts (benchmarks/data), split into chunks by the frameworks' own
splitters where a framework is installed, held in the frameworks' own document classes.
"""

from __future__ import annotations

import json

import pytest
from support.paths import ROOT

from vcg_otel.audit import Citation
from vcg_otel.documents import DocumentSet, find_chunks
from vcg_otel.reading.walk import Budget

ABSTRACTS = json.loads(
    (ROOT / "benchmarks/data/arxiv_abstracts_295.json").read_text())
IDS = sorted(ABSTRACTS)[:3]  # three real abstracts
A, B, C = (ABSTRACTS[i] for i in IDS)


def _sentence(text: str, k: int) -> str:
    """The k-th sentence of a real abstract (a quote a model could honestly make)."""
    return [s for s in text.split(". ") if len(s) > 40][k]


def _halves(text: str) -> tuple[str, str]:
    cut = text.index(". ", len(text) // 2) + 2
    return text[:cut], text[cut:]


def _gate(docs: DocumentSet, cited: str | None, quote: str):  # type: ignore[no-untyped-def]
    return docs.gate(Citation("claim", cited, quote))


# --- identifiers -------------------------------------------------------------------------------

def test_a_file_cited_by_path_basename_stem_or_metadata_id_is_found_in_the_right_chunk() -> None:
    first, second = _halves(A)
    docs = DocumentSet.from_sources([
        {"text": first, "metadata": {"source": "papers/smith-2026.pdf", "source_id": "S1"}},
        {"text": second, "metadata": {"source": "papers/smith-2026.pdf", "source_id": "S1"}},
        {"text": B, "metadata": {"source": "papers/lee-2025.pdf", "source_id": "S2"}},
    ])
    quote = _sentence(second, 0)
    for cited, how in (("papers/smith-2026.pdf", "path"), ("smith-2026.pdf", "basename"),
                       ("smith-2026", "stem"), ("S1", "id"), ("SMITH-2026", "case_insensitive")):
        m = _gate(docs, cited, quote)
        assert m == "found", cited
        assert m.resolution == how
        assert m.cited_document_id == cited
        assert len(m.group) == 2  # both chunks of the file were candidates
        chunk_text = docs.text(m.document_id)
        assert chunk_text == second  # the match names the chunk that holds the quote ...
        assert chunk_text[m.start:m.end] == quote  # ... and the offsets in its text


def test_a_quote_from_another_file_is_misattributed_and_names_the_real_chunk() -> None:
    docs = DocumentSet.from_sources([
        {"text": A, "metadata": {"source": "a/smith.txt"}},
        {"text": B, "metadata": {"source": "b/lee.txt"}},
    ])
    m = _gate(docs, "smith", _sentence(B, 0))
    assert m == "misattributed"
    assert m.source_document_ids == ("b/lee.txt",)


def test_a_fabricated_quote_to_a_resolvable_id_is_no_match_not_unknown_document() -> None:
    docs = DocumentSet.from_sources([{"text": A, "metadata": {"file_name": "smith-2026.pdf"}}])
    m = _gate(docs, "smith-2026", "reranking improves accuracy by 42 points")
    assert m == "not_found"
    assert m.reason == "no_match"
    m = _gate(docs, "jones-2024", "reranking improves accuracy by 42 points")
    assert m.reason == "unknown_document" and m.resolution == "unresolved"


def test_an_unresolvable_id_with_a_real_quote_is_misattributed() -> None:
    docs = DocumentSet.from_sources({"smith": A, "lee": B})
    assert _gate(docs, "jones", _sentence(B, 0)) == "misattributed"


def test_one_stem_shared_by_two_files_resolves_to_both() -> None:
    docs = DocumentSet.from_sources([
        {"text": A, "metadata": {"source": "x/README.md"}},
        {"text": B, "metadata": {"source": "y/README.md"}},
    ])
    m = _gate(docs, "README", _sentence(B, 0))
    assert m == "found" and m.document_id == "y/README.md"
    assert set(m.group) == {"x/README.md", "y/README.md"}
    # the full path is precise: the other file's quote is misattributed under it
    assert _gate(docs, "x/README.md", _sentence(B, 0)) == "misattributed"


def test_positions_accept_zero_and_one_based_numbers_by_default() -> None:
    docs = DocumentSet.from_sources([A, B, C])  # strings: only positions identify them
    assert _gate(docs, "0", _sentence(A, 0)) == "found"  # 0-based
    assert _gate(docs, "1", _sentence(A, 0)) == "found"  # 1-based, the same document
    assert _gate(docs, "3", _sentence(C, 0)) == "found"  # 1-based only
    m = _gate(docs, "0", _sentence(C, 0))
    assert m == "misattributed" and m.resolution == "position"
    assert _gate(docs, "7", _sentence(A, 0)) == "misattributed"  # no such position


def test_a_strict_position_base_rejects_the_other_convention() -> None:
    zero = DocumentSet.from_sources([A, B, C], position_base=0)
    assert _gate(zero, "1", _sentence(A, 0)) == "misattributed"
    assert _gate(zero, "1", _sentence(B, 0)) == "found"
    one = DocumentSet.from_sources([A, B, C], position_base=1)
    assert _gate(one, "1", _sentence(A, 0)) == "found"
    assert _gate(one, "0", _sentence(A, 0)) == "misattributed"
    with pytest.raises(ValueError):
        DocumentSet(position_base=2)


def test_an_explicit_id_that_looks_like_a_position_means_the_id_only() -> None:
    docs = DocumentSet.from_sources([
        {"text": A, "metadata": {"doc_id": "1"}},
        {"text": B, "metadata": {"doc_id": "0"}},
    ])
    m = _gate(docs, "1", _sentence(A, 0))
    assert m == "found" and m.resolution == "id"
    assert _gate(docs, "0", _sentence(A, 0)) == "misattributed"  # "0" is B's id, not a position


def test_a_citation_naming_no_document_is_searched_in_all_never_misattributed() -> None:
    docs = DocumentSet.from_sources({"smith": A, "lee": B})
    m = _gate(docs, None, _sentence(B, 0))
    assert m == "found" and m.document_id == "lee" and m.resolution == "any"
    assert _gate(docs, None, "a sentence that is in neither abstract at all").reason == "no_match"


def test_an_app_specific_id_key_is_an_identifier() -> None:
    docs = DocumentSet.from_sources([{"text": A, "metadata": {"paper": "P-17"}}], id_keys=["paper"])
    assert _gate(docs, "P-17", _sentence(A, 0)) == "found"


def test_no_documents_at_all_leaves_the_citation_unverifiable() -> None:
    assert _gate(DocumentSet.from_sources(None, {}, []), "smith", "any quote") is None


def test_offsets_are_checked_in_the_chunk_group() -> None:
    first, second = _halves(A)
    docs = DocumentSet.from_sources([{"text": first, "metadata": {"source": "s.txt"}},
                                     {"text": second, "metadata": {"source": "s.txt"}}])
    quote = _sentence(second, 0)
    start = second.index(quote)
    m = docs.gate(Citation("claim", "s", quote, start, start + len(quote)))
    assert m == "found" and docs.text(m.document_id) == second


def test_an_answer_made_of_strings_is_never_taken_for_documents() -> None:
    answer = {"input": "What?", "answer": f'It says "{_sentence(A, 0)}" [smith].'}
    assert len(DocumentSet.from_sources(answer)) == 0
    assert len(DocumentSet.from_sources({"smith": A, "lee": B})) == 2


def test_the_walk_stays_within_its_budget() -> None:
    from vcg_otel.extract import Budget

    many = [{"id": f"d{i}", "text": A} for i in range(10_000)]
    budget = Budget(nodes=100)
    docs = DocumentSet.from_sources({"documents": many}, budget=budget)
    assert 0 < len(docs) < 100 and budget.exhausted == "nodes"
    shared = [A]
    cyclic: list[object] = [shared] * 1000  # the same list, reached a thousand times
    assert len(DocumentSet.from_sources({"documents": cyclic})) == 1


def test_the_same_chunk_reached_twice_is_kept_once() -> None:
    item = {"id": "doc-a", "text": A}
    docs = DocumentSet.from_sources({"documents": [item]}, {"context": [item, {"text": B}]})
    assert len(docs) == 2
    assert [c.position for c in docs.chunks] == [0, 1]


# --- result shapes -----------------------------------------------------------------------------

@pytest.mark.parametrize("key", ["documents", "docs", "context", "source_documents", "sources"])
def test_documents_are_read_under_every_common_key(key: str) -> None:
    found = list(find_chunks({"answer": "...", key: [{"page_content": A, "id": "a"}]}))
    assert [(t, p) for t, p, _ in found] == [(A, 0)]


def test_langchain_documents_are_reachable_by_source_and_store_id() -> None:
    documents = pytest.importorskip("langchain_core.documents")
    doc = documents.Document(page_content=A, metadata={"source": "papers/smith-2026.pdf"},
                             id="5c1d3a52-2d6b-4b7e-9d55-0a7f0c7c6f21")
    docs = DocumentSet.from_sources({"input": "q", "context": [doc], "answer": "..."})
    assert _gate(docs, "smith-2026", _sentence(A, 0)) == "found"
    assert _gate(docs, "5c1d3a52-2d6b-4b7e-9d55-0a7f0c7c6f21", _sentence(A, 0)) == "found"


def test_haystack_meta_and_generated_answers_are_read() -> None:
    haystack = pytest.importorskip("haystack")
    from haystack.dataclasses import GeneratedAnswer

    a = haystack.Document(content=A, meta={"source_id": "smith-2026"})
    b = haystack.Document(content=B, meta={"file_path": "/data/lee-2025.txt"})
    output = {"retriever": {"documents": [a, b]},
              "answer_builder": {"answers": [GeneratedAnswer(data="...", query="q",
                                                             documents=[a, b], meta={})]}}
    docs = DocumentSet.from_sources(output)
    assert len(docs) == 2  # the same documents in two outputs are kept once
    assert _gate(docs, "smith-2026", _sentence(A, 0)) == "found"
    assert _gate(docs, "lee-2025", _sentence(B, 0)) == "found"
    assert _gate(docs, a.id, _sentence(A, 0)) == "found"  # the content hash works too
    answer_only = DocumentSet.from_sources(output["answer_builder"]["answers"][0])
    assert _gate(answer_only, "lee-2025.txt", _sentence(B, 0)) == "found"


def test_llamaindex_nodes_are_reachable_by_file_name_and_ref_doc_id() -> None:
    pytest.importorskip("llama_index.core")
    from llama_index.core import Document
    from llama_index.core.base.response.schema import Response
    from llama_index.core.node_parser import SentenceSplitter
    from llama_index.core.schema import NodeWithScore

    files = [Document(text=text, id_=f"doc-{i}", metadata={"file_name": f"paper-{i}.txt"})
             for i, text in enumerate((A, B))]
    nodes = SentenceSplitter(chunk_size=80, chunk_overlap=0).get_nodes_from_documents(files)
    assert len(nodes) > 2  # several chunks per file
    response = Response("...", source_nodes=[NodeWithScore(node=n, score=1.0) for n in nodes])
    docs = DocumentSet.from_sources(response)
    last = nodes[-1]
    quote = last.get_content()[:60].rsplit(" ", 1)[0]
    for cited in ("paper-1.txt", "paper-1", "doc-1", last.node_id):
        m = _gate(docs, cited, quote)
        assert m == "found", cited
        assert m.document_id == last.node_id
    assert _gate(docs, "paper-0", quote) == "misattributed"


# --- sets built again from the same chunks (DocumentSet.from_sources reuses them) ----------------

def test_the_same_id_over_a_different_text_is_a_different_set() -> None:
    quote = _sentence(A, 0)
    assert _gate(DocumentSet.from_sources({"smith": A, "lee": B}), "smith", quote) == "found"
    # same ids, the texts swapped: the quote is now in "lee" only
    swapped = DocumentSet.from_sources({"smith": B, "lee": A})
    assert swapped.text("smith") == B
    assert _gate(swapped, "smith", quote) == "misattributed"


def test_the_same_text_under_different_ids_or_positions_is_a_different_set() -> None:
    quote = _sentence(A, 0)
    first = DocumentSet.from_sources({"smith": A})
    renamed = DocumentSet.from_sources({"lee": A})
    assert _gate(first, "smith", quote) == "found"
    assert _gate(renamed, "smith", quote) == "misattributed"  # not the first set's table
    assert [c.key for c in renamed.chunks] == ["lee"]
    listed = DocumentSet.from_sources([B, A])  # positions 0 and 1
    assert _gate(listed, "0", _sentence(A, 0)).resolution == "position"
    reordered = DocumentSet.from_sources([A, B])
    assert reordered.text(reordered.resolve("0")[0][0]) == A
    strict = DocumentSet.from_sources([A, B], position_base=1)
    assert strict.resolve("1")[0] == ("0",) and strict.resolve("0") == ((), "unresolved")


def test_changing_a_returned_set_leaves_the_next_one_as_built() -> None:
    docs = {"smith": A, "lee": B}
    first = DocumentSet.from_sources(docs)
    first.add_chunk(C, [("smith", "stem")])  # a stem now resolves in the first set only
    first.add("lee", C)  # and a replaced text
    again = DocumentSet.from_sources(docs)
    assert len(again) == 2 and len(again.chunks) == 2
    assert again.resolve("smith") == (("smith",), "id")
    assert again.text("lee") == B
    assert _gate(again, "lee", _sentence(B, 0)) == "found"
    assert _gate(first, "lee", _sentence(C, 0)) == "found"


def test_a_text_that_only_compares_equal_is_not_taken_for_the_real_one() -> None:
    class Lenient(str):
        def __eq__(self, other: object) -> bool:
            return isinstance(other, str)

        def __hash__(self) -> int:
            return hash(A)  # equal and hashed alike: only its type tells it apart

    real = DocumentSet.from_sources({"smith": A})
    assert _gate(real, "smith", _sentence(A, 0)) == "found"
    fake = DocumentSet.from_sources({"smith": Lenient(B)})
    assert fake.text("smith") == B and str.__eq__(fake.text("smith"), B)
    assert _gate(fake, "smith", _sentence(A, 0)) == "not_found"


def test_a_plain_dict_read_again_is_the_same_set_only_for_the_same_exact_texts() -> None:
    """The dict of id to text read last is remembered by content (the same objects, or equal
    exact strings): read again it gives the same chunks; a changed text, a changed id and a
    text that only compares equal each give their own."""

    class Lenient(str):
        def __eq__(self, other: object) -> bool:
            return isinstance(other, str)

        def __hash__(self) -> int:
            return hash(A)

    def chunks(docs: DocumentSet) -> list[tuple[str, str, tuple[tuple[str, str], ...]]]:
        return [(c.key, c.text, c.names) for c in docs.chunks]

    docs = {"smith": A, "lee": B}
    first = DocumentSet.from_sources(docs)
    assert chunks(DocumentSet.from_sources(docs)) == chunks(first)
    copied = {"smith": (A + ".")[:-1], "lee": (B + ".")[:-1]}  # equal, new objects
    assert chunks(DocumentSet.from_sources(copied)) == chunks(first)
    changed = DocumentSet.from_sources({"smith": A, "lee": C})
    assert changed.text("lee") == C and _gate(changed, "lee", _sentence(C, 0)) == "found"
    renamed = DocumentSet.from_sources({"smith": A, "kim": B})
    assert [c.key for c in renamed.chunks] == ["smith", "kim"]
    DocumentSet.from_sources(docs)
    fake = DocumentSet.from_sources({"smith": A, "lee": Lenient(C)})
    assert str.__eq__(fake.text("lee"), C)
    assert _gate(fake, "lee", _sentence(B, 0)) == "not_found"


def test_the_set_last_built_is_served_again_only_while_the_cache_holds_it() -> None:
    """The same dict read again finds the set built last without a key, but only while the
    bounded cache of built sets still holds it: one dropped since is built again."""
    from vcg_otel import documents

    cache = documents._built_sets
    docs = {"smith": A, "lee": B}
    first = DocumentSet.from_sources(docs)
    again = DocumentSet.from_sources(docs)
    assert again is not first and again._table is first._table  # shared, as a cache hit
    entries, chars = cache.max_entries, cache.max_size
    try:
        cache.resize(max_size=1)  # drops every set (and keeps none of the next)
        rebuilt = DocumentSet.from_sources(docs)
        assert rebuilt._table is not first._table
        assert [(c.key, c.text) for c in rebuilt.chunks] == [("smith", A), ("lee", B)]
    finally:
        cache.resize(entries, chars)
    DocumentSet.from_sources(docs)
    cache.clear()
    assert DocumentSet.from_sources(docs)._table is not first._table


def test_a_set_built_from_sources_with_a_plain_dict_keeps_its_budget_charges() -> None:
    """The remembered dict charges the reading budget as a first read does: a node for the
    dict and one per document, and nothing read when they are not there."""
    docs = {"smith": A, "lee": B}
    for nodes in (0, 1, 2, 3, 10):
        for _ in range(2):  # read first, then remembered
            budget = Budget(nodes=nodes)
            found = DocumentSet.from_sources(docs, budget=budget)
            assert len(found.chunks) == (2 if nodes >= 3 else 0)
            assert (budget.nodes, budget.exhausted) == (
                (nodes - 3, None) if nodes >= 3 else (budget.nodes, "nodes"))


def test_a_remembered_resolution_follows_the_set_as_it_changes() -> None:
    """resolve() remembers its answers with the identifier table: a chunk added later, a
    position base changed, a set built again from the same chunks (sharing the table) and
    then changed, each answer as a fresh resolution would."""
    first = DocumentSet.from_sources({"a": "alpha text", "b": "beta text"})
    assert first.resolve("c") == ((), "unresolved")
    first.add_chunk("gamma text", [("c", "id")])
    assert first.resolve("c") == (("c",), "id")
    again = DocumentSet.from_sources({"a": "alpha text", "b": "beta text"})  # shared tables
    assert again.resolve("b") == (("b",), "id") and again.resolve("b2") == ((), "unresolved")
    again.add_chunk("more", [("b2", "id")])
    assert again.resolve("b2") == (("b2",), "id")
    other = DocumentSet.from_sources({"a": "alpha text", "b": "beta text"})
    assert other.resolve("b2") == ((), "unresolved")  # the change stayed in its own set
    positions = DocumentSet.from_sources(["zero", "one"])
    before = positions.resolve("1")
    positions.position_base = 1
    assert positions.resolve("1") == positions._resolve("1") and before[1] == "position"


def _reflowed(sentence: str) -> str:
    """``sentence`` as a model often quotes it: in curly quotation marks, its full stop kept,
    the line broken after its fourth word."""
    words = sentence.split(" ")
    return "\u201c" + " ".join(words[:4]) + "\n" + " ".join(words[4:]) + ".\u201d"


@pytest.mark.parametrize("quote", [
    _sentence(A, 1),  # as written: the fast path's common quote
    _sentence(A, 1).replace(" ", " \u2026 ", 1).split(" \u2026 ", 1)[0] + " \u2026 "
    + _sentence(A, 1).split(" ", 3)[3],  # elided: the fast path's marked quote
    _reflowed(_sentence(A, 1)),  # in curly quotes, a line break: normalized
])
@pytest.mark.parametrize("start", [None, 0, 5000])
def test_a_found_quote_is_the_plain_gate_s_match_with_its_resolution(
        quote: str, start: int | None) -> None:
    """The fast path makes a found quote's ResolvedMatch at once (documents._resolving): the
    very match the plain gate finds, with the resolution, the group and the file offsets
    (the chunk's splitter offset added) that copying it would give."""
    from vcg_otel.gate import quote_gate
    from vcg_otel.gate.corpus import Corpus
    from vcg_otel.stitch import Locus

    docs = DocumentSet()
    docs.add_chunk(B, [("other.txt", "path")], 0, Locus("other.txt", 0))
    docs.add_chunk(A, [("paper.txt", "path")], 1, Locus("paper.txt", start))
    match = docs.gate(Citation("claim", "paper.txt", quote))
    plain = quote_gate(quote, "paper.txt", Corpus({"other.txt": B, "paper.txt": A}))
    assert match is not None and plain.found and match == plain
    assert (match.result, match.cited_document_id, match.document_id, match.start, match.end,
            match.text, match.elided, match.pieces, match.source_document_ids, match.reason,
            match.forgiven, match.rejection, match.closest) == (
        plain.result, "paper.txt", "paper.txt", plain.start, plain.end, plain.text, plain.elided,
        plain.pieces, plain.source_document_ids, plain.reason, plain.forgiven, None, None)
    assert (match.resolution, match.group, match.chunks, match.chunk_start,
            match.chunk_end) == ("path", ("paper.txt",), (), None, None)
    assert plain.start is not None and plain.end is not None
    assert (match.file_start, match.file_end) == (
        (None, None) if start is None else (start + plain.start, start + plain.end))
