"""The common quote, found the short way: verbatim in the document it cites, no editorial mark.

Most quotes an answer gives are a sentence or a phrase copied from the cited document: no
ellipsis, no bracket. For those the full gate (:func:`~vcg_otel.gate.api.checked_quote_gate`)
parses the quote only to learn that its one piece is its needle, and then looks for that
needle first, as one contiguous string (:func:`~vcg_otel.gate.search.find_contiguous`). Here
that first look is all there is: the needle is worked out as the parse works it out, looked
for with one ``str.find`` in the cited document's normalized text under the same whole-word
edge rules, and a match is the answer the full path gives.

The needle is the parse's by construction: the quote normalized by
:func:`~vcg_otel.gate.normalize.normalize` (the very function the parse calls), its edges
trimmed. Normalizing the common quote costs one fold and a few C-level tests
(:func:`~vcg_otel.gate.normalize.laid_out`), and telling that it has no editorial mark a
few ``str.find`` calls (:func:`~vcg_otel.gate.quote.has_mark`).

Only a *found* answer is given here. Anything else -- a quote with an editorial mark, one
absent from its cited document, one cut short by the budget -- returns ``None`` with the
budget as it was, and the caller runs the full path, which then gives exactly what it always
gave. So the fast path can only ever return what the full path returns for the same quote
(``tests/properties/test_gate_fast_path.py`` checks it case by case over every benchmark
suite).
"""

from __future__ import annotations

from typing import Protocol

from .corpus import Corpus
from .normalize import CHUNK_CHARS, NormalizedText, fold_chars, laid_out
from .quote import (
    Cut,
    cut_at_ellipses,
    cut_without_insertions,
    has_mark,
    has_word,
    mark_list,
    needle_of,
    strip_edges,
)
from .result import GateMatch, GateResult
from .search import (
    DEFAULT_MAX_GAP,
    SearchBudget,
    SearchLimitReached,
    Span,
    find_whole,
    find_without_insertions,
)

__all__ = ["Located", "fast_found", "found_marked", "located_match", "plain_needle",
           "unmarked_needle"]


# GateResult.FOUND, read once (a member read off its enum class costs about 0.15 µs).
_FOUND = GateResult.FOUND


class Located(Protocol):
    """What makes the answer for a passage found: :meth:`GateMatch.located
    <vcg_otel.gate.result.GateMatch.located>` (the default), or a caller's maker of a
    :class:`~vcg_otel.gate.result.GateMatch` subclass carrying more
    (:class:`vcg_otel.documents.ResolvedMatch`), which is then made once instead of a
    ``GateMatch`` made and copied field by field."""

    def __call__(self, result: GateResult, cited_document_id: str | None, document_id: str,
                 start: int, end: int, text: str, elided: bool,
                 pieces: tuple[tuple[int, int], ...], source_document_ids: tuple[str, ...],
                 forgiven: tuple[str, ...] = ()) -> GateMatch: ...


def plain_needle(quote: str) -> str | None:
    """``parse_quote(quote).needle`` for a quote without editorial marks that the fold and
    the layout's whitespace rules alone normalize (:func:`~vcg_otel.gate.normalize.laid_out`)
    and that has a word; ``None`` for every other quote (the full parse decides)."""
    if len(quote) > CHUNK_CHARS or has_mark(quote):
        return None
    folded = fold_chars(quote)
    out = None if folded is None else laid_out(folded)
    return None if out is None else _with_word(strip_edges(out))


# The last quote unmarked_needle read, and its answer: a quote the fast path does not find
# is read again by the full path (api.full_quote_gate). A tuple, read and swapped whole, so
# threads at worst read a quote again.
_last: tuple[object, str | None] = (object(), None)


def unmarked_needle(quote: str) -> str | None:
    """``parse_quote(quote).needle`` for a quote without editorial marks that has a word
    (its parse is that one needle: the quote normalized, edges trimmed); ``None`` for a
    quote with a mark or without a word. The last quote's answer is kept (by identity)."""
    last = _last
    if last[0] is quote:
        return last[1]
    return None if has_mark(quote) else _kept_needle(quote)


def _kept_needle(quote: str) -> str | None:
    """The needle of a quote known to have no mark (``None`` without a word), kept as the last
    answer of :func:`unmarked_needle`."""
    global _last
    needle = needle_of(quote) or None
    _last = (quote, needle)
    return needle


def _with_word(needle: str) -> str | None:
    return needle if has_word(needle) else None


def fast_found(quote: str, cited: str | None, corpus: Corpus, budget: SearchBudget,
               max_gap: int = DEFAULT_MAX_GAP,
               located: Located = GateMatch.located) -> GateMatch | None:
    """The full gate's ``found`` answer for a quote in its cited document as written, or
    elided with marks other than bracketed insertions (:func:`found_marked`), made by
    ``located``; ``None`` (budget untouched) whenever the full path has to decide."""
    if cited is None:
        return None
    doc = corpus.normalized_if_known(cited)
    if doc is None:
        return None
    # has_mark's own test, with the marks kept for the parse.
    if "(" in quote or "[" in quote or quote.count(".") > 2:
        marks = mark_list(quote)
        if marks:
            cut = cut_without_insertions(quote, marks)
            return (None if cut is None
                    else found_marked(quote, cut, cited, doc, budget, max_gap, located))
    elif "\u2026" in quote:
        return found_marked(quote, cut_at_ellipses(quote), cited, doc, budget, max_gap,
                            located)
    # No mark (has_mark's own test, above): kept for the full path should this quote not be
    # found here.
    needle = _kept_needle(quote)
    if needle is None:
        return None
    used, next_look = budget.used, budget.next_look
    try:
        pos = find_whole(doc.text, needle, budget)
    except SearchLimitReached:
        pos = -1
    if pos == -1:
        budget.used, budget.next_look = used, next_look
        return None
    start, end = doc.original_span(pos, pos + len(needle))
    return located(_FOUND, cited, cited, start, end, doc.original[start:end], False,
                   ((start, end),), (cited,))


def found_marked(quote: str, cut: Cut, cited: str, doc: NormalizedText, budget: SearchBudget,
                 max_gap: int, located: Located = GateMatch.located) -> GateMatch | None:
    """The full gate's ``found`` answer for a quote with editorial marks, none of them a
    bracketed insertion, found in its cited document (``cited``, normalized ``doc``);
    ``None`` (budget untouched) otherwise. ``cut`` is ``quote``'s parse
    (:func:`~vcg_otel.gate.quote.cut_without_insertions`, or
    :func:`~vcg_otel.gate.quote.cut_at_ellipses` for a quote whose only marks are ellipsis
    characters).

    The full path parses such a quote into the same needle and pieces (the parse is the
    cut's), with no bracket-only gap or edge and no literal reading; searches the cited
    document for the needle, then for the pieces chained
    (:func:`~vcg_otel.gate.search.find_without_insertions`: the same steps, in the same
    order, at the same cost); and builds its answer from the span found
    (:func:`located_match`, which it calls too). Here the same is done without the parse's
    and the full path's objects, and anything but a span found (an empty needle or no
    piece, a miss that the slip search may still rescue, the budget running out) is left
    to the full path, budget as it was. A needle shown to hold a text (the cut's ``kept``)
    that the document does not hold has no occurrence there: it is not made, and its search
    costs what a search finding nothing costs."""
    pieces, kept, needle = cut
    if not pieces:
        return None
    if needle is None and (not kept or kept in doc.text):
        needle = needle_of(quote)
        if not needle:
            return None
    used, next_look = budget.used, budget.next_look
    try:
        span = find_without_insertions(doc, needle, pieces, max_gap, budget)
    except SearchLimitReached:
        span = None
    if span is None:
        budget.used, budget.next_look = used, next_look
        return None
    return located_match(GateResult.FOUND, doc, cited, cited, span, (cited,), located)


def located_match(result: GateResult, doc: NormalizedText, cited: str | None, doc_id: str,
                  span: Span, sources: tuple[str, ...],
                  located: Located = GateMatch.located) -> GateMatch:
    """The gate's answer for ``span`` found in ``doc`` (document ``doc_id``), made by
    ``located``: its original offsets, passage and pieces (a quote found whole is its own
    one piece), each :meth:`~vcg_otel.gate.normalize.NormalizedText.original_span` of its
    normalized offsets (a span and its pieces are never empty)."""
    if doc.identity:  # every map the identity (most documents): only the markers shift
        lead = doc.lead
        start, end = span.start + lead, span.end + lead
        pieces = (span.pieces if not lead
                  else tuple([(s + lead, e + lead) for s, e in span.pieces]))
    else:
        start, end = doc.original_span(span.start, span.end)
        pieces = (((start, end),) if len(span.pieces) == 1
                  and span.pieces[0] == (span.start, span.end)
                  else tuple([doc.original_span(s, e) for s, e in span.pieces]))
    return located(result, cited, doc_id, start, end, doc.original[start:end], span.elided,
                   pieces, sources, span.forgiven)
