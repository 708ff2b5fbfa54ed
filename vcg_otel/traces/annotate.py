"""The annotations a trace audit writes back to Phoenix, and the audit version that keys them.

Per citation, ``citation_verdict`` on the answer span (the span whose output held the
citations); per trace, ``citation_fabrication`` on the root span. Label, score, explanation and
metadata are those the live :class:`~vcg_otel.phoenix.PhoenixAnnotationProcessor` writes, so a
project's views and Metrics tab read both alike.

Identity: Phoenix keeps one annotation per (span, name, ``identifier``) and replaces it when
written again. The identifier carries the :func:`audit_version` (gate version, and the judge's
prompt versions when a judge ran), so a re-run with the same version writes nothing new (the
trace is skipped before any work) and a new version adds its own annotations beside the old.
"""

from __future__ import annotations

from typing import Any

from ..audit.models import AuditReport
from ..gate.version import GATE_VERSION
from ..judge.evidence_prompt import EVIDENCE_PROMPT_VERSION
from ..judge.prompt import PROMPT_VERSION
from ..otel import semconv
from ..otel.content import ContentPolicy
from ..otel.events import summary
from ..otel.spans import audit_span_attributes, check_attributes
from ..phoenix.annotations import REQUEST_ANNOTATION, VERDICT_ANNOTATION
from ..phoenix.annotations import PhoenixAnnotationProcessor as _Live

__all__ = ["REQUEST_ANNOTATION", "VERDICT_ANNOTATION", "audit_version", "request_identifier",
           "trace_annotations", "verdict_identifier"]


def audit_version(judged: bool) -> str:
    """``gate-<GATE_VERSION>``, plus the judge's prompt versions when a judge is configured."""
    version = f"gate-{GATE_VERSION}"
    if judged:
        version += f"+{PROMPT_VERSION}+{EVIDENCE_PROMPT_VERSION}"
    return version


def verdict_identifier(version: str, index: int) -> str:
    return f"vcg-otel:{version}:citation-{index}"


def request_identifier(version: str) -> str:
    return f"vcg-otel:{version}"


def trace_annotations(report: AuditReport, answer_span_id: str, root_span_id: str | None,
                      version: str, policy: ContentPolicy) -> list[dict[str, Any]]:
    """The annotations of one audited trace (see the module docstring)."""
    notes = []
    for r in report.results:
        attrs = check_attributes(r, policy, summary(r, policy))
        note = _Live._verdict(int(answer_span_id, 16), attrs,
                              identifier=verdict_identifier(version, r.index))
        note["metadata"] = {**note["metadata"], semconv.ANNOTATION_AUDIT_VERSION: version,
                            semconv.CITATION_INDEX: r.index}
        notes.append(note)
    target = root_span_id or answer_span_id
    note = _Live._request(int(target, 16), audit_span_attributes(report))
    note["identifier"] = request_identifier(version)
    note["metadata"] = {**note["metadata"], semconv.ANNOTATION_AUDIT_VERSION: version,
                        semconv.ANNOTATION_ANSWER_SPAN_ID: answer_span_id}
    notes.append(note)
    return notes

