"""The common quote, found the short way: plain prose, verbatim in the document it cites.

Most quotes an answer gives are a sentence or a phrase copied from the cited document: no
markup, no ellipsis, no bracket, no whitespace or dash to lay out. For those the full gate
(:func:`~vcg_otel.gate.api.checked_quote_gate`) spends most of its time deciding that nothing
needs doing. Here such a quote is normalized by one ``str.translate`` (or ``str.lower``) and
one regex that proves no other stage would change it, then looked for with one ``str.find``
in the cited document's normalized text, under the same whole-word edge rules.

Only a *found* answer is given here. Anything else -- a quote the regex does not clear, one
absent from its cited document, one cut short by the budget -- returns ``None`` with the
budget as it was, and the caller runs the full path, which then gives exactly what it always
gave. So the fast path can only ever return what the full path returns for the same quote
(``tests/properties/test_gate_fast_path.py`` checks it case by case over every benchmark
suite).
"""

from __future__ import annotations

import re

from .corpus import Corpus
from .markup import LINE0, MARKUP_CHARS
from .normalize import CHUNK_CHARS, FOLD_TABLE, MARKS_SEEN
from .quote import MARKS, strip_edges
from .result import GateMatch, GateResult
from .search import SearchBudget, SearchLimitReached, Span, find_contiguous

__all__ = ["fast_found", "plain_needle"]

# Anything after stage A that a later stage could act on: a markup or skippable character
# (markup.may_have_markup) or a layout candidate (normalize._LAYOUT_POSSIBLE). Keep in step.
_NOT_PLAIN = re.compile("[" + re.escape(MARKUP_CHARS) + r"]|--| [\s-]|[\t\n\r\x0b\x0c]")
# First characters at which normalize.leading_markers may remove something.
_MARKER_STARTS = frozenset("#>*+-|=[")
_ALNUM = re.compile(r"[^\W_]")


def plain_needle(quote: str) -> str | None:
    """``parse_quote(quote).needle`` for a quote that no stage but the character fold
    changes and that has a word; ``None`` for every other quote (the full parse decides)."""
    if len(quote) > CHUNK_CHARS or MARKS.search(quote) is not None:
        return None  # an editorial mark (parse_quote's own test): pieces to chain
    if quote.isascii():
        folded = quote.lower()
    else:
        folded = quote.translate(FOLD_TABLE)
        if MARKS_SEEN and not MARKS_SEEN.isdisjoint(quote):
            return None  # combining marks fold by cluster: the full path
    if _NOT_PLAIN.search(folded) is not None or LINE0.match(folded) is not None:
        return None
    out = folded.strip()
    if not out or out[0] in _MARKER_STARTS:
        return None
    needle = strip_edges(out)
    return needle if _ALNUM.search(needle) is not None else None


def fast_found(quote: str, cited: str | None, corpus: Corpus,
               budget: SearchBudget) -> GateMatch | None:
    """The full gate's ``found`` answer for a plain quote verbatim in its cited document;
    ``None`` (budget untouched) whenever the full path has to decide."""
    if cited is None or cited not in corpus:
        return None
    needle = plain_needle(quote)
    if needle is None:
        return None
    doc = corpus.normalized(cited)
    if needle not in doc.text:
        return None
    used, next_look = budget.used, budget.next_look
    try:
        span = find_contiguous(doc.text, needle, budget)
    except SearchLimitReached:
        span = None
    if span is None:
        budget.used, budget.next_look = used, next_look
        return None
    return _found(corpus, cited, span)


def _found(corpus: Corpus, cited: str, span: Span) -> GateMatch:
    doc = corpus.normalized(cited)
    start, end = doc.original_span(span.start, span.end)
    return GateMatch(GateResult.FOUND, cited, cited, start, end, doc.original[start:end],
                     False, ((start, end),), (cited,))
