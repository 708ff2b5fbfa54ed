"""Issue 18: the punctuation models change when they quote is forgiven, never the meaning.

Every document here is a real arXiv abstract of the benchmark corpus (written by people); every
quote is one of its sentences changed the way a model transcribing it changes it.
"""

from __future__ import annotations

import pytest
from cases import load_corpus
from hypothesis import given, settings
from hypothesis import strategies as st

from vcg_otel import Corpus, quote_gate
from vcg_otel.gate import GateResult, NotFoundReason, SearchBudget

_ABSTRACTS = load_corpus()
_IDS = ("2608.04591v1", "2608.04244v1", "2608.05138v1", "2608.05075v1", "2608.04452v1",
        "2608.02560v1", "2608.05148v1", "2608.05028v1")
CORPUS = Corpus({k: _ABSTRACTS[k] for k in _IDS})


def gate(quote: str, cited: str):  # type: ignore[no-untyped-def]
    return quote_gate(quote, cited, CORPUS)


# (cited, source sentence as written, the quote a model wrote, the slips forgiven)
SLIPS = [
    ("2608.05138v1", "After fine-tuning on 65,773 Greek retrieval pairs, a Nemotron",
     "After fine-tuning on 65,773 Greek retrieval pairs a Nemotron", ("punctuation",)),
    ("2608.05148v1", "semantic validity alone does not ensure training utility, highlighting",
     "semantic validity alone does not ensure training utility highlighting", ("punctuation",)),
    ("2608.05028v1", "known modifier-ordering patterns, it does not explain",
     "known modifier-ordering patterns, it does not explain", ()),  # as written
    ("2608.04244v1", "designed to preserve non-textual content, enabling paired measurements",
     "designed to preserve non-textual content, and enabling paired measurements", None),
    ("2608.04244v1", "interventions are designed to preserve non-textual content, enabling",
     "interventions are designed to preserve nontextual content, enabling", ("hyphen",)),
    ("2608.04244v1", "Synthetic, localized scene-text interventions",
     "Synthetic, localized scene text interventions", ("hyphen",)),
    ("2608.04591v1", "covers the query scope; otherwise, the answer should remain unknown",
     "covers the query scope, otherwise, the answer should remain unknown", ("punctuation",)),
    ("2608.04591v1", "covers the query scope; otherwise, the answer",
     "covers the query scope: otherwise the answer", ("punctuation",)),
    ("2608.02560v1", "proportional to retrieved context length, and -- with Transformer "
     "backbones -- a KV-cache that grows",
     "proportional to retrieved context length, and, with Transformer backbones, a KV cache "
     "that grows", ("hyphen", "punctuation")),
    ("2608.05138v1", "After fine-tuning on 65,773 Greek retrieval pairs",
     "After fine-tuning on 65773 Greek retrieval pairs", ("thousands_separator",)),
    ("2608.05075v1", "tweets and 59,170 parliamentary speeches by German political elites",
     "tweets, and 59170 parliamentary speeches by German political elites",
     ("punctuation", "thousands_separator")),
    ("2608.04452v1", "Text-rich images use a reusable OCR/layout graph; natural-image search",
     "Text rich images use a reusable OCR/layout graph, natural image search",
     ("hyphen", "punctuation")),
]


@pytest.mark.parametrize(("cited", "source", "quote", "forgiven"),
                         [s for s in SLIPS if s[3] is not None])
def test_a_quote_with_only_punctuation_slips_is_found_with_what_was_forgiven(
        cited: str, source: str, quote: str, forgiven: tuple[str, ...]) -> None:
    assert source in _ABSTRACTS[cited]  # the real sentence
    m = gate(quote, cited)
    assert m == "found"
    assert m.forgiven == forgiven
    assert m.text is not None and m.start is not None
    assert _ABSTRACTS[cited][m.start:m.end] == m.text  # offsets in the original text
    assert _letters(m.text) == _letters(quote)  # every letter and digit, in order


# The whole benchmark corpus (295 abstracts), word index built: how an app's long-lived Corpus
# searches once it has paid off.
INDEXED = Corpus(_ABSTRACTS)
INDEXED.build_index()


@pytest.mark.parametrize(("cited", "source", "quote", "forgiven"),
                         [s for s in SLIPS if s[3]])
def test_a_slipped_quote_cited_to_another_document_is_misattributed_through_the_word_index(
        cited: str, source: str, quote: str, forgiven: tuple[str, ...]) -> None:
    other = next(k for k in _IDS if k != cited)
    m = quote_gate(quote, other, INDEXED)
    assert m == "misattributed", m.to_dict()
    assert cited in m.source_document_ids
    assert m.forgiven == forgiven


def _letters(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum())


def test_a_quote_that_matches_as_written_records_nothing_forgiven() -> None:
    m = gate("known modifier-ordering patterns, it does not explain", "2608.05028v1")
    assert m == "found" and m.forgiven == ()


def test_an_added_word_is_never_a_slip() -> None:
    # "and" added where the source has only a comma: a word, not punctuation
    assert gate("designed to preserve non-textual content, and enabling paired measurements",
                "2608.04244v1") == "not_found"


MEANING_CHANGES = [
    # negating prefix dropped, alone and inside a quote that also drops a comma
    ("2608.04244v1", "designed to preserve textual content, enabling paired measurements"),
    ("2608.04244v1", "designed to preserve textual content enabling paired measurements"),
    ("2608.04591v1", "Yet observation licenses a negative answer only when evidence"),
    ("2608.04591v1", "observation licenses a negative answer"),  # starts inside non-observation
    ("2608.04591v1", "the answer should remain known"),  # un- dropped
    ("2608.04591v1", "models show stable closure judgments and substantial over-closure"),
    # negation removed / added, with a slip elsewhere
    ("2608.05148v1", "semantic validity alone does ensure training utility highlighting"),
    ("2608.05028v1", "known modifier ordering patterns, it does explain the models"),
    ("2608.05028v1", "While PMI does not reflect known modifier-ordering patterns"),
    # numbers: digits, decimal point, thousands separator moved
    ("2608.05138v1", "After fine-tuning on 65,774 Greek retrieval pairs a Nemotron"),
    ("2608.05138v1", "improves nDCG@10 from 0.362 to 835 and substantially"),
    ("2608.05138v1", "After fine-tuning on 657,73 Greek retrieval pairs"),
    ("2608.05138v1", "After fine-tuning on 6577,3 Greek retrieval pairs"),
    ("2608.05075v1", "Analysing 45 million tweets and 59,170 parliamentary speeches"),
    # words replaced, dropped, moved; a frankenquote, with slips
    ("2608.05138v1", "a Nemotron 1B embedder degrades nDCG@10 from 0.362 to 0.835"),
    ("2608.04452v1", "Text rich images use a OCR/layout graph, natural image search"),
    ("2608.04452v1", "Text rich images use a layout/OCR graph, natural image search"),
    ("2608.04452v1", "Text rich images use a reusable OCR/layout graph behind the same selection"),
]


@pytest.mark.parametrize(("cited", "quote"), MEANING_CHANGES)
def test_a_meaning_change_is_not_found_even_beside_a_forgiven_slip(cited: str, quote: str
                                                                   ) -> None:
    m = gate(quote, cited)
    assert m == "not_found" and m.reason is NotFoundReason.NO_MATCH


_NUMBERS = Corpus({"dose": "Mice received -2.5 mg/kg, and the third arm 10-20 mg/kg, at 10:30 "
                           "daily; 28 mg/dL was reading 1,204 (35%)."})


@pytest.mark.parametrize("quote", [
    "Mice received 2.5 mg/kg and the third arm",  # the sign dropped beside a dropped comma
    "received -25 mg/kg and the third arm",
    "the third arm 10 20 mg/kg",  # a range is not two words
    "the third arm 1020 mg/kg",
    "at 10 30 daily",
    "at 1030 daily",
    "daily, 28 g/dL was reading",
    "was reading 1,204 (35)",
    "was reading 1,204 (3.5%)",
    "was reading 12,04 (35%)",
])
def test_punctuation_inside_or_beside_numbers_is_never_forgiven(quote: str) -> None:
    assert quote_gate(quote, "dose", _NUMBERS) == "not_found"


@pytest.mark.parametrize("quote", [
    "Mice received -2.5 mg/kg and the third arm 10-20 mg/kg at 10:30 daily",
    "daily, 28 mg/dL was reading 1204 (35%)",
])
def test_a_comma_beside_a_number_may_still_come_or_go(quote: str) -> None:
    assert quote_gate(quote, "dose", _NUMBERS) == "found"


def test_a_slip_search_cut_short_is_search_limit_never_no_match() -> None:
    big = Corpus({"big": " ".join([_ABSTRACTS["2608.04244v1"]] * 2000)})
    quote = "Synthetic localized scene-text interventions are designed, to preserve"
    m = quote_gate(quote, "big", big, budget=SearchBudget(3))
    assert m.result is GateResult.NOT_FOUND and m.reason is NotFoundReason.SEARCH_LIMIT
    assert m.rejection is None  # nothing claimed about a quote not shown absent


def test_a_document_lacking_a_word_of_the_quote_is_not_searched_for_slips() -> None:
    # Every window of a slip search must hold every longer word of the quote, so a document
    # lacking one (most documents, for a quote searched everywhere) is ruled out by one pass:
    # no anchor counts, no windows, a fraction of the budget the full search would spend.
    text = Corpus({"big": " ".join([_ABSTRACTS["2608.04244v1"]] * 400)}).normalized("big").text
    from vcg_otel.gate.search import _edges_ok
    from vcg_otel.gate.slips import find_slipped
    missing, present = SearchBudget(), SearchBudget()
    assert find_slipped(text, "synthetic localized, scene text interrogations", missing,
                        _edges_ok) is None
    find_slipped(text, "synthetic localized, scene text interventions", present, _edges_ok)
    assert 0 < missing.used < present.used / 2


def test_a_quote_with_a_word_changed_is_ruled_out_before_it_is_cut_into_words() -> None:
    # A fabricated quote (one word changed) whose every word the document holds, so the test
    # of its words passes and windows would be tried: its skeleton (no spaces, no soft
    # punctuation) is not in the document's, so the slip search stops at one substring test,
    # without cutting the quote or compiling a pattern, at a fraction of the budget.
    from vcg_otel.gate import slips
    from vcg_otel.gate.search import _edges_ok
    doc = Corpus({"big": " ".join([_ABSTRACTS["2608.05148v1"]] * 400)}).normalized("big")
    changed = "we compare reasoning core with procedural collections across four base-model"
    honest = "we compare reasoning core with procedural warmup, reasoning gym, and synlogic"
    for word in changed.replace("-", " ").split():
        assert word in doc.text
    slips._shape.cache_clear()
    slips._regex.cache_clear()
    ruled_out, searched = SearchBudget(), SearchBudget()
    assert slips.find_slipped(doc.text, changed, ruled_out, _edges_ok, doc.without_hyphens,
                              doc.slip_skeleton) is None
    assert slips._shape.cache_info().misses == 0 and slips._regex.cache_info().misses == 0
    assert slips._find(doc.text, changed, searched, _edges_ok, doc.without_hyphens) is None
    assert slips._shape.cache_info().misses == 1  # the full search cuts it, tries windows
    assert 0 < ruled_out.used < searched.used / 50  # measured: 8 steps against 2,424
    # a comma dropped: the skeleton is there, the search goes on and finds it
    m = slips.find_slipped(doc.text, honest.replace(",", ""), SearchBudget(), _edges_ok,
                           doc.without_hyphens, doc.slip_skeleton)
    assert m is not None and m.forgiven == ("punctuation",)
    assert doc.text[m.start:m.end] == honest


def test_a_word_the_document_holds_only_hyphenated_still_admits_the_slip_search() -> None:
    # "finetuning" is nowhere in the abstract as written, only as "fine-tuning".
    docs = Corpus({"d": _ABSTRACTS["2608.05148v1"]})
    m = quote_gate("have received less attention as data for completion-supervised finetuning",
                   "d", docs)
    assert m.result is GateResult.FOUND and "hyphen" in m.forgiven


def test_a_document_read_without_its_hyphens_is_kept_for_the_next_rejected_quote() -> None:
    # A quote not found as written makes the slip search read the document's skeleton; one
    # that passes it, the document without its hyphens too (the quote may have joined a
    # compound); the next rejected quote over the same document reads the same copies, and
    # the match found through them stays.
    from vcg_otel.gate import DocumentCache
    from vcg_otel.gate.slips import skeleton
    docs = Corpus({"d": _ABSTRACTS["2608.05148v1"], "e": _ABSTRACTS["2608.04244v1"]},
                  cache=DocumentCache())  # its own: other tests share the default one
    doc = docs.normalized("d")
    assert doc._unhyphenated is None and doc._skeleton is None
    assert quote_gate("our generators produce puzzles nobody verified", "d", docs) == "not_found"
    kept_skeleton = doc._skeleton
    assert kept_skeleton == skeleton(doc.text)
    assert doc._unhyphenated is None  # ruled out by the skeleton: not cut, not read further
    # two words glued ("Reasoning Core"): the skeleton holds it, no slip forgives it
    assert quote_gate("we compare ReasoningCore with Procedural Warmup", "d", docs) == "not_found"
    kept = doc._unhyphenated
    assert kept == doc.text.replace("-", "")
    assert quote_gate("in the primary 3B comparison, ReasoningCore achieves", "d",
                      docs) == "not_found"
    assert doc._unhyphenated is kept and doc.without_hyphens() is kept
    assert doc._skeleton is kept_skeleton and doc.slip_skeleton() is kept_skeleton
    m = quote_gate("have received less attention as data for completion-supervised finetuning",
                   "d", docs)
    assert m == "found" and "hyphen" in m.forgiven
    from vcg_otel.gate.normalize import normalize_with_map
    assert doc == normalize_with_map(_ABSTRACTS["2608.05148v1"])  # the copy is not compared


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_the_words_a_slip_match_needs_are_read_alike_with_the_kept_copy(
        data: st.DataObject) -> None:
    # The whole-text check reads only the copy without hyphens when the caller keeps one: a
    # word written in the text is in the copy too. It must answer as the check that reads
    # the text first, for words the abstract has, has only hyphenated, or lacks.
    from vcg_otel.gate.slips import _holds_words, tokens
    key = data.draw(st.sampled_from(_IDS), label="abstract")
    text = Corpus({"d": _ABSTRACTS[key]}).normalized("d").text
    own = [m.group() for m in tokens(text)]
    joined = [w.replace("-", "") for w in text.split() if "-" in w]
    pool = st.sampled_from(own) | st.sampled_from(joined or own) | st.sampled_from(
        ["interrogations", "finetune", "tuning", "nonfatal"])
    needed = tuple(data.draw(st.lists(pool, min_size=1, max_size=6), label="needed"))
    assert _holds_words(text, needed, lambda: text.replace("-", "")) == \
        _holds_words(text, needed)


def test_a_quote_with_its_words_moved_compiles_no_slip_pattern() -> None:
    # Every word of the quote is in the passage, so each window around it is tried; but not
    # in the quote's order, which no slip can make: no pattern is compiled (~0.6 ms each).
    from vcg_otel.gate import slips
    docs = Corpus({"d": _ABSTRACTS["2608.05148v1"]})
    quote = "Procedural generators produce verifiable, useful reasoning problems at scale"
    slips._regex.cache_clear()
    m = quote_gate(quote, "d", docs)
    assert m.result is GateResult.NOT_FOUND and m.reason is NotFoundReason.NO_MATCH
    assert slips._regex.cache_info().misses == 0
    # the same words in order, one comma dropped: the pattern is compiled and finds it
    m = quote_gate("Procedural generators produce useful verifiable reasoning problems at scale "
                   "but have received less attention", "d", docs)
    assert m.result is GateResult.FOUND and slips._regex.cache_info().misses == 1


def test_a_quote_with_a_word_dropped_or_added_compiles_no_slip_pattern() -> None:
    # Its words are in the passage in the quote's order, so the order check passes; but two
    # of them are no longer next to each other, which no slip can make: no pattern compiled.
    from vcg_otel.gate import slips
    docs = Corpus({"d": _ABSTRACTS["2608.05148v1"]})
    slips._regex.cache_clear()
    for quote in ("Procedural generators produce useful verifiable problems at scale",
                  "Procedural generators produce useful and verifiable reasoning problems"):
        m = quote_gate(quote, "d", docs)
        assert m.result is GateResult.NOT_FOUND and m.reason is NotFoundReason.NO_MATCH
    assert slips._regex.cache_info().misses == 0


_SLIP_EDITS = (("-", " "), ("-", ""), (", ", " "), (" ", ", "), ("; ", ": "), (",", ""),
               (" ", " - "))


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_every_text_a_slip_pattern_matches_passes_the_checks_made_before_compiling_it(
        data: st.DataObject) -> None:
    # The pattern is compiled only for a window holding the quote's literal runs (its words
    # next to each other, soft punctuation folded), and, for a window with hyphens, its words
    # in order once they are dropped: that must be true of every text the pattern matches in,
    # for any slips, hyphens, numbers and hard punctuation of real prose.
    from vcg_otel.gate.slips import _in_order, _literal_runs, _regex, _runs_in, _shape, tokens
    key = data.draw(st.sampled_from(_IDS), label="abstract")
    text = Corpus({"d": _ABSTRACTS[key]}).normalized("d").text
    found = tokens(text)
    first = data.draw(st.integers(0, len(found) - 2), label="first word")
    last = data.draw(st.integers(first + 1, min(len(found) - 1, first + 14)), label="last")
    start, end = found[first].start(), found[last].end()
    quote, passage = text[start:end], text[start:end]
    for old, new in data.draw(st.lists(st.sampled_from(_SLIP_EDITS), max_size=3), label="slips"):
        quote = quote.replace(old, new, 1)
    for old, new in data.draw(st.lists(st.sampled_from(_SLIP_EDITS), max_size=2), label="text"):
        passage = passage.replace(old, new, 1)  # the slip on the text's side: "fine-tuning"
    text = text[:start] + passage + text[end:]  # quoted where the text has "finetuning"
    shape = _shape(quote)
    if shape is None:
        return
    hyphened = {w for w in shape.words if w not in text and w in text.replace("-", "")}
    for joined in ((), tuple(hyphened)):
        if _regex(shape, frozenset(joined)).search(text) is not None:
            assert _runs_in(shape, text, joined), (quote, _literal_runs(shape, joined))
            assert _in_order(shape.words, text.replace("-", ""), ()), quote


@settings(max_examples=500, deadline=None)
@given(text=st.text(st.sampled_from(list("aZ09_'.,-;: ()%/\"\n\t\x00\x7f")) | st.characters(
    max_codepoint=127), max_size=80))
def test_an_ascii_text_is_cut_into_the_same_words_by_the_plain_classes(text: str) -> None:
    # ASCII text is read with [A-Za-z0-9] and [0-9] for the unicode classes: the same words,
    # the same offsets, the same separators.
    from vcg_otel.gate import slips
    assert [(m.start(), m.group()) for m in slips.tokens(text)] == \
        [(m.start(), m.group()) for m in slips._TOKEN.finditer(text)]
    assert slips._ASCII_TOKEN_SPLIT.split(text) == slips._TOKEN_SPLIT.split(text)


def test_a_quote_tried_in_many_windows_works_out_its_literal_runs_once() -> None:
    # The runs are kept on the quote's cut, by the joined words they were made for, and are
    # the runs made afresh.
    from vcg_otel.gate.slips import _literal_runs, _runs_in, _shape
    shape = _shape("procedural generators produce useful, verifiable reasoning problems")
    assert shape is not None
    shape.runs.clear()  # the cut is cached: start from no runs
    window = "so procedural generators produce useful verifiable reasoning problems at scale"
    assert _runs_in(shape, window, ()) and _runs_in(shape, window, ())
    assert list(shape.runs) == [frozenset()]
    assert shape.runs[frozenset()] == _literal_runs(shape, ()) == [
        "procedural generators produce useful verifiable reasoning problems"]
    assert not _runs_in(shape, window.replace("useful ", "very useful "), ())
