"""Claims and cited sources from answers that cite without quoting.

Answers cite real arXiv abstracts (benchmarks/data); OpenAI annotations are the openai SDK's
own types (Responses API and Assistants), Cohere citations are its v1 and v2 shapes.
"""

from __future__ import annotations

import json

import pytest
from support.paths import ROOT

from vcg_otel.documents import DocumentSet
from vcg_otel.evidence import check_source
from vcg_otel.markers import cohere_claims, find_markers, marked_claims, openai_claims

ABSTRACTS: dict[str, str] = json.loads(
    (ROOT / "benchmarks/data/arxiv_abstracts_295.json").read_text(
        encoding="utf-8"))
KEYS = list(ABSTRACTS)


def papers(n: int = 5) -> DocumentSet:
    return DocumentSet.from_sources([{"page_content": ABSTRACTS[k],
                                      "metadata": {"source": f"papers/{k}.pdf"}}
                                     for k in KEYS[:n]])


def summary(text: str, docs: DocumentSet | None = None, **kw: object) -> list[tuple[str, str]]:
    return [(c.citation.document_id or "", c.citation.claim)
            for c in marked_claims(text, docs, **kw)]  # type: ignore[arg-type]


def test_a_numbered_marker_claims_its_sentence_and_markers_after_the_period_belong_to_it() -> None:
    text = "Accuracy rose by 4.2% [1]. Latency fell. [2] Costs doubled.[3]"
    assert summary(text) == [("1", "Accuracy rose by 4.2%."), ("2", "Latency fell."),
                             ("3", "Costs doubled.")]


def test_several_markers_on_one_sentence_give_one_citation_per_source() -> None:
    text = "Revenue fell by 30% in 2024 [1][3][1], as reported [2, 3]."
    got = summary(text)
    assert got == [("1", "Revenue fell by 30% in 2024"), ("3", "Revenue fell by 30% in 2024"),
                   ("2", "as reported."), ("3", "as reported.")]


def test_markers_at_several_places_of_a_sentence_claim_their_clauses() -> None:
    text = "Model A improves recall by 3% [1], while model B cuts latency in half [2]."
    assert summary(text) == [("1", "Model A improves recall by 3%"),
                             ("2", "while model B cuts latency in half.")]


def test_a_range_expands_to_each_source() -> None:
    assert [s for s, _ in summary("Three studies agree [1-3].")] == ["1", "2", "3"]


def test_claim_offsets_cover_the_raw_span_in_the_answer() -> None:
    text = "Intro sentence here. Accuracy rose by 4.2% [1]. Done."
    (c,) = marked_claims(text)
    assert text[c.claim_start:c.claim_end] == "Accuracy rose by 4.2% [1]."
    assert text[c.marker.start:c.marker.end] == "[1]"


def test_positions_are_one_based_unless_the_answer_cites_zero() -> None:
    docs = papers()
    one = marked_claims("A holds [5].", docs)[0]
    assert one.marker.position_base == 1
    assert not check_source(docs, one.citation.document_id, one.marker.position_base).unknown
    zero = marked_claims("A holds [0]. B holds [5].", docs)
    assert {m.marker.position_base for m in zero} == {0}
    assert check_source(docs, "5", zero[1].marker.position_base).unknown
    forced = marked_claims("A holds [5].", docs, position_base=0)[0]
    assert check_source(docs, "5", forced.marker.position_base).unknown


def test_id_markers_resolve_through_every_identifier_and_fabricated_ids_are_kept() -> None:
    docs = papers()
    text = (f"First finding [{KEYS[0]}]. Second finding [papers/{KEYS[1]}.pdf]. "
            "Third finding [smith-2027].")
    got = marked_claims(text, docs)
    assert [m.marker.kind for m in got] == ["id", "id", "id"]
    assert [check_source(docs, m.citation.document_id).unknown for m in got] == [
        False, False, True]


def test_prose_in_brackets_is_not_a_marker() -> None:
    text = ("The effect [sic] was large [citation needed]. See [the paper](https://x.org). "
            "Tick [x] and [ ] and [...] and [2020]. CI [0.331, 0.382], shift [-0.90, +0.06]."
            " The gap is +0.2028 AP [+0.1698, +0.2342, domain-clustered].")
    assert find_markers(text, papers()) == []


def test_footnotes_resolve_through_their_definitions() -> None:
    docs = papers()
    text = (f"Accuracy rose by 4.2%.[^a] Latency fell.[^2] Costs rose.[^9]\n\n"
            f"[^a]: {KEYS[1]}.pdf, page 3\n[^2]: see papers/{KEYS[3]}.pdf\n")
    got = marked_claims(text, docs)
    assert [(m.marker.kind, m.citation.claim) for m in got] == [
        ("footnote", "Accuracy rose by 4.2%."), ("footnote", "Latency fell."),
        ("footnote", "Costs rose.")]
    checks = [check_source(docs, m.citation.document_id, m.marker.position_base) for m in got]
    assert checks[0].group == (docs.chunks[1].key,)
    assert checks[1].group == (docs.chunks[3].key,)
    assert checks[2].unknown  # [^9] has no definition: position 9 of five


def test_the_convention_can_be_forced() -> None:
    docs = DocumentSet.from_sources({"3": "Three.", "alpha-1": "Alpha."})
    assert [m.marker.kind for m in marked_claims("X [3]. Y [alpha-1].", docs,
                                                 convention="id")] == ["id", "id"]
    assert [m.marker.kind for m in marked_claims("X [3]. Y [alpha-1].", docs,
                                                 convention="position")] == ["position"]
    with pytest.raises(ValueError):
        find_markers("X [1].", convention="numbers")  # type: ignore[arg-type]


def test_cohere_spans_give_the_claim_exactly_with_one_citation_per_source() -> None:
    text = "The reranker improves accuracy by 4.2% over the baseline."
    v1 = {"start": 13, "end": 38, "text": "improves accuracy by 4.2%",
          "document_ids": ["doc_0", "doc_2", "doc_0"]}
    got = cohere_claims(v1, text)
    assert [(c.citation.document_id, c.citation.claim) for c in got] == [
        ("doc_0", "improves accuracy by 4.2%"), ("doc_2", "improves accuracy by 4.2%")]
    assert all(text[c.claim_start:c.claim_end] == c.citation.claim for c in got)
    v2 = {"start": 13, "end": 38, "sources": [{"type": "document", "id": "doc_1",
                                               "document": {"text": "..."}}]}
    (one,) = cohere_claims(v2, text)
    assert (one.citation.document_id, one.citation.claim) == ("doc_1", text[13:38])


def test_openai_annotations_claim_the_sentence_carrying_them() -> None:
    openai = pytest.importorskip("openai")
    del openai
    from openai.types.beta.threads import FileCitationAnnotation
    from openai.types.responses.response_output_text import AnnotationFileCitation

    text = "Recall rose by 3%\u30104:0\u2020source\u3011. Costs are unchanged."
    assistants = FileCitationAnnotation(
        type="file_citation", text="\u30104:0\u2020source\u3011", start_index=17, end_index=29,
        file_citation={"file_id": "file-abc"})
    (a,) = openai_claims(text, [assistants])
    assert (a.citation.document_id, a.citation.claim) == ("file-abc", "Recall rose by 3%.")
    plain = "Recall rose by 3%. Costs are unchanged."
    responses = AnnotationFileCitation(type="file_citation", file_id="file-xyz",
                                       filename="notes.pdf", index=17)
    (r,) = openai_claims(plain, [responses])
    assert (r.citation.document_id, r.citation.claim) == ("file-xyz", "Recall rose by 3%.")
    outside = AnnotationFileCitation(type="file_citation", file_id="f", filename="n", index=999)
    assert openai_claims(plain, [outside]) == []
