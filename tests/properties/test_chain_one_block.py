"""A search of a document of one block that counts its steps and settles them once
(vcg_otel/gate/search.py: ``_find_chain`` over ``_chain_in_one_block``, ``find_whole``,
``find_without_insertions``) leaves what the search spending them step by step leaves
(``_find_chain_stepwise`` over the block-wise pass ``_Chain``, ``_find_whole_stepwise``, the
full path's ``find_quote``): the same span, the same steps used, the same next look at the
deadline, the same looks, the same ``SearchLimitReached``.

Documents are made of a few short words, so pieces recur and chains have choices; with
square brackets (bracket-only gaps may not hold one), hyphens and digits (edge rules),
blank lines and U+2029 (no chain across a paragraph break), markup and non-ASCII text (gaps
mapped back through offset maps).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from vcg_otel.gate.normalize import normalize_with_map
from vcg_otel.gate.quote import ParsedQuote
from vcg_otel.gate.search import (
    _BLOCK,
    SearchBudget,
    SearchLimitReached,
    Span,
    _chain_in_one_block,
    _find_chain,
    _find_chain_stepwise,
    _find_whole_stepwise,
    find_quote,
    find_whole,
    find_without_insertions,
)

_WORDS = st.sampled_from(["a", "ab", "b", "ba", "x", "12", "1", "-", "[", "]", "[a]", "ab-b",
                          "\u00e9", "\ufb01", "<b>", "</b>", "**", "\u2029", "c"])
_FEW_WORDS = st.sampled_from(["a", "b", "ab", "a b", "a-b", "[b]", "\n\n"])
_SEPARATORS = st.sampled_from([" ", " ", " ", "  ", "\n", "\n\n", "\n \n", ". ", ", ", "-",
                               "\u00a0", "\r\n\r\n"])


class _Deadline:
    """Expires at its ``expire_at``-th look (never for 0); counts the looks."""

    def __init__(self, expire_at: int) -> None:
        self.expire_at = expire_at
        self.looks = 0

    def expired(self) -> bool:
        self.looks += 1
        return self.looks == self.expire_at


@st.composite
def chains(draw: st.DrawFn) -> tuple[str, tuple[str, ...], tuple[bool, ...], int,
                                     tuple[bool, bool], int, int, int]:
    # Mostly a text of a few words, in which pieces recur: chains have choices to make.
    words = draw(st.lists(_WORDS if draw(st.integers(0, 2)) == 0 else _FEW_WORDS, min_size=6,
                          max_size=60))
    seps = draw(st.lists(_SEPARATORS, min_size=len(words), max_size=len(words)))
    original = "".join(w + s for w, s in zip(words, seps, strict=True))
    text = normalize_with_map(original).text
    count = draw(st.integers(1, 4))
    if text and draw(st.integers(0, 3)):
        # in order, as an elided quote's pieces stand (mostly cut at spaces, so that the
        # edge rules let some through)
        lo = draw(st.integers(0, len(text) - 1))
        hi = min(len(text), lo + 50)
        spaces = [i for i in range(lo, hi) if text[i] == " "]
        at_space = st.sampled_from([lo, hi, *spaces])
        cuts = sorted(draw(st.lists(st.one_of(at_space, at_space, at_space, st.integers(lo, hi)),
                                    min_size=2 * count, max_size=2 * count)))
        pieces = [text[cuts[2 * k]:cuts[2 * k + 1]].strip() or "a" for k in range(count)]
    else:
        pieces = [draw(st.sampled_from(["a", "ab", "b", "a b", "1", "x", "c"]))
                  for _ in range(count)]
    gaps = tuple(draw(st.lists(st.booleans(), min_size=len(pieces) - 1,
                               max_size=len(pieces) - 1)))
    if draw(st.integers(0, 5)) == 0:
        gaps = ()  # the pass reads a gaps tuple of the wrong length as no bracket-only gap
    max_gap = draw(st.integers(0, 40))
    edges = (draw(st.booleans()), draw(st.booleans()))
    limit = draw(st.sampled_from([1, 2, 4, 7, *[10_000] * 8]))
    used = draw(st.sampled_from([0, 0, 1, 1020, 1023, 1024, 1500]))
    expire_at = draw(st.integers(0, 3))
    return original, tuple(pieces), gaps, max_gap, edges, limit + used, used, expire_at


Case = tuple[str, tuple[str, ...], tuple[bool, ...], int, tuple[bool, bool], int, int, int]


def _outcome(search: str, case: Case) -> tuple[object, ...]:
    """The answer (or the budget's message) and the budget's and deadline's state after it."""
    original, pieces, gaps, max_gap, edges, limit, used, expire_at = case
    doc = normalize_with_map(original)
    assert len(doc.text) <= _BLOCK
    deadline = _Deadline(expire_at)
    budget = SearchBudget(limit, deadline)
    budget.used = used  # as a shared budget arrives, its next look possibly passed
    needle = " ".join(pieces)
    answer: Span | int | str | None
    try:
        if search == "chain, settled":
            answer = _find_chain(doc, pieces, gaps, max_gap, budget, edges)
        elif search == "chain, step by step":
            answer = _find_chain_stepwise(doc, pieces, gaps, max_gap, budget, edges)
        elif search == "whole, settled":
            answer = find_whole(doc.text, needle, budget, edges)
        elif search == "whole, step by step":
            answer = _find_whole_stepwise(doc.text, needle, budget, edges)
        elif search == "without insertions":
            answer = find_without_insertions(doc, needle, pieces, max_gap, budget)
        else:
            parsed = ParsedQuote(needle, pieces, True, (False,) * (len(pieces) - 1))
            answer = find_quote(doc, parsed, max_gap, budget)
            if answer is not None and answer.forgiven:
                answer = None  # found by the slip search, which find_without_insertions leaves
    except SearchLimitReached as cut:
        answer = str(cut)
    return answer, budget.used, budget.next_look, deadline.looks


@settings(max_examples=3000, deadline=None)
@given(chains())
def test_a_chain_settled_once_is_the_chain_charged_step_by_step(case: Case) -> None:
    assert _outcome("chain, settled", case) == _outcome("chain, step by step", case)


@settings(max_examples=1500, deadline=None)
@given(chains())
def test_a_whole_needle_settled_once_is_the_needle_charged_step_by_step(case: Case) -> None:
    assert _outcome("whole, settled", case) == _outcome("whole, step by step", case)


@settings(max_examples=3000, deadline=None)
@given(chains())
def test_the_search_without_insertions_is_the_full_search_up_to_its_slip_search(
        case: Case) -> None:
    settled = _outcome("without insertions", case)
    full = _outcome("full", case)
    if settled[0] is None:
        assert full[0] is None or isinstance(full[0], str)  # the slip search may run out
    else:
        assert settled == full


def test_the_generated_chains_are_found_and_missed_and_cut_short() -> None:
    """The property above would prove little if every generated chain were missed: count
    how many of a fixed sample are found, missed and cut short by the budget."""
    seen = {"found": 0, "missed": 0, "cut": 0}

    @settings(max_examples=600, deadline=None)
    @given(chains())
    def tally(case: tuple[str, tuple[str, ...], tuple[bool, ...], int, tuple[bool, bool], int,
                          int, int]) -> None:
        original, pieces, gaps, max_gap, edges, limit, used, _ = case
        budget = SearchBudget(limit)
        budget.used = used
        try:
            span, steps = _chain_in_one_block(normalize_with_map(original), pieces, gaps,
                                              max_gap, edges)
        except SearchLimitReached:  # pragma: no cover - counted, never spent
            return
        if not budget.settle(steps):
            seen["cut"] += 1
            return
        seen["found" if span is not None else "missed"] += 1

    tally()
    assert min(seen.values()) >= 30, seen
