"""The component's ``Citation``: what goes in, and the copy that comes out with its outcome.

The conversions live here too: a ``Citation`` (or a dict, or a :class:`vcg_otel.Citation`) to
the audit's citation, failing closed with a reason when a field has the wrong type; and an
:class:`~vcg_otel.audit.AuditResult` back to a ``Citation`` whose ``matched_document_id`` is
always a real ``Document.id``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from vcg_otel.audit import AuditResult, Outcome
from vcg_otel.audit import Citation as AuditCitation

__all__ = [
    "REASON_INVALID_CITATION",
    "REASON_MAX_CITATIONS",
    "Citation",
    "audit_citation",
    "checked",
    "unchecked",
]

#: ``reason`` of a citation left unchecked because the run had more than ``max_citations``.
REASON_MAX_CITATIONS = "max_citations"
#: ``reason`` prefix of a citation whose fields cannot be checked (``invalid_quote`` ...).
REASON_INVALID_CITATION = "invalid_citation"


@dataclass
class Citation:
    """A quote-style citation, and after a check its outcome.

    Attributes:
        claim, document_id, quote: as the answer gave them (``document_id`` may be any
            identifier the prompt showed: ``Document.id``, a ``meta`` id, a file name, a
            position).
        status: filled in by the checker: ``found`` (verbatim, no judge), ``not_found``,
            ``misattributed``, or with a judge ``supports``/``partial``/``unrelated``/
            ``contradicts``/``unjudged``; ``unverifiable`` when nothing was checked (no
            documents, a field of the wrong type, past ``max_citations``: see ``reason``).
        reason: why not found (``no_match``, ``empty_quote``, ``unknown_document``, ...), why
            the judge failed closed, or why nothing was checked (``max_citations``,
            ``invalid_quote``, ``invalid_claim``, ``invalid_document_id``,
            ``invalid_citation``).
        matched_document_id: the ``Document.id`` whose content holds the quote.
        start, end: the quote's offsets in that document's content.
        resolution: how ``document_id`` was resolved (``id``, ``path``, ``stem``, ...).
    """

    claim: str
    document_id: str | None
    quote: str | None
    status: str | None = None
    reason: str | None = None
    matched_document_id: str | None = None
    start: int | None = None
    end: int | None = None
    resolution: str | None = None


def _field_error(item: Any) -> str | None:
    """The ``reason`` for a citation-like object whose fields the audit cannot read (the
    dataclass does not enforce its annotations: a model's ``"quote": 42`` arrives as is)."""
    claim = getattr(item, "claim", None)
    quote = getattr(item, "quote", None)
    doc = getattr(item, "document_id", None)
    if claim is not None and not isinstance(claim, str):
        return "invalid_claim"
    if quote is not None and not isinstance(quote, str):
        return "invalid_quote"
    if doc is not None and (isinstance(doc, bool) or not isinstance(doc, (str, int))):
        return "invalid_document_id"
    return None


def audit_citation(item: Any) -> AuditCitation | str:
    """The audit's citation for one input, or the ``reason`` it cannot be checked."""
    if isinstance(item, AuditCitation):
        return item
    if isinstance(item, Mapping):
        try:
            return AuditCitation.from_dict(item)
        except (TypeError, ValueError):
            return REASON_INVALID_CITATION
    error = _field_error(item)
    if error is not None:
        return error
    doc = getattr(item, "document_id", None)
    return AuditCitation(getattr(item, "claim", None) or "", None if doc is None else str(doc),
                         getattr(item, "quote", None))


def _given(item: Any) -> tuple[Any, Any, Any]:
    """``(claim, document_id, quote)`` of an input, as it was given."""
    if isinstance(item, Mapping):
        doc = item.get("document_id", item.get("doc_id", item.get("source_id")))
        return item.get("claim"), doc, item.get("quote")
    return (getattr(item, "claim", None), getattr(item, "document_id", None),
            getattr(item, "quote", None))


def unchecked(item: Any, reason: str) -> Citation:
    """A copy of an input that was not checked: ``unverifiable``, with why."""
    claim, doc, quote = _given(item)
    return Citation(claim=claim, document_id=doc, quote=quote,
                    status=Outcome.UNVERIFIABLE.value, reason=reason)


def checked(c: AuditCitation, r: AuditResult, document_ids: Mapping[str, str]) -> Citation:
    """A copy of ``c`` with its outcome. ``document_ids`` maps the audit's chunk keys to the
    ``Document.id`` they came from (keys of duplicate ids are made unique: ``x#1``)."""
    gate = r.gate
    reason = None
    if gate is not None and gate.reason is not None:
        reason = gate.reason.value
    elif r.fail_reason is not None:
        reason = r.fail_reason.value
    found_in = gate.document_id if gate is not None else None
    return Citation(
        claim=c.claim, document_id=c.document_id, quote=c.quote, status=r.outcome.value,
        reason=reason,
        matched_document_id=None if found_in is None else document_ids.get(found_in, found_in),
        start=gate.start if gate is not None else None,
        end=gate.end if gate is not None else None,
        resolution=getattr(gate, "resolution", None),
    )
