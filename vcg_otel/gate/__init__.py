"""Stage 1, the verbatim gate: is the quote really in the document it cites?

Deterministic, offline and free: no model, no network. See :func:`quote_gate`,
:func:`span_gate`, :class:`Corpus` and :func:`normalize`.
"""

from .api import as_corpus, quote_gate, span_gate
from .corpus import Corpus, DocumentCache, default_cache
from .normalize import NormalizedText, OffsetMap, normalize, normalize_with_map
from .quote import ParsedQuote, parse_quote
from .result import ClosestPassage, GateMatch, GateResult, NotFoundReason, RejectionKind
from .search import DEFAULT_MAX_GAP, DEFAULT_SEARCH_STEPS, SearchBudget, SearchLimitReached

__all__ = [
    "DEFAULT_MAX_GAP",
    "DEFAULT_SEARCH_STEPS",
    "ClosestPassage",
    "Corpus",
    "DocumentCache",
    "GateMatch",
    "GateResult",
    "NormalizedText",
    "NotFoundReason",
    "OffsetMap",
    "ParsedQuote",
    "RejectionKind",
    "SearchBudget",
    "SearchLimitReached",
    "as_corpus",
    "default_cache",
    "normalize",
    "normalize_with_map",
    "parse_quote",
    "quote_gate",
    "span_gate",
]
