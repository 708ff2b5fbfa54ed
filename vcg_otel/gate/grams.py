"""Which documents of a set may hold a string, told without scanning them.

A rejected quote is tested against every document of its set: the gate proves it is in no
other document (:meth:`~vcg_otel.gate.corpus.Corpus.search_elsewhere`), and the closest-passage
search proves no other document holds most of its longest words
(:func:`~vcg_otel.gate.closest.nearest`). Each test is a substring scan, and a Python loop
around it that costs more than the scan. A set searched for rejected quotes again and again
(the same retrieved chunks for a recurring question, a corpus kept for an app) answers all of
them at once from a :class:`GramIndex`: every 4-byte piece of its documents' skeletons
(:func:`~vcg_otel.gate.slips.skeleton`), each with the documents that hold it.

Exact for absence, which is all it is asked: a string holds each of its pieces, so a document
that lacks one of them lacks the string. A document that has every piece may still lack the
string; the caller then searches it as before. Skeletons, not texts: a word or a quote held by
a text has its skeleton in the text's (the skeleton deletes characters one by one), so one index
answers both the gate's test, which is of skeletons, and the closest-passage search's, which is
of words in the text.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["GRAM", "GramIndex"]

#: Bytes per piece. Four: most of the pieces of an English word in a 2 kB document are in no
#: other 2 kB document, and the anchor words of a quote are at least four letters long.
GRAM = 4

# slice(i, i + GRAM) for every start, shared by every index built (grown as needed): the pieces
# of a skeleton are cut by one ``map`` at C speed.
_slices: list[slice] = []


def _pieces(skeleton: bytes) -> set[bytes]:
    """The distinct :data:`GRAM`-byte pieces of ``skeleton``."""
    global _slices
    starts = len(skeleton) - GRAM + 1
    if starts <= 0:
        return set()
    if len(_slices) < starts:
        _slices = [slice(i, i + GRAM) for i in range(max(starts, 2 * len(_slices)))]
    return set(map(skeleton.__getitem__, _slices[:starts]))


class GramIndex:
    """The documents holding each :data:`GRAM`-byte piece of a set of skeletons, as bits
    (bit ``i``: the ``i``-th skeleton given).

    Memory: about 135 bytes per distinct piece (ten 2 kB chunks of English have 7,600), about
    50 bytes per character of the set (measured: 1 MB for 20 k characters); building it takes
    about 0.2 µs per character. So it is built only for small sets searched again and again
    (:class:`~vcg_otel.gate.corpus.Corpus`).
    """

    __slots__ = ("_holding", "everyone")

    def __init__(self, skeletons: Sequence[bytes]) -> None:
        holding: dict[bytes, int] = {}
        get = holding.get
        for i, skeleton in enumerate(skeletons):
            bit = 1 << i
            for piece in _pieces(skeleton):
                holding[piece] = get(piece, 0) | bit
        self._holding = holding
        #: Every document's bit.
        self.everyone = (1 << len(skeletons)) - 1

    def holders(self, skeleton: bytes) -> int:
        """The documents that may hold ``skeleton``: every other one lacks one of its pieces,
        so lacks it. All of them for a string shorter than a piece.

        Disjoint pieces, from the first (each can rule documents out on its own, and most
        strings are ruled out of every document by the first or the second), then the last."""
        size = len(skeleton)
        if size < GRAM:
            return self.everyone
        get = self._holding.get
        may = get(skeleton[:GRAM], 0)
        if size == GRAM:
            return may
        start = GRAM
        last = size - GRAM
        while may and start < last:
            may &= get(skeleton[start:start + GRAM], 0)
            start += GRAM
        return may and may & get(skeleton[last:], 0)
