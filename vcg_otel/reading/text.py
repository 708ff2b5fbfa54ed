"""Answer text: inline quotes (``"quoted text" [doc-id]``) and source markers (``[3]``,
``[smith-2026]``, footnotes), both read in one answer (:mod:`vcg_otel.reading.generic` rules)."""

from __future__ import annotations

from ..citation import Citation
from .generic import extract_citations
from .walk import Budget, current

__all__ = ["text_citations"]


def text_citations(text: str, budget: Budget | None = None) -> list[Citation]:
    """The citations of one answer text, charged to ``budget`` (default: the reading's)."""
    if not text:
        return []
    return extract_citations(text, budget if budget is not None else current())
