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
# What _laid_out_fold lets through besides plain prose: line breaks and apostrophes.
_LAID_OUT_CHAR = re.compile("[" + re.escape(
    "".join(ch for ch in MARKUP_CHARS + _OTHER_SPACES if ch not in "\n'")) + "]")
_LAID_OUT_BYTES = bytes(b for b in _NOT_PLAIN_BYTES if b not in b"\n'")
# A line break before a line-start marker (markup's "\n" trigger; only spaces can stand
# between them in a text _LAID_OUT_CHAR clears).
_LINE_MARKER = re.compile(r"\n *[#>*+\-|=`~\[]")
# A hyphen at a line break inside a word, which normalization removes (normalize._LAYOUT's
# first rule, with the spaces _LAID_OUT_CHAR leaves).
_JOIN = re.compile(r"(?<=\w)- *\n *(?=\w)")
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
    if _holds(folded, _NOT_PLAIN_BYTES, _NOT_PLAIN_CHAR):
        return None
    if "--" in folded or "  " in folded or " -" in folded:
        return None
    return _needle_of(folded.strip(" "))


def _holds(text: str, ascii_chars: bytes, pattern: re.Pattern[str]) -> bool:
    """``text`` holds a character of ``pattern`` (a character class whose ASCII members are
    ``ascii_chars``): for an ASCII text, one deletion from its bytes."""
    if text.isascii():
        return len(text.encode().translate(None, ascii_chars)) != len(text)
    return pattern.search(text) is not None


def _needle_of(out: str) -> str | None:
    """The needle of ``out``, the normalized quote (one that normalize's last step,
    leading_markers, leaves as it is), if it has a word."""
    if not out or out[0] in _MARKER_STARTS:
        return None
    needle = strip_edges(out)
    return needle if _ALNUM.search(needle) is not None else None


def _laid_out_fold(folded: str) -> str | None:
    """The needle of a folded quote that normalization only lays out, else ``None``: plain
    prose but for quotation marks around it, apostrophes inside words, line breaks, runs of
    spaces and hyphens at a line break inside a word.

    Each is shown to be all that the markup and layout stages do to such a text:

    * the markup pass removes quotation marks at the ends (skippable, next to the text's end);
      a quotation mark kept after a digit is one ``strip_edges`` removes. An apostrophe with a
      letter or digit on both sides is never skippable. A line break is a construct trigger
      only before a line-start marker (refused), and is no trigger at all in the later passes
      the removal asks for, whose only other trigger is a marker at the start (refused).
    * the layout stage joins a word at a hyphen + line break (``_JOIN``: its first rule),
      and with no hyphen next to whitespace or another hyphen otherwise, its every other match
      is a run of whitespace, which becomes one space, none at the ends: ``str.split``.
    """
    core = folded.strip("\"'")
    if _holds(core, _LAID_OUT_BYTES, _LAID_OUT_CHAR):
        return None
    if "\n" in core and _LINE_MARKER.search(core) is not None:
        return None
    if "'" in core and not _inside_words(core, "'"):
        return None
    if "-" in core and "\n" in core:
        core = _JOIN.sub("", core)
    out = " ".join(core.split())
    if "--" in out or " -" in out:
        return None
    return _needle_of(out)


def _inside_words(text: str, ch: str) -> bool:
    """Every ``ch`` of ``text`` has a letter or digit on both sides."""
    pos = text.find(ch)
    while pos != -1:
        if not (0 < pos < len(text) - 1 and text[pos - 1].isalnum() and text[pos + 1].isalnum()):
            return False
        pos = text.find(ch, pos + 1)
    return True


def unmarked_needle(quote: str) -> str | None:
    """``parse_quote(quote).needle`` for a quote without editorial marks that has a word
    (its parse is that one needle); ``None`` for a quote with a mark or without a word.

    Plain prose is folded here (:func:`plain_needle`), and so is prose that normalization
    only lays out (:func:`_laid_out_fold`); anything else is normalized by the function the
    parse calls, so the needle is the parse's by construction."""
    if _has_mark(quote):
        return None
    folded = fold_chars(quote) if len(quote) <= CHUNK_CHARS else None
    needle = None if folded is None else _plain_fold(folded) or _laid_out_fold(folded)
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
