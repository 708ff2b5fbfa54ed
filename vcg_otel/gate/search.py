"""Finding a parsed quote inside one normalized document.

Two rules make a match honest:

* **Whole words at the edges.** A quote that starts or ends inside a word, or cuts a number
  short (``5`` inside ``5%``, ``2.5`` or ``50``, ``2.5`` after the sign of ``-2.5``), or
  cuts a hyphenated compound or range in two (``fatal`` of ``non-fatal``, ``20`` of
  ``10-20``), is not a match. Scripts written without
  spaces (CJK, Thai, …) have no word edges, so the rule does not apply to them.
* **Elided pieces stay in one passage.** Pieces of an elided quote occur in order, each gap at
  most ``max_gap`` normalized characters and free of paragraph breaks in the original. A gap
  that stands for an editorial insertion (``it [the model] improves``) may not hold square
  brackets: an editorial bracket never stands for text that is bracketed in the original. An
  insertion at an end of the quote may not stand next to a bracket of the original either.

The work is bounded by design. The pieces of an elided quote are chained by one left-to-right
pass that keeps, for each piece, the occurrences reachable from a chain of the pieces before
it; an occurrence needs only its *closest* reachable predecessor (every rule on a gap holds for
a shorter gap if it holds for a longer one), so each occurrence is examined once and the pass
stops at the first complete chain. Every occurrence examined, document opened and block of text
scanned costs steps from a :class:`SearchBudget`; when it runs out the search raises
:class:`SearchLimitReached` and the caller fails closed with its own reason, never ``found``.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from typing import Protocol

from .._frozen import slot_builder
from .normalize import NormalizedText
from .quote import ParsedQuote
from .slips import find_slipped

__all__ = [
    "DEFAULT_MAX_GAP",
    "DEFAULT_SEARCH_STEPS",
    "SearchBudget",
    "SearchLimitReached",
    "Span",
    "find_contiguous",
    "find_quote",
    "find_whole",
    "find_without_insertions",
    "is_spaced_word_char",
    "scan_steps",
]

DEFAULT_MAX_GAP = 300
#: Steps one quote may cost (its cited document and the search of all the others). A step is
#: about half a microsecond of work on one core, so a quote costs at most about 5 ms whatever
#: the quote and the documents. An honest quote needs about one step per short document it
#: touches: a plain scan of several thousand documents fits; a corpus used again gets a word
#: index instead.
DEFAULT_SEARCH_STEPS = 10_000
# Costs in steps. Text scanned at C speed (a substring test, a find over a whole document):
# one step per _SCAN_CHARS characters. Charged lightly: one pass over the cited document is the
# least any answer costs, and a 50 MB document must still be searchable within the budget;
# what the budget bounds is the work beyond such passes.
_SCAN_CHARS = 65536
_CHAIN_STEP = 2  # an occurrence examined by the chaining pass
_BREAK_STEP = 4  # a paragraph-break check (maps the gap back to the original)
# The chaining pass advances through a document in blocks of this many characters, so a chain
# near the start of a large document is found without examining the rest.
_BLOCK = 4096
_BRACKETS = frozenset("[]")
_NO_EDGES = (False, False)


#: Steps between two looks at a search's deadline (about half a millisecond of work).
_DEADLINE_STEPS = 1024


def scan_steps(chars: int) -> int:
    """The steps a C-speed pass over ``chars`` characters costs (:meth:`SearchBudget.scan`):
    for callers that add up many such charges before settling them at once."""
    return chars // _SCAN_CHARS


class _Expiring(Protocol):
    def expired(self) -> bool: ...


class SearchLimitReached(Exception):
    """The search budget ran out before the search could finish.

    Raised by the search; :func:`~vcg_otel.gate.quote_gate` turns it into ``not_found`` with
    reason ``search_limit`` (never ``found``), or ``misattributed`` when another source had
    already been found.
    """


class SearchBudget:
    """Work allowed for searching: one quote by default, or one audit when shared.

    Args:
        steps: the most steps to spend. A step is about half a microsecond of work: opening a
            document or examining an occurrence of a whole quote is one step, an occurrence of
            a piece of an elided quote two, and 64 kB of text scanned at C speed one.
        deadline: the foreground call's deadline (:class:`vcg_otel._deadline.Deadline`, or
            anything with ``expired()``), looked at every :data:`_DEADLINE_STEPS` steps: once
            it has passed the search stops as if its steps were spent (the caller can tell
            by asking the deadline).
    """

    __slots__ = ("deadline", "limit", "next_look", "used")

    def __init__(self, steps: int = DEFAULT_SEARCH_STEPS,
                 deadline: _Expiring | None = None) -> None:
        # A budget is made for every quote: the common int is told first.
        if type(steps) is not int and (isinstance(steps, bool) or not isinstance(steps, int)):
            raise TypeError(f"steps must be int, not {type(steps).__name__}")
        if steps < 1:
            raise ValueError("steps must be >= 1")
        self.limit = steps
        self.used = 0
        self.deadline = deadline
        self.next_look = _DEADLINE_STEPS

    def spend(self, steps: int = 1) -> None:
        """Count ``steps``; raise :class:`SearchLimitReached` once the limit is passed (or
        the deadline)."""
        self.used += steps
        if self.used > self.limit:
            raise SearchLimitReached(f"search budget of {self.limit} steps exhausted")
        if self.deadline is not None and self.used >= self.next_look:
            self.next_look = self.used + _DEADLINE_STEPS
            if self.deadline.expired():
                raise SearchLimitReached("the foreground deadline passed")

    def scan(self, chars: int) -> None:
        """Count a C-speed pass over ``chars`` characters."""
        self.spend(chars // _SCAN_CHARS)

    def settle(self, steps: int) -> bool:
        """Charge ``steps`` counted up front, if that can neither pass the limit nor reach the
        next look at the deadline; else charge nothing and return ``False`` (the caller then
        spends them step by step, as counted).

        Any run of :meth:`spend` and :meth:`scan` calls adding up to ``steps`` does exactly
        this under that condition: each leaves ``used`` at most the total, so none raises,
        and none reaches ``next_look``, so none looks at the deadline or moves the next look.
        A search that counts its steps as it goes and settles once leaves the budget as the
        same search spending them one by one would."""
        used = self.used + steps
        if used > self.limit or (self.deadline is not None and used >= self.next_look):
            return False
        self.used = used
        return True

    def charge(self, steps: int, scans: int = 0, chars: int = 0) -> None:
        """``spend(steps)``, then ``scan(chars)`` ``scans`` times, in one call: settled at
        once when that is the same (:meth:`settle`), else charged one by one, so a budget
        that runs out stops at the very charge, and with the very count, the calls would.

        For work whose charges are known before it is done: a document opened and scanned
        for a few words, or shown by its skeleton not to hold a quote. Such charges are
        mostly a step or none (a scan of less than 64 kB is free), and the calls they stand
        for cost more than the work itself on a rejected quote's path, which makes them for
        every document."""
        each = chars // _SCAN_CHARS
        if self.settle(steps + scans * each):
            return
        self.spend(steps)
        for _ in range(scans):
            self.spend(each)

    @property
    def exhausted(self) -> bool:
        """No step is left."""
        return self.used >= self.limit
_PARAGRAPH_BREAK = re.compile(r"\n[^\S\n]*\n|\r\n[^\S\r\n]*\r\n|\u2029")


# The ASCII word characters: the answer for most characters the edge checks look at, told by
# one set lookup before the script ranges.
_ASCII_WORD = frozenset("0123456789_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")


def is_spaced_word_char(ch: str) -> bool:
    """A word character (``\\w``) of a script that separates words with spaces."""
    if ch in _ASCII_WORD:
        return True
    if ch < "\x80" or not ch.isalnum():
        return False
    code = ord(ch)
    return not (
        0x0E00 <= code <= 0x0EFF  # Thai, Lao
        or 0x1000 <= code <= 0x109F  # Myanmar
        or 0x1780 <= code <= 0x17FF  # Khmer
        or 0x2E80 <= code <= 0xA4CF  # CJK, kana, Yi
        or 0xAC00 <= code <= 0xD7AF  # Hangul
        or 0xF900 <= code <= 0xFAFF
        or 0xFF66 <= code <= 0xFF9F
        or code >= 0x20000
    )


def inside_compound(hay: str, hyphen: int, edge: str) -> bool:
    """A quote edge ``edge`` next to ``hay[hyphen]`` would cut a hyphenated compound or a
    numeric range in two: ``fatal`` of ``non-fatal``, ``well`` of ``well-known``, ``20`` of
    ``10-20``. A dropped negating prefix is a changed word, never an edge."""
    return (0 < hyphen < len(hay) - 1 and hay[hyphen] == "-" and is_spaced_word_char(edge)
            and is_spaced_word_char(hay[hyphen - 1]) and is_spaced_word_char(hay[hyphen + 1]))


# What stands next to most quote edges in a document (a space, the full stop after a quoted
# sentence): no word character, no hyphen. Next to one, without a bracket to check, the
# word, compound and bracket rules of _left_ok and _right_ok pass without being asked; only
# the rules on numbers are left.
_PHRASE_EDGE = frozenset(" .,;:!?")


def _left_ok(hay: str, pos: int, needle: str, bracket: bool = False) -> bool:
    """``needle`` may start at ``pos``: not inside a word or a number, nor right after the
    minus sign of a number; after a bracket only if no editorial insertion stands before it
    (``bracket``)."""
    if pos == 0:
        return True
    first, before = needle[0], hay[pos - 1]
    if bracket or before not in _PHRASE_EDGE:  # else no word, compound or bracket rule bites
        if bracket and hay[pos - 2 if before == " " and pos >= 2 else pos - 1] == "]":
            return False
        if is_spaced_word_char(first) and is_spaced_word_char(before):
            return False
        if inside_compound(hay, pos - 1, first):
            return False
    if not first.isdigit():
        return True
    if before in ".," and pos >= 2 and hay[pos - 2].isdigit():
        return False  # 5 of 2.5 or 1,500
    # -2.5 (hyphen-minus, and U+2212 and en dash once normalized): the sign belongs to the
    # number. A hyphen after a word or digit (10-20, COVID-19) joins: inside_compound above.
    return not (before == "-" and (pos < 2 or not is_spaced_word_char(hay[pos - 2])))


def _right_ok(hay: str, end: int, needle: str, bracket: bool = False) -> bool:
    """``needle`` may end at ``end``: not inside a word or a number, not before a ``%`` of its
    number; before a bracket only if no editorial insertion stands after it (``bracket``)."""
    if end >= len(hay):
        return True
    last, after = needle[-1], hay[end]
    if bracket or after not in _PHRASE_EDGE:  # else no word, compound or bracket rule bites
        if bracket and (after == "[" or (after == " " and hay[end + 1:end + 2] == "[")):
            return False
        if is_spaced_word_char(last) and is_spaced_word_char(after):
            return False
        if inside_compound(hay, end, last):
            return False
    if last.isdigit():
        if after == "%":
            return False
        if after in ".," and end + 1 < len(hay) and hay[end + 1].isdigit():
            return False
    return True


@dataclass(frozen=True, slots=True)
class Span:
    """A match in a normalized document: the whole passage and each piece (normalized offsets)."""

    start: int
    end: int
    pieces: tuple[tuple[int, int], ...]
    elided: bool
    #: transcription slips forgiven to find it (:mod:`~vcg_otel.gate.slips`), sorted kinds
    forgiven: tuple[str, ...] = ()


#: ``Span(start, end, pieces, elided, forgiven)``, every field given, at the cost of plain slot
#: stores (:mod:`vcg_otel._frozen`): a found quote's span is made on every call.
_span = slot_builder(Span)


def find_contiguous(hay: str, needle: str, budget: SearchBudget,
                     edges: tuple[bool, bool] = (False, False)) -> Span | None:
    """The first occurrence of ``needle`` in ``hay`` with whole-word edges, as a span."""
    pos = find_whole(hay, needle, budget, edges)
    if pos == -1:
        return None
    end = pos + len(needle)
    return _span(pos, end, ((pos, end),), False, ())


def find_whole(hay: str, needle: str, budget: SearchBudget,
               edges: tuple[bool, bool] = (False, False)) -> int:
    """Where :func:`find_contiguous`'s span starts (-1 for none), at the same cost to
    ``budget``, without building the span: the fast path builds its answer from the
    position alone."""
    pos, steps = _whole(hay, needle, edges)
    if budget.settle(steps):
        return pos
    return _find_whole_stepwise(hay, needle, budget, edges)


def _whole(hay: str, needle: str, edges: tuple[bool, bool]) -> tuple[int, int]:
    """:func:`_find_whole_stepwise`'s answer, and the steps it spends to find it."""
    steps = len(hay) // _SCAN_CHARS
    lead, trail = edges
    size = len(needle)
    pos = hay.find(needle)
    while pos != -1:
        steps += 1
        if _left_ok(hay, pos, needle, lead) and _right_ok(hay, pos + size, needle, trail):
            return pos, steps
        pos = hay.find(needle, pos + 1)
    return -1, steps


def _find_whole_stepwise(hay: str, needle: str, budget: SearchBudget,
                         edges: tuple[bool, bool] = (False, False)) -> int:
    """:func:`find_whole`, charging ``budget`` as it goes: a scan of ``hay``, a step per
    occurrence examined."""
    budget.scan(len(hay))
    lead, trail = edges
    pos = hay.find(needle)
    while pos != -1:
        budget.spend()
        if _left_ok(hay, pos, needle, lead) and _right_ok(hay, pos + len(needle), needle, trail):
            return pos
        pos = hay.find(needle, pos + 1)
    return -1


def _has_paragraph_break(doc: NormalizedText, n_start: int, n_end: int) -> bool:
    o_start, o_end = doc.original_span(n_start, n_end)
    return _PARAGRAPH_BREAK.search(doc.original, o_start, o_end) is not None


class _Chain:
    """The chaining pass over one document (see the module docstring).

    For piece ``k``, ``starts[k]``/``ends[k]`` hold its reachable occurrences in document order
    and ``preds[k]`` the index of each one's predecessor among piece ``k - 1``'s.
    """

    __slots__ = ("breaks", "budget", "doc", "done", "edges", "ends", "gaps", "hay", "lens",
                 "max_gap", "pieces", "preds", "ptr", "starts")

    def __init__(self, doc: NormalizedText, pieces: tuple[str, ...], gaps: tuple[bool, ...],
                 max_gap: int, budget: SearchBudget,
                 edges: tuple[bool, bool] = (False, False)) -> None:
        self.doc, self.hay, self.pieces, self.max_gap, self.budget, self.edges = (
            doc, doc.text, pieces, max_gap, budget, edges)
        self.gaps = gaps if len(gaps) == len(pieces) - 1 else (False,) * (len(pieces) - 1)
        self.lens = [len(p) for p in pieces]
        self.starts: list[list[int]] = [[] for _ in pieces]
        self.ends: list[list[int]] = [[] for _ in pieces]
        self.preds: list[list[int]] = [[] for _ in pieces]
        self.done = [0] * len(pieces)  # occurrences starting before done[k] were examined
        self.ptr = [0] * len(pieces)  # first end of piece k - 1 whose window may still matter
        self.breaks: bool | None = None  # the document has a paragraph break (once looked up)

    def run(self) -> Span | None:
        n, last = len(self.hay), len(self.pieces) - 1
        while self.done[0] < n:
            self._first(min(n, self.done[0] + _BLOCK))
            for k in range(1, last + 1):
                self._next(k, min(n, self.done[k - 1] + self.lens[k - 1]))
            if self.starts[last]:
                return self._span()
        return None

    def _first(self, stop: int) -> None:
        hay, piece = self.hay, self.pieces[0]
        starts, ends, preds = self.starts[0], self.ends[0], self.preds[0]
        size = len(piece)
        bound = stop + size - 1
        examined = 0
        lead = self.edges[0]
        pos = hay.find(piece, self.done[0], bound)
        while pos != -1:
            examined += 1
            if _left_ok(hay, pos, piece, lead):
                starts.append(pos)
                ends.append(pos + size)
                preds.append(-1)
            pos = hay.find(piece, pos + 1, bound)
        self.done[0] = stop
        self.budget.spend(examined * _CHAIN_STEP)

    def _next(self, k: int, stop: int) -> None:
        """Examine piece ``k``'s occurrences starting in ``[done[k], stop)`` near a predecessor.

        Every predecessor such an occurrence could have is known: a later occurrence of piece
        ``k - 1`` ends at or after ``done[k - 1] + len(piece k - 1) >= stop``.
        """
        lo, max_gap = self.done[k], self.max_gap
        prev = self.ends[k - 1]
        i = self.ptr[k]
        while i < len(prev) and prev[i] + max_gap < lo:
            i += 1
        self.ptr[k] = i
        cursor = lo
        while i < len(prev) and prev[i] < stop:
            w_lo, w_hi = max(cursor, prev[i]), prev[i] + max_gap  # start positions, inclusive
            i += 1
            while i < len(prev) and prev[i] <= w_hi + 1:
                w_hi = prev[i] + max_gap
                i += 1
            w_hi = min(w_hi, stop - 1)
            if w_lo <= w_hi:
                self._window(k, w_lo, w_hi)
            cursor = w_hi + 1
        self.done[k] = max(lo, stop)

    def _window(self, k: int, w_lo: int, w_hi: int) -> None:
        """Piece ``k``'s occurrences starting in ``[w_lo, w_hi]``, each tried against its
        closest reachable predecessor (at most one window's worth before the budget is asked).
        """
        hay, piece, max_gap = self.hay, self.pieces[k], self.max_gap
        prev = self.ends[k - 1]
        starts, ends, preds = self.starts[k], self.ends[k], self.preds[k]
        bracket_gap, last = self.gaps[k - 1], k == len(self.pieces) - 1
        trail = self.edges[1]
        size = len(piece)
        bound = w_hi + size
        examined = 0
        pos = hay.find(piece, w_lo, bound)
        while pos != -1:
            examined += 1
            j = bisect_right(prev, pos) - 1
            cursor = prev[j]
            if (pos - cursor <= max_gap
                    and (not last or _right_ok(hay, pos + size, piece, trail))
                    and (pos == cursor or self._gap_ok(cursor, pos, bracket_gap))):
                starts.append(pos)
                ends.append(pos + size)
                preds.append(j)
            pos = hay.find(piece, pos + 1, bound)
        self.budget.spend(examined * _CHAIN_STEP)

    def _gap_ok(self, start: int, end: int, bracket_gap: bool) -> bool:
        if bracket_gap and not _BRACKETS.isdisjoint(self.hay[start:end]):
            return False
        if self.breaks is None:  # most chunks have none: then no gap needs mapping back
            self.budget.scan(len(self.doc.original))
            self.breaks = self.doc.has_paragraph_break()
        if not self.breaks:
            return True
        self.budget.spend(_BREAK_STEP)
        return not _has_paragraph_break(self.doc, start, end)

    def _span(self) -> Span:
        chain = []
        j = 0
        for k in range(len(self.pieces) - 1, -1, -1):
            chain.append((self.starts[k][j], self.ends[k][j]))
            j = self.preds[k][j]
        chain.reverse()
        return _span(chain[0][0], chain[-1][1], tuple(chain), True, ())


def _find_chain(doc: NormalizedText, pieces: tuple[str, ...], gaps: tuple[bool, ...],
                max_gap: int, budget: SearchBudget,
                edges: tuple[bool, bool] = (False, False)) -> Span | None:
    if len(doc.text) <= _BLOCK:
        span, steps = _chain_in_one_block(doc, pieces, gaps, max_gap, edges)
        if budget.settle(steps):
            return span
    return _find_chain_stepwise(doc, pieces, gaps, max_gap, budget, edges)


def _find_chain_stepwise(doc: NormalizedText, pieces: tuple[str, ...], gaps: tuple[bool, ...],
                         max_gap: int, budget: SearchBudget,
                         edges: tuple[bool, bool] = (False, False)) -> Span | None:
    """:func:`_find_chain`, charging ``budget`` step by step: every piece looked up (long
    pieces first: they are the rare ones), then one piece found whole or the pieces chained
    by the block-wise pass."""
    hay = doc.text
    for piece in sorted(set(pieces), key=len, reverse=True):
        budget.scan(len(hay))
        if piece not in hay:
            return None
    if len(pieces) == 1:
        pos = _find_whole_stepwise(hay, pieces[0], budget, edges)
        end = pos + len(pieces[0])
        return None if pos == -1 else _span(pos, end, ((pos, end),), True, ())
    return _Chain(doc, pieces, gaps, max_gap, budget, edges).run()


# A text of one block is scanned for free (a scan charges a step per _SCAN_CHARS characters).
assert _BLOCK < _SCAN_CHARS


def _chain_in_one_block(doc: NormalizedText, pieces: tuple[str, ...], gaps: tuple[bool, ...],
                        max_gap: int, edges: tuple[bool, bool] = (False, False),
                        misses_unsettled: bool = False) -> tuple[Span | None, int]:
    """:func:`_find_chain_stepwise`'s answer for a document of at most one block
    (:data:`_BLOCK` characters: most retrieved chunks), and the steps it spends to find it,
    counted instead of spent (:meth:`SearchBudget.settle`), without the pass object and its
    per-block bookkeeping.

    Its scans of a text this short charge nothing. Over one block the pass is one round:
    piece 0's occurrences are all examined, then each next piece's, window by window, each
    against its closest reachable predecessor, and the first occurrence of the last piece
    closes the chain; a piece with no reachable occurrence ends it (its later pieces have no
    window to examine). The steps counted are those the pass spends: two per occurrence
    examined, and on the first gap that needs it the scan of the original for paragraph
    breaks, then four per gap mapped back to the original.

    Only the pieces before the last keep their reachable occurrences (the chain is read back
    from them); of the last, the first that passes is kept, and the others are examined and
    counted as the pass examines them. With ``misses_unsettled`` (a caller that settles only
    a span found: :func:`find_without_insertions`) the pieces are not looked up first: a miss's
    steps are then not the pass's, but a chain found holds every piece, which the look-up
    would have found at no charge.
    """
    hay = doc.text
    n = len(hay)
    if not misses_unsettled:
        for piece in pieces:
            if piece not in hay:
                return None, 0
    if len(pieces) == 1:
        pos, steps = _whole(hay, pieces[0], edges)
        end = pos + len(pieces[0])
        return (None if pos == -1 else _span(pos, end, ((pos, end),), True, ())), steps
    if len(gaps) != len(pieces) - 1:
        gaps = (False,) * (len(pieces) - 1)
    # Piece 0: every occurrence (the pass's bound, n + len - 1, holds them all).
    piece = pieces[0]
    size = len(piece)
    lead = edges[0]
    starts: list[int] = []
    prev: list[int] = []  # the ends of the reachable occurrences of the piece before
    steps = 0
    pos = hay.find(piece)
    while pos != -1:
        steps += _CHAIN_STEP
        if _left_ok(hay, pos, piece, lead):
            starts.append(pos)
            prev.append(pos + size)
        pos = hay.find(piece, pos + 1)
    kept_starts = [starts]  # per piece before the last: its reachable occurrences' starts
    kept_preds: list[list[int]] = []  # per piece 1 .. last - 1: each one's predecessor
    last = len(pieces) - 1
    found = pred = -1  # the first reachable occurrence of the last piece, its predecessor
    breaks: bool | None = None
    for k in range(1, last + 1):
        if not prev:
            return None, steps
        piece, bracket_gap, at_end = pieces[k], gaps[k - 1], k == last
        size = len(piece)
        starts, preds, ends = [], [], []
        i, cursor, count = 0, 0, len(prev)
        while i < count and prev[i] < n:
            w_lo, w_hi = max(cursor, prev[i]), prev[i] + max_gap
            i += 1
            while i < count and prev[i] <= w_hi + 1:
                w_hi = prev[i] + max_gap
                i += 1
            if w_hi >= n:
                w_hi = n - 1
            if w_lo <= w_hi:
                bound = w_hi + size
                pos = hay.find(piece, w_lo, bound)
                while pos != -1:
                    steps += _CHAIN_STEP
                    j = bisect_right(prev, pos) - 1
                    before = prev[j]
                    if (pos - before <= max_gap
                            and (not at_end or _right_ok(hay, pos + size, piece, edges[1]))):
                        if pos == before:
                            ok = True
                        elif bracket_gap and not _BRACKETS.isdisjoint(hay[before:pos]):
                            ok = False
                        else:
                            if breaks is None:
                                steps += len(doc.original) // _SCAN_CHARS
                                breaks = doc.has_paragraph_break()
                            if not breaks:
                                ok = True
                            else:
                                steps += _BREAK_STEP
                                ok = not _has_paragraph_break(doc, before, pos)
                        if ok:
                            if not at_end:
                                starts.append(pos)
                                preds.append(j)
                                ends.append(pos + size)
                            elif found == -1:
                                found, pred = pos, j
                    pos = hay.find(piece, pos + 1, bound)
            cursor = w_hi + 1
        if not at_end:
            kept_starts.append(starts)
            kept_preds.append(preds)
            prev = ends
    if found == -1:
        return None, steps
    chain = [(found, found + size)]
    j = pred
    for k in range(last - 1, -1, -1):
        start = kept_starts[k][j]
        chain.append((start, start + len(pieces[k])))
        if k:
            j = kept_preds[k - 1][j]
    chain.reverse()
    return _span(chain[0][0], found + size, tuple(chain), True, ()), steps


def find_without_insertions(doc: NormalizedText, needle: str | None, pieces: tuple[str, ...],
                            max_gap: int, budget: SearchBudget) -> Span | None:
    """:func:`find_quote`'s exact readings of a parsed quote whose marks are all ellipses,
    annotations and changes of case (:func:`~vcg_otel.gate.quote.parse_marked`): a
    non-empty ``needle``, ``pieces`` chained with no bracket-only gap or edge, no literal
    reading. Those are the steps :func:`find_quote` takes for that parse before its slip
    search, in its order, at its cost to ``budget``, when they find the quote; ``None`` where
    it would go on to the slip search (and what was charged to ``budget`` then is the
    caller's to undo: the gate's fast path, :mod:`vcg_otel.gate.fast`, leaves that quote to
    the full path, budget as it was). ``needle`` is ``None`` when the caller has shown it
    absent from ``doc``: its search examines no occurrence and costs its scan alone.

    In a document of one block the steps of both readings are counted and settled once
    (:meth:`SearchBudget.settle`). Its scans charge nothing, and only a span found is
    settled: the chain's look-up of each piece first (:func:`_chain_in_one_block`), which
    costs no step there and finds every piece of a chain found, is not made.

    Raises:
        SearchLimitReached: ``budget`` ran out.
    """
    hay = doc.text
    if len(hay) <= _BLOCK:
        if needle is None:
            pos, steps = -1, 0
        else:
            pos, steps = _whole(hay, needle, _NO_EDGES)
        span: Span | None
        if pos != -1:
            end = pos + len(needle)  # type: ignore[arg-type]
            span = _span(pos, end, ((pos, end),), False, ())
        else:
            span, chained = _chain_in_one_block(doc, pieces, (), max_gap, _NO_EDGES,
                                                misses_unsettled=True)
            steps += chained
        if span is None:
            return None
        if budget.settle(steps):
            return span
    if needle is None:
        budget.scan(len(hay))
    else:
        span = find_contiguous(hay, needle, budget)
        if span is not None:
            return span
    return _find_chain(doc, pieces, (False,) * (len(pieces) - 1), max_gap, budget)


def find_quote(
    doc: NormalizedText,
    quote: ParsedQuote,
    max_gap: int = DEFAULT_MAX_GAP,
    budget: SearchBudget | None = None,
) -> Span | None:
    """Where ``quote`` occurs in ``doc`` (normalized offsets), or ``None``.

    Literal first: the whole quote as one contiguous needle; then, for a quote whose brackets
    may be literal and that also has ellipses, its pieces around the ellipses only; then the
    pieces around every editorial mark.

    Raises:
        SearchLimitReached: ``budget`` (by default a fresh :class:`SearchBudget`) ran out.
    """
    if quote.empty:
        return None
    if budget is None:
        budget = SearchBudget()
    if quote.needle:
        span = find_contiguous(doc.text, quote.needle, budget)
        if span is not None:
            return span
    if quote.literal:
        span = _find_chain(doc, quote.literal, (), max_gap, budget)
        if span is not None:
            return span
    if quote.elided:
        span = _find_chain(doc, quote.pieces, quote.gaps, max_gap, budget, quote.edges)
        if span is not None:
            return span
    if quote.needle:
        # Only now, once the exact search failed: the found path pays nothing for it. The
        # whole quote as written (brackets read literally), as the exact search reads it first.
        slipped = find_slipped(doc.text, quote.needle, budget, _edges_ok, doc.without_hyphens,
                               doc.slip_skeleton)
        if slipped is not None:
            return Span(slipped.start, slipped.end, ((slipped.start, slipped.end),), False,
                        slipped.forgiven)
    return None


def _edges_ok(hay: str, start: int, end: int, needle: str) -> bool:
    return _left_ok(hay, start, needle) and _right_ok(hay, end, needle)
