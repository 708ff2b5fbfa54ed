"""``record_metrics`` tallies citations by shape (gate result, rejection kind, verdict, outcome)
before it adds: the ``citation.audits`` points, their values and their order must be those of
counting citation by citation, whatever mix of shapes a report has."""

from __future__ import annotations

import random
from typing import Any

import pytest

from vcg_otel._enum import VALUE
from vcg_otel.audit.models import AuditReport, AuditResult, Citation, Outcome
from vcg_otel.gate import GateMatch, GateResult, RejectionKind
from vcg_otel.gate.result import LazyDiagnosis
from vcg_otel.judge.verdict import FailReason, Verdict, VerdictLabel
from vcg_otel.otel import semconv
from vcg_otel.otel.metrics import Instruments, record_metrics


class _Log:
    """Every ``add`` of one instrument, in order."""

    def __init__(self) -> None:
        self.adds: list[tuple[Any, dict[str, Any]]] = []

    def add(self, value: Any, attributes: dict[str, Any]) -> None:
        self.adds.append((value, dict(attributes)))

    def record(self, value: Any, attributes: dict[str, Any]) -> None:
        pass


def _gate(rng: random.Random) -> GateMatch | None:
    kind = rng.choice(["none", "found", "misattributed", "rejected", "cut"])
    if kind == "none":
        return None
    if kind in ("found", "misattributed"):
        return GateMatch(GateResult(kind), "a", "a", 0, 4, "text")
    rejection = None if kind == "cut" else rng.choice(list(RejectionKind))
    return GateMatch.rejected("a", LazyDiagnosis.known(rejection, None))


def _verdict(rng: random.Random) -> Verdict | None:
    kind = rng.choice(["none", "label", "failed"])
    if kind == "none":
        return None
    if kind == "failed":
        return Verdict.failed(rng.choice(list(FailReason)))
    return Verdict("why", rng.choice([VerdictLabel.SUPPORTS, VerdictLabel.PARTIAL]), 0.9)


def _report(rng: random.Random, size: int) -> AuditReport:
    results = tuple(AuditResult(i, Citation(f"claim {i}", "a", "q"), _gate(rng), _verdict(rng),
                                rng.choice(list(Outcome))) for i in range(size))
    return AuditReport(results)


def _citation_by_citation(report: AuditReport) -> list[tuple[int, dict[str, Any]]]:
    """The points as counted one citation at a time (the rule the tally must keep)."""
    counts: dict[tuple[str, str, str | None], int] = {}

    def count(key: tuple[str, str, str | None]) -> None:
        counts[key] = counts.get(key, 0) + 1

    for r in report.results:
        kind = None
        if r.gate is not None:
            rejection = r.gate.rejection
            kind = None if rejection is None else VALUE[rejection]
            count((semconv.STAGE_GATE, VALUE[r.gate.result], kind))
        if r.verdict is not None:
            count((semconv.STAGE_JUDGE, VALUE[r.verdict.verdict], None))
        count((semconv.STAGE_FINAL, VALUE[r.outcome], kind))
    points = []
    for (stage, verdict, kind), n in counts.items():
        attrs = {semconv.ATTR_STAGE: stage, semconv.VERDICT: verdict}
        if kind is not None:
            attrs[semconv.GATE_REJECTION] = kind
        points.append((n, attrs))
    return points


@pytest.mark.parametrize("seed", range(40))
def test_points_by_shape_are_the_points_citation_by_citation(seed: int) -> None:
    rng = random.Random(seed)
    report = _report(rng, rng.randint(0, 12))
    audits: Any = _Log()
    other: Any = _Log()
    record_metrics(Instruments(audits, other, other, other, other, other, other, other), report)
    assert audits.adds == _citation_by_citation(report)
