"""A citation of an answer: the ground floor of the input side.

Every reader (:mod:`vcg_otel.reading`, :mod:`vcg_otel.markers`), the
document model and the audit take or make :class:`Citation`, so it imports nothing of
vcg_otel but :mod:`vcg_otel._frozen` (which imports nothing of it either): any module may use
it without being drawn into a circle. ``vcg_otel.audit.Citation``
and ``vcg_otel.audit.models.Citation`` are the same class, handed on.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ._frozen import slot_builder

__all__ = ["Citation", "exact_citation", "plain_citation"]


_ALIASES = {"doc_id": "document_id", "source_id": "document_id"}


def _opt_int(data: Mapping[str, Any], key: str) -> int | None:
    value = data.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"citation field {key!r} must be int, not {type(value).__name__}")
    return value


@dataclass(frozen=True, slots=True)
class Citation:
    """One citation of an answer.

    Attributes:
        claim: what the answer asserts (the judge decides whether the source establishes it).
        document_id: the document the citation names.
        quote: the quoted text, or ``None`` when the citation gives only offsets (or nothing).
        start, end: optional half-open offsets into the document.
        chunk: optional ``(start, end)`` of the retrieved chunk the answer could see.
    """

    claim: str = ""
    document_id: str | None = None
    quote: str | None = None
    start: int | None = None
    end: int | None = None
    chunk: tuple[int, int] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.claim, str):
            raise TypeError(f"claim must be str, not {type(self.claim).__name__}")
        if self.quote is not None and not isinstance(self.quote, str):
            raise TypeError(f"quote must be str or None, not {type(self.quote).__name__}")
        # Plain values: a str subclass could lie about its length or content to the bounds.
        object.__setattr__(self, "claim", str.__str__(self.claim))
        if self.quote is not None:
            object.__setattr__(self, "quote", str.__str__(self.quote))
        if self.document_id is not None and not isinstance(self.document_id, str):
            object.__setattr__(self, "document_id", str(self.document_id))

    @property
    def has_offsets(self) -> bool:
        return self.start is not None and self.end is not None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (``chunk`` as a list); ``from_dict`` reads it back."""
        return {
            "claim": self.claim,
            "document_id": self.document_id,
            "quote": self.quote,
            "start": self.start,
            "end": self.end,
            "chunk": None if self.chunk is None else list(self.chunk),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Citation:
        """Build from a dict; ``doc_id`` and ``source_id`` are accepted for ``document_id``."""
        if not isinstance(data, Mapping):
            raise TypeError(f"citation must be a mapping, not {type(data).__name__}")
        values = {_ALIASES.get(k, k): v for k, v in data.items()}
        chunk = values.get("chunk")
        if chunk is not None:
            if not isinstance(chunk, (list, tuple)) or len(chunk) != 2:
                raise TypeError("citation field 'chunk' must be a [start, end] pair")
            chunk = (int(chunk[0]), int(chunk[1]))
        doc = values.get("document_id")
        return cls(
            claim=values.get("claim") or "",
            document_id=None if doc is None else str(doc),
            quote=values.get("quote"),
            start=_opt_int(values, "start"),
            end=_opt_int(values, "end"),
            chunk=chunk,
        )


#: ``Citation(claim, document_id, quote, start, end, chunk)`` at the cost of plain slot stores,
#: for values its ``__post_init__`` would accept and leave unchanged: an exact ``str`` claim, an
#: exact ``str`` or ``None`` document id and quote. Nothing is checked: the caller vouches for
#: them (a reader that has made its texts plain; :func:`plain_citation` checks them first).
exact_citation = slot_builder(Citation, post_init_unneeded=True)


def plain_citation(claim: str, document_id: str | None, quote: str | None,
                   start: int | None = None, end: int | None = None,
                   chunk: tuple[int, int] | None = None) -> Citation:
    """``Citation(claim, document_id, quote, start, end, chunk)``, made with plain slot stores
    when every text is an exact ``str`` (or ``None``): ``__post_init__`` would then neither
    raise nor change a value. A reader makes one per citation of every audited call; anything
    else goes through the checking constructor."""
    if (type(claim) is str and (quote is None or type(quote) is str)
            and (document_id is None or type(document_id) is str)):
        return exact_citation(claim, document_id, quote, start, end, chunk)
    return Citation(claim, document_id, quote, start, end, chunk)
