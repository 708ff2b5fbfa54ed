"""The search of the other documents takes shortcuts that change no answer.

A quote not found where it cites is searched in its cited document and in every other document
that may hold it (:meth:`vcg_otel.gate.corpus.Corpus.find_in`, :meth:`.search_elsewhere`).
Shortcuts make that cheaper:

* a quote without editorial marks is tested against each document's skeleton first (one
  substring test), and a document without it is charged what the full search would charge;
* a plain ASCII quote is looked up in the word index by its clean stretches (runs of letters
  and digits between spaces), not cut into words; a quote with marks is cut faster (its whole
  quote read without stretches when it has no hyphen or comma between digits, a comma between
  digits found by a pattern that starts with its comma);
* the shortest postings list is taken with ``min`` when it is short enough to verify.

Each is checked here against the code it replaces, kept below as the reference, derandomized:
over quotes made from the benchmark's abstracts (verbatim, with slips, with a word changed),
cited to their own document or another, in corpora small enough to be scanned and large enough
to be indexed, with budgets that run out anywhere, and a document long enough that a scan of
it costs a step.
"""

from __future__ import annotations

import re

from cases import load_corpus
from hypothesis import given, settings
from hypothesis import strategies as st

from vcg_otel.gate import Corpus, SearchBudget, SearchLimitReached
from vcg_otel.gate import corpus as corpus_module
from vcg_otel.gate.quote import ParsedQuote, parse_quote
from vcg_otel.gate.search import Span, find_quote
from vcg_otel.gate.slips import quote_skeleton, skeleton

_SETTINGS = settings(derandomize=True, database=None, max_examples=300, deadline=None)
_ABSTRACTS = load_corpus()
_IDS = sorted(_ABSTRACTS)
# ~90,000 characters of abstracts no other document here holds: each scan of it costs a step
# (64 kB a step), so a charge left out or added shows in the count.
_LONG = " ".join(_ABSTRACTS[key] for key in _IDS[200:260])

# Slips the slip search forgives, and changes it does not.
_SLIPS = ((" ", ", "), (", ", " "), ("-", " "), ("-", ""), (" ", "-"), (": ", ", "),
          (", ", " - "), (",", ""))
_CHANGES = ((r"[a-z]{5,}", lambda m: m.group()[:-1] + "q"), (r"\d", lambda m: "7"),
            (r"\b(?:the|and|of)\b", lambda m: "not"))


def _documents(size: int) -> dict[str, str]:
    """The first ``size`` abstracts and the long document."""
    docs = {key: _ABSTRACTS[key] for key in _IDS[:size]}
    docs["long"] = _LONG
    return docs


def _quote(data: st.DataObject, docs: dict[str, str]) -> tuple[str, str]:
    """A passage of one of ``docs`` (the source), maybe with slips or a changed word, and
    the document it is cited to: its source or another."""
    source = data.draw(st.sampled_from(sorted(docs)), label="source")
    text = docs[source]
    words = list(re.finditer(r"\S+", text))
    first = data.draw(st.integers(0, len(words) - 2), label="first word")
    last = data.draw(st.integers(first + 1, min(len(words) - 1, first + 25)), label="last")
    quote = text[words[first].start():words[last].end()]
    for old, new in data.draw(st.lists(st.sampled_from(_SLIPS), max_size=2), label="slips"):
        quote = quote.replace(old, new, 1)
    if data.draw(st.booleans(), label="changed"):
        pattern, repl = data.draw(st.sampled_from(_CHANGES), label="change")
        quote = re.sub(pattern, repl, quote, count=1)
    if data.draw(st.booleans(), label="marked"):
        quote = quote.replace(" ", " ... ", 1)  # an elided quote: searched in pieces
    cited = data.draw(st.sampled_from([source, *sorted(docs)]), label="cited")
    return quote, cited


def _budget(data: st.DataObject) -> SearchBudget:
    return SearchBudget(data.draw(st.sampled_from([1, 2, 3, 5, 8, 13, 40, 10_000]),
                                  label="steps"))


def _search_before(corpus: Corpus, quote: ParsedQuote, exclude: str, max_gap: int,
                   budget: SearchBudget) -> tuple[list[tuple[str, Span]], bool]:
    """``search_elsewhere`` as it was before the skeleton test: every candidate searched."""
    found: list[tuple[str, Span]] = []
    probes = corpus_module._probes(quote)
    try:
        candidates = corpus._candidates(quote, budget)
        corpus._scanned += len(candidates)
        for doc_id in candidates:
            if doc_id == exclude:
                continue
            doc = corpus.normalized(doc_id)
            budget.spend()
            if probes and not corpus_module._holds(doc.text, probes, budget):
                continue
            span = find_quote(doc, quote, max_gap, budget)
            if span is not None:
                found.append((doc_id, span))
    except SearchLimitReached:
        return found, False
    return found, True


@_SETTINGS
@given(data=st.data())
def test_the_skeleton_test_of_other_documents_answers_and_charges_as_searching_them(
        data: st.DataObject) -> None:
    indexed = data.draw(st.booleans(), label="indexed")
    docs = _documents(40 if indexed else 12)
    quote, cited = _quote(data, docs)
    parsed = parse_quote(quote)
    if parsed.empty:
        return
    shortcut, full = Corpus(docs), Corpus(docs)
    if indexed:
        shortcut.build_index()
        full.build_index()
    budget = _budget(data)
    reference = SearchBudget(budget.limit)
    answer = shortcut.search_elsewhere(parsed, cited, 300, budget)
    assert answer == _search_before(full, parsed, cited, 300, reference), quote
    assert budget.used == reference.used, quote


def test_a_quote_found_only_with_slips_in_another_document_is_still_found_there() -> None:
    # The skeleton test must let through a document that holds the quote only once its slips
    # are forgiven: the hyphen and the comma of the source are gone from the quote.
    docs = {"cited": "nothing to see here at all", "other": "we study fine-tuning, at scale"}
    corpus = Corpus(docs)
    found, complete = corpus.search_elsewhere(parse_quote("fine tuning at scale"), "cited")
    assert complete and [doc_id for doc_id, _ in found] == ["other"]
    assert found[0][1].forgiven == ("hyphen", "punctuation")


def test_the_kept_quote_skeleton_is_made_for_the_quote_asked_for() -> None:
    first = "well-known results, at scale"
    same_text = "".join(["well-known results, ", "at scale"])  # equal, another object
    assert same_text == first and same_text is not first
    assert quote_skeleton(first) == skeleton(first)
    assert quote_skeleton(first) == skeleton(first)  # kept
    assert quote_skeleton(same_text) == skeleton(first)
    assert quote_skeleton("another quote") == skeleton("another quote")
    assert quote_skeleton(first) == skeleton(first)


# -- the words a quote is looked up by ------------------------------------------------------

_DIGIT_COMMA_BEFORE = re.compile(r"\d,\d")
# Letters, digits (of other scripts too), hyphens and commas, spaces of many kinds.
_TEXT = st.lists(st.sampled_from([*"ab Z_'09,,--.  \t\n", "\u0663", "\u00e9", "\u00a0", "\u6a21",
                                  "\u2028", "1,2"]),
                 max_size=30).map("".join)


def _needle_words_before(text: str) -> set[str]:
    """The words of a whole quote as the index lookup took them before: all of them less
    every word of a stretch with a hyphen or a comma between digits."""
    unsafe: set[str] = set()
    for stretch in text.split():
        if "-" in stretch or ("," in stretch and _DIGIT_COMMA_BEFORE.search(stretch)):
            unsafe.update(corpus_module._WORD.findall(stretch))
    return set(corpus_module._WORD.findall(text)) - unsafe


@settings(derandomize=True, database=None, max_examples=2000, deadline=None)
@given(text=_TEXT)
def test_a_comma_between_digits_is_found_where_the_plain_pattern_finds_one(text: str) -> None:
    assert ((corpus_module._DIGIT_COMMA.search(text) is None)
            == (_DIGIT_COMMA_BEFORE.search(text) is None))


@settings(derandomize=True, database=None, max_examples=2000, deadline=None)
@given(text=_TEXT)
def test_the_words_of_a_quote_are_its_words_less_those_of_unsafe_stretches(text: str) -> None:
    assert corpus_module._needle_words(text) == _needle_words_before(text)


def _candidates_before(corpus: Corpus, quote: ParsedQuote, budget: SearchBudget) -> list[str]:
    """The candidates of an indexed corpus as ``_candidates`` took them before ``min``: the
    postings lists of the same words sorted by length, intersected until short enough."""
    index, order = corpus._index, corpus._order
    assert index is not None
    words = corpus_module._lookup_words(quote)
    if not words:
        return order
    found = list(map(index.get, sorted(words)))  # in the order _candidates asks
    if None in found:
        corpus_module._charge(budget, found.index(None) + 1)
        return []
    corpus_module._charge(budget, len(found))
    lists: list[list[int]] = [f for f in found if f is not None]
    lists.sort(key=len)
    candidates: set[int] | list[int] = lists[0]
    for more in lists[1:4]:
        if len(candidates) <= corpus_module._VERIFY_LIMIT:
            break
        budget.scan(len(more) * 64)
        smaller = set(candidates)
        candidates = [i for i in more if i in smaller]
    return [order[i] for i in sorted(candidates)]


_INDEXED = Corpus(_documents(120))
_INDEXED.build_index()


@_SETTINGS
@given(data=st.data())
def test_the_shortest_postings_list_is_the_one_the_sort_put_first(data: st.DataObject) -> None:
    # The quotes the rarest-stretch search leaves to the word lookup (marked ones, mostly).
    quote, _ = _quote(data, _documents(120))
    if data.draw(st.booleans(), label="common words only"):
        quote = " ".join(w for w in quote.split() if len(w) <= 4) or quote  # long lists
    parsed = parse_quote(quote)
    assert _INDEXED._index is not None
    if corpus_module._rarest_stretch(_INDEXED._index, parsed, SearchBudget(10**9)) is not None:
        return
    budget = _budget(data)
    reference = SearchBudget(budget.limit)
    try:
        got: list[str] | None = _INDEXED._candidates(parsed, budget)
    except SearchLimitReached:
        got = None
    try:  # the rarest-stretch search's charges first (it looked, found every list too long)
        corpus_module._rarest_stretch(_INDEXED._index, parsed, reference)
        want: list[str] | None = _candidates_before(_INDEXED, parsed, reference)
    except SearchLimitReached:
        want = None
    assert got == want, quote
    assert budget.used == reference.used, quote


@_SETTINGS
@given(data=st.data())
def test_the_rarest_stretch_is_as_rare_as_the_rarest_clean_stretch(data: st.DataObject) -> None:
    # Stopped at a list of one document, or the shortest of the clean stretches' lists; none
    # when the index lacks a clean stretch (it may stop at a list of one before seeing it).
    quote, _ = _quote(data, _documents(120))
    parsed = parse_quote(quote)
    index = _INDEXED._index
    assert index is not None
    rarest = corpus_module._rarest_stretch(index, parsed, SearchBudget(10**9))
    if rarest is None or parsed.elided:
        return
    lists = [index.get(s) for s in parsed.needle.split() if s.isalnum()]
    if None in lists:
        assert rarest == [] or len(rarest) == 1, quote
    else:
        assert rarest in lists, quote
        assert len(rarest) == 1 or len(rarest) == min(map(len, lists)), quote


@_SETTINGS
@given(data=st.data())
def test_the_candidates_hold_every_document_that_holds_the_quote(data: st.DataObject) -> None:
    # What makes every shortcut of the lookup exact: no document in which find_quote finds
    # the quote (as written, in pieces, with slips) is left out of the candidates.
    quote, _ = _quote(data, _documents(120))
    parsed = parse_quote(quote)
    if parsed.empty:
        return
    candidates = set(_INDEXED._candidates(parsed, SearchBudget(10**9)))
    for key in _INDEXED:
        if find_quote(_INDEXED.normalized(key), parsed, 300, SearchBudget(10**9)) is not None:
            assert key in candidates, (quote, key)


@_SETTINGS
@given(data=st.data())
def test_every_word_a_quote_is_looked_up_by_is_an_index_word_of_a_document_holding_it(
        data: st.DataObject) -> None:
    # The clean stretches of a plain quote (and the words of any other): a document in which
    # the quote is found, as written or with slips (a hyphen dropped, "fine-tuning" quoted
    # "finetuning"; a thousands separator dropped), holds each of them as an index word.
    docs = _documents(40)
    quote, _ = _quote(data, docs)
    parsed = parse_quote(quote)
    if parsed.empty:
        return
    words = corpus_module._lookup_words(parsed)
    for key in docs:
        doc = _INDEXED.normalized(key)
        if find_quote(doc, parsed, 300, SearchBudget(10**9)) is not None:
            assert words <= corpus_module._index_words(doc.text), (quote, key)


def test_a_quote_joined_where_the_document_hyphenates_is_looked_up_by_the_joined_word() -> None:
    corpus = Corpus({f"filler-{i}": f"unrelated text number {i}" for i in range(40)}
                    | {"cited": "nothing here", "source": "we use fine-tuning, at scale"})
    corpus.build_index()
    parsed = parse_quote("we use finetuning at scale")
    assert corpus_module._lookup_words(parsed) == {"we", "use", "finetuning", "at", "scale"}
    found, complete = corpus.search_elsewhere(parsed, "cited")
    assert complete and [doc_id for doc_id, _ in found] == ["source"]


@_SETTINGS
@given(data=st.data())
def test_the_cited_document_is_ruled_out_by_its_skeleton_as_searching_it_would(
        data: st.DataObject) -> None:
    docs = _documents(12)
    quote, cited = _quote(data, docs)
    cited = data.draw(st.sampled_from([cited, "long"]), label="cited, or the long one")
    parsed = parse_quote(quote)
    corpus = Corpus(docs)
    budget = _budget(data)
    reference = SearchBudget(budget.limit)
    try:
        got: Span | str | None = corpus.find_in(cited, parsed, 300, budget)
    except SearchLimitReached:
        got = "cut short"
    try:
        want: Span | str | None = find_quote(corpus.normalized(cited), parsed, 300, reference)
    except SearchLimitReached:
        want = "cut short"
    assert got == want, quote
    assert budget.used == reference.used, quote


def test_a_quote_with_words_of_a_script_the_index_leaves_out_is_still_found_elsewhere() -> None:
    # "模型" is letters to str.isalnum but no index word (a script written without spaces):
    # looked up, it would rule out every document.
    corpus = Corpus({f"filler-{i}": f"unrelated text number {i}" for i in range(40)}
                    | {"cited": "nothing here", "source": "the 模型 works well"})
    corpus.build_index()
    found, complete = corpus.search_elsewhere(parse_quote("the 模型 works well"), "cited")
    assert complete and [doc_id for doc_id, _ in found] == ["source"]
