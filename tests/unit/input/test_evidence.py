"""Stage 1 for citations without quotes: unknown sources, located evidence, the signal.

Documents are real arXiv abstracts (benchmarks/data); claims are built from their sentences
the way benchmarks/evidence_location.py builds them (words dropped, runs reordered, numbers
kept), with a fixed seed.
"""

from __future__ import annotations

import json
import random

import evidence_location as bench
import pytest
from support.paths import ROOT

from vcg_otel.documents import DocumentSet
from vcg_otel.evidence import (
    MAX_PASSAGE_CHARS,
    MAX_SENTENCE_CHARS,
    EvidenceLocator,
    QuotelessStage,
    check_source,
    sentence_spans,
)

ABSTRACTS: dict[str, str] = json.loads(
    (ROOT / "benchmarks/data/arxiv_abstracts_295.json").read_text(encoding="utf-8"))
KEYS = list(ABSTRACTS)


def five() -> DocumentSet:
    docs = DocumentSet.from_sources([{"page_content": ABSTRACTS[k],
                                      "metadata": {"source": f"papers/{k}.pdf"}}
                                     for k in KEYS[:5]])
    assert len(docs.chunks) == 5
    return docs


# --- does the source exist? -----------------------------------------------------------------


def test_a_position_beyond_the_sources_given_is_an_unknown_source() -> None:
    docs = five()
    assert check_source(docs, "7").unknown
    assert check_source(docs, "6", position_base=1).unknown
    assert not check_source(docs, "5", position_base=1).unknown
    assert check_source(docs, "5", position_base=0).unknown
    assert check_source(docs, "0", position_base=1).unknown
    assert check_source(docs, "[3]", position_base=1).group == (docs.chunks[2].key,)


def test_an_id_that_names_no_document_under_any_identifier_is_unknown() -> None:
    docs = five()
    for cited in (f"papers/{KEYS[1]}.pdf", f"{KEYS[1]}.pdf", KEYS[1], KEYS[1].upper()):
        check = check_source(docs, cited)
        assert not check.unknown and check.group == (docs.chunks[1].key,), cited
    assert check_source(docs, "smith-2027").unknown
    assert check_source(docs, KEYS[10]).unknown  # a real paper, but not retrieved


def test_without_documents_nothing_is_called_unknown() -> None:
    assert not check_source(DocumentSet(), "7").unknown
    assert not check_source(five(), None).unknown


def test_a_number_that_is_an_explicit_id_is_that_document_not_a_position() -> None:
    docs = DocumentSet.from_sources({"7": "Seven.", "a": "A.", "b": "B."})
    check = check_source(docs, "7", position_base=1)
    assert check.group == ("7",) and check.resolution == "id"


def test_positions_of_a_mapping_count_in_its_order() -> None:
    docs = DocumentSet.from_sources({"x": "X text.", "y": "Y text."})
    assert check_source(docs, "2", position_base=1).group == ("y",)
    assert check_source(docs, "3", position_base=1).unknown


# --- sentences ------------------------------------------------------------------------------


def test_sentences_keep_abbreviations_and_split_lists() -> None:
    text = "We use e.g. BM25 and Fig. 3 shows it. Smith et al. agree.\n\n- first item\n- second"
    assert [text[a:b] for a, b in sentence_spans(text)] == [
        "We use e.g. BM25 and Fig. 3 shows it.", "Smith et al. agree.", "- first item",
        "- second"]


def test_a_long_run_without_periods_is_cut_so_passages_stay_bounded() -> None:
    text = " ".join(ABSTRACTS[k].replace(".", ";") for k in KEYS[:3])
    spans = sentence_spans(text)
    assert len(spans) > 3 and all(b - a <= MAX_SENTENCE_CHARS for a, b in spans)
    assert "".join(text[a:b] for a, b in spans).replace(" ", "") == text.replace(" ", "")


# --- where is the evidence? -----------------------------------------------------------------


def test_the_source_sentence_of_real_claims_ranks_first() -> None:
    made = bench.cases(80, seed=5)
    top = [bench.rank(EvidenceLocator({"d": ABSTRACTS[k]}), c, "d", s)[0] for k, c, s in made]
    assert sum(top) >= 78, sum(top)


def test_the_source_sentence_ranks_first_inside_100_kb_of_related_abstracts() -> None:
    made = bench.cases(25, seed=9)
    rng = random.Random(3)
    hits = 0
    for k, claim, (a, b) in made:
        doc, offset = bench.big_document(ABSTRACTS, k, 100_000, rng)
        hits += bench.rank(EvidenceLocator({"d": doc}), claim, "d", (a + offset, b + offset))[0]
    assert hits >= 24


def test_passage_offsets_index_the_original_text_through_typography() -> None:
    plain = ABSTRACTS[KEYS[3]]
    sentence = sentence_spans(plain)[2]
    styled = (plain.replace("fi", "\ufb01").replace(" ", "\u00a0", 40)
              .replace("'", "\u2019"))  # ligatures, non-breaking spaces, curly apostrophes
    found = EvidenceLocator({"d": styled}).locate(plain[sentence[0]:sentence[1]], ["d"])
    top = found.passages[0]
    assert top.text == styled[top.start:top.end]
    assert top.start <= top.sentence_start < top.sentence_end <= top.end
    target = styled[top.sentence_start:top.sentence_end]
    assert target.replace("\u00a0", " ").replace("\ufb01", "fi") == (
        plain[sentence[0]:sentence[1]].replace("'", "\u2019"))


def test_passages_are_bounded_whatever_the_document_size() -> None:
    doc = "\n\n".join(ABSTRACTS.values())  # 430 kB
    claim = ABSTRACTS[KEYS[100]].split(". ")[1]
    found = EvidenceLocator({"d": doc}).locate(claim, ["d"])
    assert 1 <= len(found.passages) <= 3
    assert all(len(p.text) <= MAX_PASSAGE_CHARS for p in found.passages)
    spans = [(p.start, p.end) for p in found.passages]
    assert all(b1 <= a2 or b2 <= a1 for i, (a1, b1) in enumerate(spans)
               for a2, b2 in spans[i + 1:])  # passages never overlap


def test_a_shared_number_outweighs_a_shared_word() -> None:
    doc = ("Accuracy rose by 3.5% on the dev set. The model gained 4.2% on the test set. "
           "Recall rose sharply.")
    top = EvidenceLocator({"d": doc}).locate("accuracy rose by 4.2%", ["d"]).passages[0]
    assert doc[top.sentence_start:top.sentence_end] == "The model gained 4.2% on the test set."


def test_a_claim_sharing_no_word_with_the_document_locates_nothing() -> None:
    found = EvidenceLocator({"d": ABSTRACTS[KEYS[0]]}).locate("zebra xylophone", ["d"])
    assert found.passages == () and found.score == 0.0


def test_another_document_matching_clearly_better_raises_the_signal_with_its_score() -> None:
    docs = {k: ABSTRACTS[k] for k in KEYS[:5]}
    claim = bench.make_claim(ABSTRACTS[KEYS[4]].split(". ")[1], random.Random(1))
    found = EvidenceLocator(docs).locate(claim, [KEYS[0]])
    assert found.signal is not None and found.signal.document_id == KEYS[4]
    assert found.signal.score >= 1.5 * found.signal.cited_score
    assert found.signal.cited_score == found.score
    honest = EvidenceLocator(docs).locate(claim, [KEYS[4]])
    assert honest.signal is None


def test_the_signal_never_changes_the_located_evidence() -> None:
    docs = {k: ABSTRACTS[k] for k in KEYS[:5]}
    claim = ABSTRACTS[KEYS[4]].split(". ")[1]
    locator = EvidenceLocator(docs)
    with_signal = locator.locate(claim, [KEYS[0]])
    without = locator.locate(claim, [KEYS[0]], signal=False)
    assert with_signal.passages == without.passages and without.signal is None


def test_a_group_of_chunks_is_searched_as_one_source() -> None:
    chunks = [{"page_content": ABSTRACTS[k], "metadata": {"source": "papers/all.pdf"}}
              for k in KEYS[:3]]
    docs = DocumentSet.from_sources([*chunks, {"page_content": ABSTRACTS[KEYS[3]]}])
    check = check_source(docs, "all")
    claim = ABSTRACTS[KEYS[2]].split(". ")[1]
    found = EvidenceLocator(docs).locate(claim, check.group)
    assert found.passages[0].document_id == docs.chunks[2].key and found.signal is None


def test_check_source_rejects_an_unknown_position_base() -> None:
    with pytest.raises(ValueError):
        check_source(five(), "1", position_base=5)


def test_positions_of_a_mapping_accept_either_base_by_default() -> None:
    docs = DocumentSet.from_sources({k: ABSTRACTS[k] for k in KEYS[:5]})
    assert check_source(docs, "5").group == (KEYS[4],)
    assert set(check_source(docs, "1").group) == {KEYS[0], KEYS[1]}
    assert check_source(docs, "6").unknown


def test_the_quoteless_stage_checks_the_source_then_locates_the_claim() -> None:
    mapping = {k: ABSTRACTS[k] for k in KEYS[:5]}
    claim = ABSTRACTS[KEYS[2]].split(". ")[1]
    for documents in (mapping, five()):
        stage = QuotelessStage(documents, position_base=1)
        found = stage.check("3", claim)
        assert found is not None and not found.unknown and found.evidence is not None
        top = found.evidence.passages[0]
        assert claim in top.text and found.to_dict()["evidence"]["passages"][0]["start"] == (
            top.start)
        fabricated = stage.check("9", claim)
        assert fabricated is not None and fabricated.unknown and fabricated.evidence is None
        assert stage.check(None, claim) is None
    assert QuotelessStage({}).check("1", claim) is None  # no documents: nothing is unknown


def test_span_attributes_carry_the_resolution_top_passage_and_signal() -> None:
    from vcg_otel.evidence import evidence_attributes
    from vcg_otel.otel import semconv

    docs = {k: ABSTRACTS[k] for k in KEYS[:5]}
    claim = bench.make_claim(ABSTRACTS[KEYS[4]].split(". ")[1], random.Random(1))
    found = QuotelessStage(docs).check(KEYS[0], claim)
    attrs = evidence_attributes(found)
    assert found is not None and found.evidence is not None and found.evidence.signal
    top = found.evidence.passages[0]
    assert attrs[semconv.CITATION_DOCUMENT_RESOLUTION] == "id"
    assert attrs[semconv.CITATION_DOCUMENT_GROUP_SIZE] == 1
    assert (attrs[semconv.EVIDENCE_DOCUMENT_ID], attrs[semconv.EVIDENCE_START],
            attrs[semconv.EVIDENCE_END]) == (top.document_id, top.start, top.end)
    assert attrs[semconv.EVIDENCE_SIGNAL_DOCUMENT_ID] == KEYS[4]
    assert attrs[semconv.EVIDENCE_SIGNAL_SCORE] > attrs[semconv.EVIDENCE_SIGNAL_CITED_SCORE]
    unknown = evidence_attributes(QuotelessStage(docs).check("smith-2027", claim))
    assert unknown == {semconv.CITATION_DOCUMENT_RESOLUTION: "unresolved",
                       semconv.CITATION_DOCUMENT_GROUP_SIZE: 0}
    assert evidence_attributes(None) == {}
