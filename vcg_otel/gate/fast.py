"""The common quote, found the short way: verbatim in the document it cites, no editorial mark.

Most quotes an answer gives are a sentence or a phrase copied from the cited document: no
ellipsis, no bracket. For those the full gate (:func:`~vcg_otel.gate.api.checked_quote_gate`)
parses the quote only to learn that its one piece is its needle, and then looks for that
needle first, as one contiguous string (:func:`~vcg_otel.gate.search.find_contiguous`). Here
that first look is all there is: the needle is worked out as the parse works it out, looked
for with one ``str.find`` in the cited document's normalized text under the same whole-word
edge rules, and a match is the answer the full path gives.

The needle of plain prose (nothing but the character fold changes it) is made by one fold
and a few C-level tests (:func:`plain_needle`); any other quote without an editorial mark
(curly quotes, line breaks, a hyphen at a line break, an apostrophe) is normalized by
:func:`~vcg_otel.gate.normalize.normalize`, the very function the parse calls.

Only a *found* answer is given here. Anything else -- a quote with an editorial mark, one
absent from its cited document, one cut short by the budget -- returns ``None`` with the
budget as it was, and the caller runs the full path, which then gives exactly what it always
gave. So the fast path can only ever return what the full path returns for the same quote
(``tests/properties/test_gate_fast_path.py`` checks it case by case over every benchmark
suite).
"""

from __future__ import annotations

import re

from .corpus import Corpus
from .markup import MARKUP_CHARS
from .normalize import CHUNK_CHARS, fold_chars, normalize
from .quote import MARKS, strip_edges
from .result import GateMatch
from .search import SearchBudget, SearchLimitReached, find_whole

__all__ = ["fast_found", "plain_needle", "unmarked_needle"]

# Every whitespace character but the space (what str.isspace and the regex "\s" call
# whitespace; tests/unit/gate/test_fast.py checks the list against them).
_OTHER_SPACES = ("\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004"
                 "\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")
# One character after stage A that a later stage could act on: a markup or skippable
# character (markup.may_have_markup) or whitespace other than a space (a layout candidate,
# normalize._LAYOUT_POSSIBLE). The layout's other candidates are the pairs "--", "  " and
# " -" (_LAYOUT_POSSIBLE's " [\s-]" once no other whitespace is left).
_NOT_PLAIN_CHAR = re.compile("[" + re.escape(MARKUP_CHARS + _OTHER_SPACES) + "]")
# The ASCII ones as bytes: deleting them from an ASCII text's bytes tells at C speed,
# about three times faster than the regex scan.
_NOT_PLAIN_BYTES = "".join(ch for ch in MARKUP_CHARS + _OTHER_SPACES if ch.isascii()).encode()
# First characters at which normalize.leading_markers or a line-start marker (markup.LINE0)
# may remove something.
_MARKER_STARTS = frozenset("#>*+-|=`~[")
_ALNUM = re.compile(r"[^\W_]")


def _has_mark(quote: str) -> bool:
    """``MARKS.search(quote) is not None`` (an editorial mark), the regex tried only where a
    mark can start: plain prose costs a few C-level scans.

    Every mark starts at "[", "(", "\u2026" or "." (``quote._MARK_STARTS``); an ellipsis
    character is a mark by itself, and a mark at a full stop is an ellipsis of three."""
    if "\u2026" in quote:
        return True
    if quote.count(".") > 2:
        return MARKS.search(quote) is not None
    return _mark_at(quote, "(") or _mark_at(quote, "[")


def _mark_at(quote: str, opening: str) -> bool:
    """A mark starts at one of the ``opening`` characters of ``quote``."""
    pos = quote.find(opening)
    while pos != -1:
        if MARKS.match(quote, pos) is not None:
            return True
        pos = quote.find(opening, pos + 1)
    return False


def plain_needle(quote: str) -> str | None:
    """``parse_quote(quote).needle`` for a quote that no stage but the character fold
    changes and that has a word; ``None`` for every other quote (the full parse decides)."""
    if len(quote) > CHUNK_CHARS or _has_mark(quote):
        return None  # an editorial mark (parse_quote's own test): pieces to chain
    folded = fold_chars(quote)
    return None if folded is None else _plain_fold(folded)


def _plain_fold(folded: str) -> str | None:
    """The needle of a folded quote that no markup or layout rule changes, else ``None``."""
    if folded.isascii():
        if len(folded.encode().translate(None, _NOT_PLAIN_BYTES)) != len(folded):
            return None
    elif _NOT_PLAIN_CHAR.search(folded) is not None:
        return None
    if "--" in folded or "  " in folded or " -" in folded:
        return None
    out = folded.strip(" ")
    if not out or out[0] in _MARKER_STARTS:
        return None
    needle = strip_edges(out)
    return needle if _ALNUM.search(needle) is not None else None


def unmarked_needle(quote: str) -> str | None:
    """``parse_quote(quote).needle`` for a quote without editorial marks that has a word
    (its parse is that one needle); ``None`` for a quote with a mark or without a word.

    Plain prose is folded here (:func:`plain_needle`); anything else is normalized by the
    function the parse calls, so the needle is the parse's by construction."""
    if _has_mark(quote):
        return None
    folded = fold_chars(quote) if len(quote) <= CHUNK_CHARS else None
    needle = None if folded is None else _plain_fold(folded)
    if needle is None:
        needle = strip_edges(normalize(quote))
        if _ALNUM.search(needle) is None:
            return None
    return needle


def fast_found(quote: str, cited: str | None, corpus: Corpus,
               budget: SearchBudget) -> GateMatch | None:
    """The full gate's ``found`` answer for a quote without editorial marks verbatim in its
    cited document; ``None`` (budget untouched) whenever the full path has to decide."""
    if cited is None or cited not in corpus:
        return None
    needle = unmarked_needle(quote)
    if needle is None:
        return None
    doc = corpus.normalized(cited)
    used, next_look = budget.used, budget.next_look
    try:
        pos = find_whole(doc.text, needle, budget)
    except SearchLimitReached:
        pos = -1
    if pos == -1:
        budget.used, budget.next_look = used, next_look
        return None
    start, end = doc.original_span(pos, pos + len(needle))
    return GateMatch.found_at(cited, start, end, doc.original[start:end])
