"""Enforce mode: what the caller receives once an answer's citations have been audited.

A result that is a dict with a ``citations`` list comes back as a copy whose ``citations`` keep
only the consistent citations (verbatim and, with a judge, supported) and which carries the
report under ``"citation_audit"``; any other result comes back as :class:`AuditedResult`. With
``on_violation="raise"`` an answer with any inconsistent citation raises
:class:`CitationViolation` instead. An audit that cannot run raises :class:`CitationAuditError`
(fail closed: an unaudited answer is never passed off as audited).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from .audit.models import AuditReport
from .reading.generic import citations_from_item

__all__ = ["AuditedResult", "CitationAuditError", "CitationViolation", "OnViolation", "enforce"]

OnViolation = Literal["filter", "raise"]


class CitationViolation(Exception):
    """Raised in ``enforce`` mode with ``on_violation="raise"``: a citation failed its audit."""

    def __init__(self, report: AuditReport) -> None:
        self.report = report
        bad = ", ".join(f"#{r.index} {r.outcome.value}" for r in report.inconsistent)
        super().__init__(f"{len(report.inconsistent)} citation(s) failed the audit: {bad}")


class CitationAuditError(Exception):
    """Raised in ``enforce`` mode when the audit itself could not run (fail closed)."""


@dataclass(frozen=True, slots=True)
class AuditedResult:
    """An ``enforce``-mode result that is not a dict: the handler's value and its audit."""

    value: Any
    report: AuditReport


def enforce(result: Any, report: AuditReport, on_violation: OnViolation = "filter") -> Any:
    """What an enforce-mode caller receives for ``result`` audited as ``report`` (see the
    module docstring for the rule); raises :class:`CitationViolation` with ``"raise"``."""
    if on_violation == "raise" and report.inconsistent:
        raise CitationViolation(report)
    listed = result.get("citations") if isinstance(result, dict) else None
    if isinstance(listed, list):
        keep = consistent_items(listed, report)
        return {**result, "citations": keep, "citation_audit": report.to_dict()}
    return AuditedResult(result, report)


def consistent_items(items: list[Any], report: AuditReport) -> list[Any]:
    """Items of a result's ``citations`` list whose audit came out consistent.

    Items that are not recognisable citations were not audited: nothing vouches for them, so
    they are dropped too. An item citing several sources (a Cohere span) gave one result per
    source: it is kept only when all of them are consistent.
    """
    kept: list[Any] = []
    results = iter(report.results)
    for item in items:
        mine = [r for _, r in zip(citations_from_item(item), results, strict=False)]
        if mine and all(report.is_consistent(r) for r in mine):
            kept.append(item)
    return kept
