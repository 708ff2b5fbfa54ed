"""What a format reader hands back: the citations it read, how their ids may be named, and
the documents its response or request carries."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..citation import Citation

__all__ = ["Format", "Found", "document"]


@dataclass
class Found:
    """One format's reading of a result.

    Attributes:
        format: the reader's name (``anthropic``, ``cohere``, ...): recorded on the audit span.
        citations: in answer order; each ``document_id`` is the provider's own id, already
            mapped to what the app can hold where the format says how (a 1-based ``[doc1]``
            to the first retrieved chunk, ``doc:0`` to position 0, ...).
        alternatives: for ``citations[i]``, other names of the same source, tried in order
            when ``document_id`` names no retrieved document (a title, a filename, a
            position): the first that resolves is used.
        documents: documents the response or the request carries, as plain dicts
            (``id``/``text``/``metadata``), in the provider's order (positions count in it);
            ``None`` keeps a place whose text is not available (a PDF document block).
        textless: ids of sources the response lists without their text (web results):
            a citation of one that the app's documents do not hold is ``unverifiable``,
            never a fabrication.
        consumed: call arguments this reader read documents from (not read again
            generically: the generic reader would misread the provider's document shape).
        position_base: how the format counts positions (``0``, ``1``), ``None`` when it
            does not cite by position; the audit's document set counts that way unless the
            app's config fixes a base.
        result_documents: whether the generic document reader should also read the result
            (frameworks' results carry their documents: LlamaIndex ``source_nodes``).
    """

    format: str
    citations: list[Citation] = field(default_factory=list)
    alternatives: dict[int, tuple[str, ...]] = field(default_factory=dict)
    documents: list[Mapping[str, Any] | None] = field(default_factory=list)
    textless: set[str] = field(default_factory=set)
    consumed: frozenset[str] = frozenset()
    position_base: int | None = None
    result_documents: bool = False

    def cite(self, citation: Citation, *alternatives: str | None) -> None:
        """Add ``citation``, with other names of its source (``None`` ones dropped)."""
        names = tuple(dict.fromkeys(a for a in alternatives
                                    if a is not None and a != citation.document_id))
        if names:
            self.alternatives[len(self.citations)] = names
        self.citations.append(citation)


class Format(Protocol):
    """A format reader: recognises its shape by the fields that define it, else ``None``."""

    name: str
    keys: frozenset[str]

    def read(self, obj: Any, arguments: Mapping[str, Any]) -> Found | None: ...


#: Metadata keys the document model reads as identifiers: a document's other names go there.
_ALIAS_SLOTS = ("doc_id", "document_id", "source_id")


def document(ident: str | None, text: str | None, *aliases: str | None,
             source: str | None = None) -> dict[str, Any] | None:
    """A document in the shape the document model reads (``None`` when it has no text):
    ``ident`` its id, ``aliases`` other names a citation may use (a title, a URL),
    ``source`` a path or file name (which also resolves by basename and stem)."""
    if not isinstance(text, str):
        return None
    meta: dict[str, Any] = {}
    names = [a for a in dict.fromkeys(aliases) if isinstance(a, str) and a and a != ident]
    for slot, alias in zip(_ALIAS_SLOTS, names, strict=False):
        meta[slot] = alias
    if isinstance(source, str) and source:
        meta["source"] = source
    out: dict[str, Any] = {"text": text, "metadata": meta}
    if ident is not None:
        out["id"] = ident
    return out
