"""Google Gemini grounding: ``candidates[].groundingMetadata`` (REST camelCase or SDK snake_case).

Recognised by ``groundingSupports`` / ``groundingChunks``. Each support's ``segment`` (its
``text``, or ``startIndex``/``endIndex`` into the candidate's text) is a claim, cited to the
chunks of its ``groundingChunkIndices`` (0-based into ``groundingChunks``): one quote-less
citation per chunk. A chunk is a document: ``retrievedContext`` (``uri``, ``title``, ``text``)
from a corpus or store, ``web`` (``uri``, ``title``: no text, unverifiable unless the app holds
the page under its URI). An index past the chunk list is a source never retrieved.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...citation import Citation
from ..base import Found, document
from ..walk import field, integer, listed, text_of

name = "gemini"
#: A mapping with none of these keys is not this shape (checked before reading it).
keys = frozenset({"candidates"})


def _metadata(candidate: Any) -> Any:
    return field(candidate, "grounding_metadata", "groundingMetadata")


def _text(candidate: Any) -> str:
    parts = listed(field(field(candidate, "content"), "parts"))
    return "".join(text_of(field(p, "text")) or "" for p in parts)


def read(obj: Any, arguments: Mapping[str, Any]) -> Found | None:
    candidates = listed(field(obj, "candidates"))
    grounded = [(c, _metadata(c)) for c in candidates]
    if not any(field(m, "grounding_supports", "groundingSupports") is not None
               or field(m, "grounding_chunks", "groundingChunks") is not None
               for _, m in grounded):
        return None
    found = Found(name, position_base=0)
    for candidate, meta in grounded:
        names: list[str] = []
        for i, chunk in enumerate(listed(field(meta, "grounding_chunks", "groundingChunks"))):
            ctx = field(chunk, "retrieved_context", "retrievedContext")
            web = field(chunk, "web")
            src = ctx if ctx is not None else web
            uri, title = text_of(field(src, "uri")), text_of(field(src, "title"))
            ident = uri or title or f"groundingChunks[{i}]"
            names.append(ident)
            text = text_of(field(ctx, "text")) if ctx is not None else None
            if text is None:
                found.textless.add(ident)
            found.documents.append(document(ident, text, title))
        answer = _text(candidate)
        for support in listed(field(meta, "grounding_supports", "groundingSupports")):
            segment = field(support, "segment")
            claim = text_of(field(segment, "text"))
            if claim is None:
                start = integer(field(segment, "start_index", "startIndex")) or 0
                end = integer(field(segment, "end_index", "endIndex"))
                claim = answer[start:end] if end is not None else ""
            indices = listed(field(support, "grounding_chunk_indices", "groundingChunkIndices"))
            for index in dict.fromkeys(integer(i) for i in indices):
                if index is None:
                    continue
                ident = names[index] if 0 <= index < len(names) else f"groundingChunks[{index}]"
                found.cite(Citation(claim, ident, None))
    return found
