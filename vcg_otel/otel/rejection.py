"""What the gate forgave, or how a rejected quote differs from its source, as attributes.

One place for the check span and the ``gen_ai.evaluation.result`` event, which carry the
same: the slips forgiven to find a quote (``citation.gate.forgiven``), and for a quote shown
absent its rejection kind (``altered`` / ``invented``), the closest passage's offsets and
score, and the word diffs. The differing words are content (they quote the answer and the
document): written only when inputs may be captured; their counts always.
"""

from __future__ import annotations

from typing import Any

from .._enum import VALUE
from ..gate import GateMatch
from ..gate.result import NO_DIAGNOSIS
from . import semconv
from .content import ContentPolicy

__all__ = ["add_gate_details"]


def add_gate_details(attrs: dict[str, Any], gate: GateMatch, policy: ContentPolicy) -> None:
    """Forgiven slips, rejection kind, closest passage and diffs of one gate result, written
    into ``attrs`` (a check span's or an event's, which holds none of these keys yet)."""
    if gate.forgiven:
        attrs[semconv.GATE_FORGIVEN] = list(gate.forgiven)
    diagnosis = gate.diagnosis
    if diagnosis is NO_DIAGNOSIS:  # a passage found (most quotes): nothing to diagnose
        return
    # both at once: ``gate.rejection`` and ``gate.closest`` each read the diagnosis anew
    rejection, closest = diagnosis.value
    if rejection is not None:
        attrs[semconv.GATE_REJECTION] = VALUE[rejection]
    if closest is None:
        return
    attrs[semconv.GATE_CLOSEST_DOCUMENT_ID] = closest.document_id
    attrs[semconv.GATE_CLOSEST_START] = closest.start
    attrs[semconv.GATE_CLOSEST_END] = closest.end
    attrs[semconv.GATE_CLOSEST_SCORE] = closest.score
    attrs[semconv.GATE_DIFF_REMOVED_COUNT] = len(closest.removed)
    attrs[semconv.GATE_DIFF_ADDED_COUNT] = len(closest.added)
    attrs[semconv.GATE_DIFF_REPLACED_COUNT] = len(closest.replaced)
    if policy.inputs:
        if closest.removed:
            attrs[semconv.GATE_DIFF_REMOVED] = list(closest.removed)
        if closest.added:
            attrs[semconv.GATE_DIFF_ADDED] = list(closest.added)
        if closest.replaced:
            attrs[semconv.GATE_DIFF_REPLACED] = [f"{old} -> {new}" for old, new in closest.replaced]
