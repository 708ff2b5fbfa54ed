"""``audit_result`` (the auditor's fast constructor) makes exactly the ``AuditResult`` that
``AuditResult(...)`` makes: every field, frozen, equal, copyable, replaceable, picklable."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from vcg_otel.audit.models import AuditResult, Outcome, audit_result
from vcg_otel.citation import Citation
from vcg_otel.gate import GateMatch, GateResult
from vcg_otel.judge.verdict import Verdict, VerdictLabel

CITATION = Citation("a claim", "doc-1", "a quote")
GATE = GateMatch(GateResult.FOUND, "doc-1", "doc-1", 3, 10, "a quote")
VERDICT = Verdict(VerdictLabel.SUPPORTS, 0.9, "it says so")
EVERY_FIELD = (4, CITATION, GATE, VERDICT, Outcome.SUPPORTS, None, True, True, 0.25, 1.5,
               123, 456, "the prompt", None)


def test_the_builder_takes_the_result_s_fields_in_order() -> None:
    assert [f.name for f in dataclasses.fields(AuditResult)] == [
        "index", "citation", "gate", "verdict", "outcome", "judge_skipped", "cached",
        "judge_called", "gate_seconds", "judge_seconds", "gate_started_ns", "judge_started_ns",
        "judge_input", "evidence"]


@pytest.mark.parametrize("arguments", [
    (EVERY_FIELD, {}),
    ((0, CITATION, None, None, Outcome.UNVERIFIABLE, "deadline"), {"gate_started_ns": 7}),
    ((1, CITATION, GATE, None, Outcome.FOUND, "no_judge"),
     {"gate_seconds": 0.5, "gate_started_ns": 9, "evidence": None}),
])
def test_audit_result_is_the_dataclass_s_constructor(
        arguments: tuple[tuple[object, ...], dict[str, object]]) -> None:
    args, kwargs = arguments
    made = audit_result(*args, **kwargs)  # type: ignore[arg-type]
    expected = AuditResult(*args, **kwargs)  # type: ignore[arg-type]
    assert type(made) is AuditResult
    assert made == expected and repr(made) == repr(expected)
    for f in dataclasses.fields(AuditResult):  # the very objects, not equal copies
        assert getattr(made, f.name) is getattr(expected, f.name)
    if made.gate is None:  # a gate match holds a lock (its lazy diagnosis): not copyable
        assert pickle.loads(pickle.dumps(made)) == expected
        assert copy.copy(made) == expected
    assert dataclasses.replace(made, index=9) == dataclasses.replace(expected, index=9)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.index = 5  # type: ignore[misc]
