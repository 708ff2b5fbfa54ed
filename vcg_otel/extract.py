"""Citations and documents from what RAG apps return: the public name of the generic reader.

The reader lives in :mod:`vcg_otel.reading.generic` (the fallback of
:func:`vcg_otel.reading.read_output`), its bounded reading primitives (``Budget``, the
limits, ``document_id``) in :mod:`vcg_otel.reading.walk`. ``vcg_otel.extract.extract_citations``
and the other names below stay importable from here, as they always were.
"""

from __future__ import annotations

from .reading.generic import (
    DOCUMENT_ARGUMENTS,
    MAX_CLAIM_CONTEXT,
    MAX_DEPTH,
    call_arguments,
    call_sources,
    citation_from_item,
    citations_from_item,
    extract_citations,
    extract_documents,
)
from .reading.walk import (
    MAX_ID_CHARS,
    MAX_NODES,
    MAX_SECONDS,
    MAX_TEXT_CHARS,
    SLOW_READ_SECONDS,
    Budget,
    charging,
    document_id,
    within_budget,
)

__all__ = ["DOCUMENT_ARGUMENTS", "MAX_CLAIM_CONTEXT", "MAX_DEPTH", "MAX_ID_CHARS", "MAX_NODES",
           "MAX_SECONDS", "MAX_TEXT_CHARS", "SLOW_READ_SECONDS", "Budget",
           "call_arguments", "call_sources", "charging", "citation_from_item",
           "citations_from_item", "document_id", "extract_citations",
           "extract_documents", "within_budget"]
