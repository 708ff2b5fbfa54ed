"""vcg_otel: catch fabricated RAG citations and see them in OpenTelemetry.

Stage 1 (this release's core) is the verbatim gate: :func:`quote_gate`, :func:`span_gate`,
:class:`Corpus`, :func:`normalize`. Importing the package loads nothing heavy.
"""

from .gate import (
    DEFAULT_MAX_GAP,
    Corpus,
    DocumentCache,
    GateMatch,
    GateResult,
    NormalizedText,
    NotFoundReason,
    normalize,
    normalize_with_map,
    quote_gate,
    span_gate,
)

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_MAX_GAP",
    "Corpus",
    "DocumentCache",
    "GateMatch",
    "GateResult",
    "NormalizedText",
    "NotFoundReason",
    "__version__",
    "normalize",
    "normalize_with_map",
    "quote_gate",
    "span_gate",
]
