"""The gram index of a small document set searched again and again (issue 24): it rules
documents out of a rejected quote's searches without scanning them, and changes nothing else
-- no verdict, offset, rejection kind or closest passage, no budget step."""

from __future__ import annotations

import pytest
from cases import load_corpus
from gram_identity import compare
from hypothesis import given
from hypothesis import strategies as st

from vcg_otel import Corpus, quote_gate
from vcg_otel.documents import DocumentSet
from vcg_otel.gate import corpus as corpus_module
from vcg_otel.gate.grams import GRAM, GramIndex
from vcg_otel.gate.search import SearchBudget
from vcg_otel.gate.slips import skeleton

_ABSTRACTS = load_corpus()
_IDS = list(_ABSTRACTS)
# a retrieval: ten abstracts, about 15 k characters
SET = {key: _ABSTRACTS[key] for key in _IDS[:10]}
# a sentence of an abstract that is not among them, cited to one that is
INVENTED = _ABSTRACTS[_IDS[-1]].split(". ")[0]


@given(st.lists(st.text("abcd ,", max_size=60), min_size=1, max_size=6), st.data())
def test_a_document_holding_a_string_is_always_among_its_holders(
        texts: list[str], data: st.DataObject) -> None:
    skeletons = [skeleton(text) for text in texts]
    index = GramIndex(skeletons)
    which = data.draw(st.integers(0, len(texts) - 1))
    start = data.draw(st.integers(0, len(skeletons[which])))
    piece = skeletons[which][start:data.draw(st.integers(start, len(skeletons[which])))]
    holders = index.holders(piece)
    for i, held in enumerate(skeletons):
        if piece in held:
            assert holders >> i & 1


def test_a_string_shorter_than_a_piece_is_held_by_every_document() -> None:
    index = GramIndex([b"alpha", b"beta", b"gamma"])
    assert index.holders(b"x" * (GRAM - 1)) == 0b111
    assert index.holders(b"zzzz") == 0  # in none of them, shown by its one piece


@given(st.lists(st.integers(0, 255), max_size=5))
def test_held_by_most_is_the_documents_set_in_at_least_half_the_masks(masks: list[int]) -> None:
    got = corpus_module._held_by_most(masks, 255)
    for bit in range(8):
        count = sum(mask >> bit & 1 for mask in masks)
        assert (got >> bit & 1) == (count >= (len(masks) + 1) // 2)


def test_every_suite_gives_the_same_answers_and_budgets_with_the_index() -> None:
    """One case in 100 of every accuracy suite, in small sets, with and without the index;
    one in ten of those at every budget up to what it needs."""
    table = compare(every=100, tight_every=10)
    assert set(table) == {"plain", "markup", "pdf", "transcription", "rejection"}
    for name, (cases, differ, budgets, tight_differ, answered) in table.items():
        assert cases and budgets, name
        assert (differ, tight_differ) == (0, 0), name
        assert answered > 0, name  # the index did rule documents out in this suite


def test_a_recurring_retrieval_builds_one_index_its_later_calls_share() -> None:
    first = DocumentSet.from_sources(dict(SET))
    answers = []
    for _ in range(corpus_module._GRAMS_AFTER + 5):
        documents = DocumentSet.from_sources(dict(SET))  # a new dict: the same set, a fork
        budget = SearchBudget()
        match = quote_gate(INVENTED, _IDS[3], documents, budget=budget)
        answers.append((match.to_dict(), budget.used))
    assert documents._grams is first._grams and first._grams.index is not None
    assert all(answer == answers[0] for answer in answers)
    assert answers[0][0]["result"] == "not_found"
    assert answers[0][0]["rejection"] == "invented"


def test_a_set_searched_a_few_times_never_pays_for_an_index() -> None:
    corpus = Corpus(SET)
    for _ in range(corpus_module._GRAMS_AFTER - 1):
        assert quote_gate(INVENTED, _IDS[3], corpus) == "not_found"
    assert corpus._grams.index is None


def test_a_set_too_large_is_never_indexed() -> None:
    big = {key: _ABSTRACTS[key] for key in _IDS[:80]}
    assert len(big) > corpus_module._GRAMS_MAX_DOCS
    corpus = Corpus(big)
    for _ in range(corpus_module._GRAMS_AFTER + 1):
        assert quote_gate(INVENTED, _IDS[3], corpus) == "not_found"
    assert corpus._grams.index is None


def test_a_document_added_after_the_index_is_searched(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(corpus_module, "_GRAMS_AFTER", 1)
    corpus = Corpus(SET)
    assert quote_gate(INVENTED, _IDS[3], corpus) == "not_found"
    assert corpus._grams.index is not None
    corpus.add(_IDS[-1], _ABSTRACTS[_IDS[-1]])  # the abstract the sentence is from
    match = quote_gate(INVENTED, _IDS[3], corpus)
    assert match == "misattributed" and match.source_document_ids == (_IDS[-1],)
