"""Issue 18: a rejected quote says how it differs from its source -- ``altered`` (a misquote:
a passage matches all but a few words) or ``invented`` (nothing close anywhere) -- with the
closest passage's offsets in the original text, a score and the word diffs. The verdict stays
``not_found``. Documents are real arXiv abstracts; quotes are their sentences, misquoted."""

from __future__ import annotations

from typing import Any

import pytest
from cases import load_corpus
from hypothesis import given, settings
from hypothesis import strategies as st

from vcg_otel import Corpus, quote_gate
from vcg_otel.gate import NotFoundReason, RejectionKind, SearchBudget, normalize
from vcg_otel.gate import api as gate_api
from vcg_otel.gate.closest import CLOSEST_STEPS, nearest
from vcg_otel.gate.result import Diagnosis

_ABSTRACTS = load_corpus()
_IDS = list(_ABSTRACTS)
DOCS = {k: _ABSTRACTS[k] for k in _IDS[:40]}
CORPUS = Corpus(DOCS)
SOURCE = ("a Nemotron 1B embedder improves nDCG@10 from 0.362 to 0.835 and substantially "
          "outperforms its unadapted counterpart")
CITED = "2608.05138v1"


def test_one_word_replaced_is_altered_with_the_source_passage_and_the_replaced_word() -> None:
    assert SOURCE in _ABSTRACTS[CITED] and CITED in DOCS
    m = quote_gate(SOURCE.replace("improves", "degrades"), CITED, CORPUS)
    assert m == "not_found" and m.reason is NotFoundReason.NO_MATCH  # never verbatim
    assert m.rejection is RejectionKind.ALTERED
    assert m.closest is not None and m.closest.document_id == CITED
    passage = _ABSTRACTS[CITED][m.closest.start:m.closest.end]
    assert passage == SOURCE  # offsets in the original text, the whole passage
    assert m.closest.replaced == (("improves", "degrades"),)
    assert m.closest.removed == () and m.closest.added == ()
    assert 0.9 <= m.closest.score < 1.0


def test_a_dropped_not_is_altered_and_names_the_removed_word() -> None:
    source = "semantic validity alone does not ensure training utility, highlighting compact"
    cited = "2608.05148v1"
    docs = Corpus({cited: _ABSTRACTS[cited], CITED: _ABSTRACTS[CITED]})
    m = quote_gate(source.replace("does not ensure", "does ensure"), cited, docs)
    assert m == "not_found" and m.rejection is RejectionKind.ALTERED
    assert m.closest is not None and m.closest.removed == ("not",)


def test_a_sentence_from_no_document_is_invented() -> None:
    unseen = _ABSTRACTS[_IDS[-1]].split(". ")[0]  # an abstract that is not among DOCS
    m = quote_gate(unseen, CITED, CORPUS)
    assert m == "not_found" and m.reason is NotFoundReason.NO_MATCH
    assert m.rejection is RejectionKind.INVENTED
    assert m.closest is None or m.closest.score < 0.75


def test_a_misquote_of_another_document_is_altered_and_names_that_document() -> None:
    m = quote_gate(SOURCE.replace("improves", "degrades"), _IDS[0], CORPUS)
    assert m == "not_found" and m.rejection is RejectionKind.ALTERED
    assert m.closest is not None and m.closest.document_id == CITED


def test_a_closest_passage_search_cut_short_never_claims_invented() -> None:
    unseen = normalize(_ABSTRACTS[_IDS[-1]].split(". ")[0])
    budget = SearchBudget(1000)
    budget.used = 998  # the gate's search took nearly everything
    kind, _ = nearest(unseen, (CITED, CORPUS.normalized(CITED)),
                      CORPUS.documents_near(unseen.split(), CITED), budget)
    assert kind is None  # not shown invented
    assert budget.used <= budget.limit  # and the budget is never overdrawn
    kind, _ = nearest(unseen, (CITED, CORPUS.normalized(CITED)),
                      CORPUS.documents_near(unseen.split(), CITED), SearchBudget())
    assert kind is RejectionKind.INVENTED


def test_the_closest_passage_search_takes_at_most_its_share_of_a_shared_budget() -> None:
    budget = SearchBudget(100_000)
    m = quote_gate(_ABSTRACTS[_IDS[-1]].split(". ")[0], CITED, CORPUS, budget=budget)
    before = budget.used
    assert m.rejection is RejectionKind.INVENTED  # the search runs now, charged to the budget
    assert budget.used > before
    assert budget.used <= CLOSEST_STEPS + 3 * len(DOCS)


def test_the_verdict_alone_never_runs_the_closest_passage_search(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[str] = []

    def counted(needle: str, *rest: Any) -> Diagnosis:
        calls.append(needle)
        return nearest(needle, *rest)

    monkeypatch.setattr(gate_api, "nearest", counted)
    m = quote_gate(SOURCE.replace("improves", "degrades"), CITED, CORPUS)
    assert m == "not_found" and m.reason is NotFoundReason.NO_MATCH and calls == []
    assert m.rejection is RejectionKind.ALTERED and m.closest is not None
    assert m.closest.replaced == (("improves", "degrades"),)
    assert len(calls) == 1  # worked out once, on first read; the second read reuses it


def test_a_diagnosis_read_late_gets_the_steps_its_budget_had_left_at_rejection() -> None:
    unseen = _ABSTRACTS[_IDS[-1]].split(". ")[0]
    budget = SearchBudget(100_000)
    budget.used = 100_000 - 45  # enough to show the quote absent (39), not to search on
    m = quote_gate(unseen, CITED, CORPUS, budget=budget)
    assert m.reason is NotFoundReason.NO_MATCH
    budget.used = 0  # steps freed later do not change the answer
    assert m.rejection is None  # cut short: never called invented
    assert quote_gate(unseen, CITED, CORPUS).rejection is RejectionKind.INVENTED


def test_a_found_quote_carries_no_rejection() -> None:
    m = quote_gate(SOURCE, CITED, CORPUS)
    assert m == "found" and m.rejection is None and m.closest is None


def test_the_result_dict_carries_the_rejection_and_the_closest_passage() -> None:
    data = quote_gate(SOURCE.replace("improves", "degrades"), CITED, CORPUS).to_dict()
    assert data["rejection"] == "altered"
    closest = data["closest"]
    assert isinstance(closest, dict) and closest["replaced"] == [["improves", "degrades"]]


def _quote_cut_alone(needle: str) -> tuple[tuple[str, ...], tuple[tuple[str, int], ...]]:
    """The closest-passage search's reading of a quote as it was made before it shared the slip
    search's cut: its own token scan, anchors picked from the matches sorted longest first."""
    from vcg_otel.gate.slips import tokens
    found = tokens(needle)
    seen: set[str] = set()
    anchors: list[tuple[str, int]] = []
    for m in sorted(found, key=lambda m: -len(m.group())):
        if len(m.group()) >= 4 and m.group() not in seen:
            seen.add(m.group())
            anchors.append((m.group(), m.start()))
    if not anchors and found:
        anchors = [(found[0].group(), found[0].start())]
    return tuple(m.group() for m in found), tuple(anchors[:12])


@settings(max_examples=300, deadline=None)
@given(text=st.text(st.sampled_from(list("ab cd,e-f'1.2,30 00 wxyz ÀÉ ß αβ 的 _"))
                    | st.characters(), max_size=120))
def test_the_shared_cut_of_a_quote_gives_the_closest_search_the_same_words_and_anchors(
        text: str) -> None:
    # The closest-passage search reads the quote's words from the slip search's cut (kept for
    # the quote): it must read the same words and pick the same anchors at the same offsets.
    from vcg_otel.gate.closest import _quote
    needle = normalize(text)
    quote = _quote(needle)
    assert (quote.words, quote.anchors) == _quote_cut_alone(needle)


def test_the_shared_cut_reads_real_sentences_as_the_closest_search_did() -> None:
    from vcg_otel.gate.closest import _quote
    for text in list(_ABSTRACTS.values())[:60]:
        for sentence in text.split(". "):
            needle = normalize(sentence)
            quote = _quote(needle)
            assert (quote.words, quote.anchors) == _quote_cut_alone(needle)


def test_a_rejected_match_built_field_by_field_is_the_one_the_constructor_makes() -> None:
    import dataclasses

    from vcg_otel.gate.result import GateMatch, GateResult

    built = gate_api._rejected("degrades nDCG", CITED, CORPUS, SearchBudget())
    made = GateMatch(GateResult.NOT_FOUND, CITED, reason=NotFoundReason.NO_MATCH,
                     diagnosis=built.diagnosis)
    assert type(built) is GateMatch
    for field in dataclasses.fields(GateMatch):
        assert getattr(built, field.name) == getattr(made, field.name), field.name
    with pytest.raises(dataclasses.FrozenInstanceError):
        built.reason = None  # type: ignore[misc]
    assert built.rejection is RejectionKind.ALTERED or built.rejection is RejectionKind.INVENTED
