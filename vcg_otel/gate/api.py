"""Stage 1 entry points: ``quote_gate`` for quotes, ``span_gate`` for offset citations.

Both are pure functions of their arguments (no network, no model) and fail closed: anything
that cannot be shown to be in the cited document is ``not_found`` or ``misattributed``, with
the reason recorded. Only wrong argument *types* raise (``TypeError`` naming the argument).

Each call's work is bounded by a :class:`~vcg_otel.gate.search.SearchBudget` (a few
milliseconds by default; pass one ``budget`` to several calls to bound an audit). When it runs
out the outcome is the most that was *shown*, and the reason says the search was cut short:

* cut short in the cited document: ``not_found`` / ``search_limit``. Never ``found``; and not
  ``no_match`` either, which would claim the quote was shown to be absent (a fabrication).
* the quote is shown absent from the cited document, cut short in the others:
  ``misattributed`` if some other source was already found (``source_document_ids`` lists the
  ones found), else ``not_found`` / ``search_limit``: the citation is wrong either way, but
  whether the quote exists elsewhere is not known, so it is not called a fabrication.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import partial
from typing import Any, Protocol

from .closest import CLOSEST_STEPS, nearest
from .corpus import Corpus, corpus_for, last_corpus_holding
from .fast import Located, fast_found, located_match, unmarked_needle
from .normalize import normalize_with_map
from .quote import parse_quote, unmarked_parse
from .result import Diagnosis, GateMatch, GateResult, LazyDiagnosis, NotFoundReason
from .search import DEFAULT_MAX_GAP, SearchBudget, SearchLimitReached, Span, find_quote
from .slips import tokens

__all__ = ["MAX_QUOTE_CHARS", "Rejected", "as_corpus", "checked_quote_gate", "full_quote_gate",
           "quote_gate", "search_arguments", "span_gate"]

#: Quotes longer than this are not searched: no real citation quotes 100,000 characters, and
#: the bound keeps a hostile quote from costing time. They fail closed (``quote_too_long``).
MAX_QUOTE_CHARS = 100_000

Documents = Corpus | Mapping[Any, str]


class Rejected(Protocol):
    """What makes the answer for a quote shown absent (``not_found`` / ``no_match``):
    :meth:`GateMatch.rejected <vcg_otel.gate.result.GateMatch.rejected>` (the default), or a
    caller's maker of a :class:`~vcg_otel.gate.result.GateMatch` subclass carrying more
    (:class:`vcg_otel.documents.ResolvedMatch`), made once instead of a ``GateMatch`` made
    and copied field by field (as :class:`~vcg_otel.gate.fast.Located` for a passage found)."""

    def __call__(self, cited_document_id: str, diagnosis: LazyDiagnosis) -> GateMatch: ...


def as_corpus(docs: Documents, name: str = "docs") -> Corpus:
    """Accept a :class:`Corpus` as is; a mapping of id to text gets the corpus of earlier
    calls over the same ids and texts (:func:`~vcg_otel.gate.corpus.corpus_for`)."""
    if isinstance(docs, Corpus):
        return docs
    if isinstance(docs, Mapping):
        return corpus_for(docs)
    raise TypeError(
        f"{name} must be a Corpus or a mapping of id to text, not {type(docs).__name__}"
    )


def _doc_id(value: object, name: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise TypeError(f"{name} must be str or int, not {type(value).__name__}")
    return str(value)


def _check_gap(max_gap: int) -> None:
    if isinstance(max_gap, bool) or not isinstance(max_gap, int):
        raise TypeError(f"max_gap must be int, not {type(max_gap).__name__}")
    if max_gap < 0:
        raise ValueError("max_gap must be >= 0")


def _check_budget(budget: SearchBudget | None) -> SearchBudget:
    if budget is None:
        return SearchBudget()
    if not isinstance(budget, SearchBudget):
        raise TypeError(f"budget must be a SearchBudget or None, not {type(budget).__name__}")
    return budget


def _matched(
    result: GateResult, corpus: Corpus, cited: str | None, doc_id: str, span: Span,
    sources: tuple[str, ...], located: Located,
) -> GateMatch:
    return located_match(result, corpus.normalized(doc_id), cited, doc_id, span, sources,
                         located)


def quote_gate(
    quote: str, cited_doc_id: str | int | None, docs: Documents, *,
    max_gap: int = DEFAULT_MAX_GAP, budget: SearchBudget | None = None,
) -> GateMatch:
    """Is ``quote`` really in the document it cites?

    Args:
        quote: the quoted text as the answer gave it (ellipses and brackets allowed).
        cited_doc_id: the id of the document the citation names.
        docs: a :class:`Corpus` (best: normalization and index are reused) or a mapping of id
            to text.
        max_gap: the most normalized characters one ellipsis or bracket may stand for.
        budget: the work this call may do (default: a fresh
            :class:`~vcg_otel.gate.search.SearchBudget`); share one across calls to bound a
            whole audit.

    Returns:
        A :class:`GateMatch` equal to ``"found"`` (in the cited document), ``"misattributed"``
        (only in other documents; ``source_document_ids`` says which) or ``"not_found"``
        (fabricated, stitched, empty, an unknown document, or a search cut short by the budget;
        ``reason`` says which).

    Raises:
        TypeError: an argument has the wrong type.
    """
    if not isinstance(quote, str):
        raise TypeError(f"quote must be str, not {type(quote).__name__}")
    # The common call (a str id, a Corpus, the default gap and budget) is told by exact
    # types, which no wrong argument has; any other goes through the checks that name it.
    cited = cited_doc_id if type(cited_doc_id) is str else _doc_id(cited_doc_id, "cited_doc_id")
    searching = (SearchBudget() if max_gap is DEFAULT_MAX_GAP and budget is None
                 else search_arguments(max_gap, budget))
    if type(docs) is Corpus:
        return checked_quote_gate(quote, cited, docs, max_gap, searching)
    # The dict of the last call again (an app gating each quote of an answer): a quote found
    # in its cited document is answered from that document's unchanged text, without a pass
    # over the whole mapping; any other answer needs the mapping checked (as_corpus).
    last = last_corpus_holding(docs, cited)
    if last is not None and len(quote) <= MAX_QUOTE_CHARS:
        fast = fast_found(quote, cited, last, searching, max_gap)
        if fast is not None:
            return fast
    corpus = as_corpus(docs)
    if corpus is last:  # its fast path has just missed, budget untouched
        return full_quote_gate(quote, cited, corpus, max_gap, searching)
    return checked_quote_gate(quote, cited, corpus, max_gap, searching)


def search_arguments(max_gap: int, budget: SearchBudget | None) -> SearchBudget:
    """Check ``max_gap`` and ``budget`` as :func:`quote_gate` does (``TypeError`` or
    ``ValueError``), and return the budget to search with (a fresh one for ``None``)."""
    _check_gap(max_gap)
    return _check_budget(budget)


def checked_quote_gate(quote: str, cited: str | None, corpus: Corpus, max_gap: int,
                       budget: SearchBudget, located: Located = GateMatch.located,
                       rejected: Rejected = GateMatch.rejected) -> GateMatch:
    """:func:`quote_gate` on arguments already known to be of the right types (a ``str``
    quote and id, a :class:`Corpus`, an ``int`` gap, a budget): for callers that checked
    them once for many quotes, such as :meth:`vcg_otel.documents.DocumentSet.gate`.

    A quote found in its cited document as written, or elided with marks other than
    bracketed insertions, is answered by the fast path (:mod:`vcg_otel.gate.fast`), which
    gives exactly what :func:`full_quote_gate` gives. A passage found is made by ``located``
    (:class:`~vcg_otel.gate.fast.Located`), a quote shown absent by ``rejected``
    (:class:`Rejected`): a caller that wraps the match, such as a document set resolving the
    cited identifier, makes its own object at once instead of a copy. Other answers (a
    search cut short, an empty quote...) are plain :class:`GateMatch` objects."""
    if len(quote) <= MAX_QUOTE_CHARS:
        fast = fast_found(quote, cited, corpus, budget, max_gap, located)
        if fast is not None:
            return fast
    return full_quote_gate(quote, cited, corpus, max_gap, budget, located, rejected)


def full_quote_gate(quote: str, cited: str | None, corpus: Corpus, max_gap: int,
                    budget: SearchBudget, located: Located = GateMatch.located,
                    rejected: Rejected = GateMatch.rejected) -> GateMatch:
    """:func:`checked_quote_gate` without its fast path: every quote parsed and searched in
    full (the reference the fast path is tested against)."""
    if len(quote) > MAX_QUOTE_CHARS:
        return GateMatch(GateResult.NOT_FOUND, cited, reason=NotFoundReason.QUOTE_TOO_LONG)
    # A quote without marks is parsed as its needle alone, which the fast path has just read
    # (fast.unmarked_needle keeps it).
    needle = unmarked_needle(quote)
    parsed = unmarked_parse(needle) if needle is not None else parse_quote(quote)
    if parsed.empty:
        return GateMatch(GateResult.NOT_FOUND, cited, reason=NotFoundReason.EMPTY_QUOTE)
    known = cited is not None and cited in corpus
    if known:
        try:
            span = corpus.find_in(cited, parsed, max_gap, budget)
        except SearchLimitReached:
            return GateMatch(GateResult.NOT_FOUND, cited, reason=NotFoundReason.SEARCH_LIMIT)
        if span is not None:
            return _matched(GateResult.FOUND, corpus, cited, cited, span, (cited,), located)  # type: ignore[arg-type]
    elsewhere, complete = corpus.search_elsewhere(parsed, cited, max_gap, budget)
    if elsewhere:
        doc_id, span = elsewhere[0]
        sources = tuple(d for d, _ in elsewhere)
        return _matched(GateResult.MISATTRIBUTED, corpus, cited, doc_id, span, sources, located)
    if not complete:
        reason = NotFoundReason.SEARCH_LIMIT
    elif known:
        return _rejected(parsed.needle or " ".join(parsed.pieces), cited, corpus, budget,  # type: ignore[arg-type]
                         rejected)
    else:
        reason = NotFoundReason.UNKNOWN_DOCUMENT
    return GateMatch(GateResult.NOT_FOUND, cited, reason=reason)


def _rejected(needle: str, cited: str, corpus: Corpus, budget: SearchBudget,
              rejected: Rejected = GateMatch.rejected) -> GateMatch:
    """``not_found`` / ``no_match`` for a quote shown absent, made by ``rejected``, with how
    it differs from the closest passage of the documents
    (:func:`~vcg_otel.gate.closest.nearest`), worked out when first read
    (:class:`~vcg_otel.gate.result.LazyDiagnosis`).

    The search's allowance is fixed now, from what ``budget`` has left, so the diagnosis is
    the same whenever it is read; its steps are charged to ``budget`` when it runs."""
    allowance = max(1, min(CLOSEST_STEPS, budget.limit - budget.used))
    return rejected(cited, LazyDiagnosis(partial(_diagnose, needle, cited, corpus, budget,
                                                 allowance)))


def _diagnose(needle: str, cited: str, corpus: Corpus, budget: SearchBudget,
              allowance: int) -> Diagnosis:
    """The diagnosis of :func:`_rejected`, run when first read: ``allowance`` steps of its
    own, charged to ``budget`` once spent."""
    return nearest(needle, (cited, corpus.normalized(cited)),
                   corpus.documents_near(_longest_first(needle), cited), budget, allowance,
                   partial(corpus.others_lacking_most, exclude=cited))


def _longest_first(needle: str) -> Iterator[str]:
    """The quote's distinct words, longest first (read only by a corpus with a word index)."""
    yield from sorted({m.group() for m in tokens(needle)}, key=lambda w: (-len(w), w))


def _int_arg(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be int, not {type(value).__name__}")
    return value


def span_gate(
    doc_id: str | int,
    start: int,
    end: int,
    docs: Documents,
    quote: str | None = None,
    chunk: tuple[int, int] | None = None,
    *,
    max_gap: int = DEFAULT_MAX_GAP,
    budget: SearchBudget | None = None,
) -> GateMatch:
    """Check a citation given as half-open offsets ``[start, end)`` into a document.

    With ``chunk=(chunk_start, chunk_end)`` (the retrieved chunk the answer could see) a span
    reaching outside the chunk is rejected, never clipped. With ``quote`` the quote must also
    occur inside the span; the match then reports the quote's own offsets.

    Never raises for out-of-range, inverted or empty offsets: those are ``not_found`` with a
    reason. Raises ``TypeError`` only for arguments of the wrong type.
    """
    cited = _doc_id(doc_id, "doc_id")
    start = _int_arg(start, "start")
    end = _int_arg(end, "end")
    if quote is not None and not isinstance(quote, str):
        raise TypeError(f"quote must be str or None, not {type(quote).__name__}")
    if chunk is not None:
        if not isinstance(chunk, (tuple, list)) or len(chunk) != 2:
            raise TypeError("chunk must be a (start, end) pair or None")
        chunk_start, chunk_end = _int_arg(chunk[0], "chunk[0]"), _int_arg(chunk[1], "chunk[1]")
    corpus = as_corpus(docs)
    _check_gap(max_gap)
    budget = _check_budget(budget)

    def reject(reason: NotFoundReason) -> GateMatch:
        return GateMatch(GateResult.NOT_FOUND, cited, reason=reason)

    if cited is None or cited not in corpus:
        return reject(NotFoundReason.UNKNOWN_DOCUMENT)
    text = corpus.text(cited)
    if start < 0 or end > len(text) or start > end:
        return reject(NotFoundReason.OUT_OF_RANGE)
    if chunk is not None:
        if chunk_start < 0 or chunk_end > len(text) or chunk_start > chunk_end:
            return reject(NotFoundReason.OUT_OF_RANGE)
        if start < chunk_start or end > chunk_end:
            return reject(NotFoundReason.OUTSIDE_CHUNK)
    passage = normalize_with_map(text[start:end])
    if not any(ch.isalnum() for ch in passage.text):
        return reject(NotFoundReason.EMPTY_SPAN)
    if quote is None:
        return GateMatch(GateResult.FOUND, cited, cited, start, end, text[start:end],
                         source_document_ids=(cited,))
    if len(quote) > MAX_QUOTE_CHARS:
        return reject(NotFoundReason.QUOTE_TOO_LONG)
    parsed = parse_quote(quote)
    if parsed.empty:
        return reject(NotFoundReason.EMPTY_QUOTE)
    try:
        span = find_quote(passage, parsed, max_gap, budget)
    except SearchLimitReached:
        return reject(NotFoundReason.SEARCH_LIMIT)
    if span is None:
        return reject(NotFoundReason.QUOTE_NOT_IN_SPAN)
    q_start, q_end = passage.original_span(span.start, span.end)
    pieces = tuple(
        (start + s, start + e) for s, e in (passage.original_span(a, b) for a, b in span.pieces)
    )
    return GateMatch(GateResult.FOUND, cited, cited, start + q_start, start + q_end,
                     text[start + q_start:start + q_end], span.elided, pieces, (cited,),
                     forgiven=span.forgiven)
