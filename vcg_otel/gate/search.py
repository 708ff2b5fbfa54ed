"""Finding a parsed quote inside one normalized document.

Two rules make a match honest:

* **Whole words at the edges.** A quote that starts or ends inside a word, or cuts a number
  short (``5`` inside ``5%``, ``2.5`` or ``50``), is not a match. Scripts written without
  spaces (CJK, Thai, …) have no word edges, so the rule does not apply to them.
* **Elided pieces stay in one passage.** Pieces of an elided quote occur in order, each gap at
  most ``max_gap`` normalized characters and free of paragraph breaks in the original.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from .normalize import NormalizedText
from .quote import ParsedQuote

__all__ = ["DEFAULT_MAX_GAP", "Span", "find_quote", "is_spaced_word_char"]

DEFAULT_MAX_GAP = 300
# Work bound for the elided search in pathological documents (a piece such as "the" occurring
# thousands of times): past it the search gives up and the quote is not found (fail closed).
_MAX_STEPS = 20_000
_PARAGRAPH_BREAK = re.compile(r"\n[^\S\n]*\n|\r\n[^\S\r\n]*\r\n|\u2029")


def is_spaced_word_char(ch: str) -> bool:
    """A word character (``\\w``) of a script that separates words with spaces."""
    if not (ch.isalnum() or ch == "_"):
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


def _left_ok(hay: str, pos: int, needle: str) -> bool:
    if pos == 0:
        return True
    first, before = needle[0], hay[pos - 1]
    if is_spaced_word_char(first) and is_spaced_word_char(before):
        return False
    return not (first.isdigit() and before in ".," and pos >= 2 and hay[pos - 2].isdigit())


def _right_ok(hay: str, end: int, needle: str) -> bool:
    if end >= len(hay):
        return True
    last, after = needle[-1], hay[end]
    if is_spaced_word_char(last) and is_spaced_word_char(after):
        return False
    if last.isdigit():
        if after == "%":
            return False
        if after in ".," and end + 1 < len(hay) and hay[end + 1].isdigit():
            return False
    return True


def _occurrences(hay: str, needle: str, start: int, stop: int,
                 check_left: bool) -> Iterator[int]:
    """Positions of ``needle`` starting in ``[start, stop]`` (left edge checked if asked)."""
    pos = hay.find(needle, start, stop + len(needle))
    while pos != -1:
        if not check_left or _left_ok(hay, pos, needle):
            yield pos
        pos = hay.find(needle, pos + 1, stop + len(needle))


@dataclass(frozen=True, slots=True)
class Span:
    """A match in a normalized document: the whole passage and each piece (normalized offsets)."""

    start: int
    end: int
    pieces: tuple[tuple[int, int], ...]
    elided: bool


def _find_contiguous(hay: str, needle: str) -> Span | None:
    for pos in _occurrences(hay, needle, 0, len(hay), True):
        end = pos + len(needle)
        if _right_ok(hay, end, needle):
            return Span(pos, end, ((pos, end),), False)
    return None


def _has_paragraph_break(doc: NormalizedText, n_start: int, n_end: int) -> bool:
    o_start, o_end = doc.original_span(n_start, n_end)
    return _PARAGRAPH_BREAK.search(doc.original, o_start, o_end) is not None


def _find_chain(doc: NormalizedText, pieces: tuple[str, ...], max_gap: int) -> Span | None:
    hay = doc.text
    last = len(pieces) - 1
    steps = 0

    def extend(k: int, cursor: int, found: list[tuple[int, int]]) -> list[tuple[int, int]] | None:
        nonlocal steps
        piece = pieces[k]
        for pos in _occurrences(hay, piece, cursor, cursor + max_gap, False):
            steps += 1
            if steps > _MAX_STEPS:
                return None
            end = pos + len(piece)
            if k == last and not _right_ok(hay, end, piece):
                continue
            if pos > cursor and _has_paragraph_break(doc, cursor, pos):
                continue
            here = [*found, (pos, end)]
            if k == last:
                return here
            done = extend(k + 1, end, here)
            if done is not None:
                return done
        return None

    first = pieces[0]
    for pos in _occurrences(hay, first, 0, len(hay), True):
        steps += 1
        if steps > _MAX_STEPS:
            return None
        end = pos + len(first)
        if last == 0:
            if _right_ok(hay, end, first):
                return Span(pos, end, ((pos, end),), True)
            continue
        chain = extend(1, end, [(pos, end)])
        if chain is not None:
            return Span(chain[0][0], chain[-1][1], tuple(chain), True)
    return None


def find_quote(
    doc: NormalizedText, quote: ParsedQuote, max_gap: int = DEFAULT_MAX_GAP
) -> Span | None:
    """Where ``quote`` occurs in ``doc`` (normalized offsets), or ``None``.

    The whole quote is tried as one contiguous needle first; only if that fails and the quote
    carried editorial marks are its pieces chained.
    """
    if quote.empty:
        return None
    if quote.needle:
        span = _find_contiguous(doc.text, quote.needle)
        if span is not None:
            return span
    if quote.elided:
        return _find_chain(doc, quote.pieces, max_gap)
    return None
