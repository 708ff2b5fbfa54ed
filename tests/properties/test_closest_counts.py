"""The closest-passage search's shortcuts on a document's anchor words change no answer.

``_voters`` keeps the anchor words a document holds, but not too often; it asked
``0 < hay.count(word) <= _MAX_OCCURRENCES`` of each, a full count, and now counts only a word
that is present and could occur too often (:func:`~vcg_otel.gate.closest._held_not_too_often`).
``_quote`` orders the anchors by a reversed stable sort on ``len``. Both are checked against
the expressions they replace, derandomized, on text of few letters (many overlapping and
repeated occurrences) and with the occurrence bound lowered so that it is often reached.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from vcg_otel.gate import closest as cl

_SETTINGS = settings(derandomize=True, database=None, max_examples=1000, deadline=None)


@_SETTINGS
@given(hay=st.text(st.sampled_from("ab c'é1,"), max_size=60),
       word=st.text(st.sampled_from("ab c'é1,"), min_size=1, max_size=4),
       bound=st.integers(0, 12))
def test_a_word_is_held_not_too_often_as_counted(hay: str, word: str, bound: int) -> None:
    saved = cl._MAX_OCCURRENCES
    cl._MAX_OCCURRENCES = bound
    try:
        assert cl._held_not_too_often(hay, word) == (0 < hay.count(word) <= bound)
    finally:
        cl._MAX_OCCURRENCES = saved


def _anchors_before(needle: str) -> tuple[tuple[str, int], ...]:
    """``_quote``'s anchors as they were made: a stable sort by minus the length."""
    words, starts = cl.quote_words(needle)
    first: dict[str, int] = {}
    for word, start in zip(words, starts, strict=True):
        if len(word) >= cl._MIN_ANCHOR and word not in first:
            first[word] = start
    anchors = sorted(first.items(), key=lambda anchor: -len(anchor[0]))[:cl._MAX_ANCHORS]
    if not anchors and words:
        anchors = [(words[0], starts[0])]
    return tuple(anchors)


@_SETTINGS
@given(words=st.lists(st.sampled_from(["the", "data", "model", "tasks", "1,204", "don't",
                                       "été", "a", "results", "x", "graph", "2.5"]),
                      max_size=30),
       separator=st.sampled_from([" ", ", ", " - ", "; "]))
def test_the_anchors_are_the_longest_words_first_in_quote_order(
        words: list[str], separator: str) -> None:
    needle = separator.join(words)
    assert cl._quote(needle).anchors == _anchors_before(needle)
