"""Plain data of an audit: a citation in, one result per citation and a report out."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .._enum import VALUE, StrEnum
from .._frozen import slot_builder
from ..citation import Citation
from ..gate import GateMatch
from ..judge.verdict import FailReason, Usage, Verdict

if TYPE_CHECKING:  # evidence imports the document model, which imports this module
    from ..evidence import SourceEvidence

__all__ = ["AuditReport", "AuditResult", "Citation", "Outcome"]


class Outcome(StrEnum):
    """A citation's final verdict: the gate's rejection, or else the judge's answer.

    ``found`` means the quote is verbatim in its source but no judge ran (gate-only audit, or
    not sampled). ``unjudged`` means the judge should have run and failed closed (see
    ``fail_reason``). ``unverifiable`` means the citation carried neither a quote nor offsets
    (for example an OpenAI file citation) and could not be judged: no documents, no judge, or
    not sampled. ``unknown_source`` means a citation without a quote names a source that was
    never retrieved (``[7]`` of five sources): a fabricated citation, never judged (see
    :mod:`vcg_otel.evidence`); a quote-less citation whose source exists is judged on the
    passages located in it.
    """

    SUPPORTS = "supports"
    PARTIAL = "partial"
    UNRELATED = "unrelated"
    CONTRADICTS = "contradicts"
    FOUND = "found"
    NOT_FOUND = "not_found"
    MISATTRIBUTED = "misattributed"
    UNJUDGED = "unjudged"
    UNVERIFIABLE = "unverifiable"
    UNKNOWN_SOURCE = "unknown_source"

    @property
    def is_fabricated(self) -> bool:
        """Whether the quote is not in the document it cites: ``not_found`` (in no document)
        or ``misattributed`` (only in others), or the cited source was never retrieved
        (``unknown_source``). The one definition of "fabricated" behind the
        evaluation score, the Phoenix ``citation_fabrication`` annotation and the CLI's
        ``fabricated`` rate; it does not depend on ``misattributed_is_consistent``."""
        return self in _FABRICATED

    @classmethod
    def fabricated(cls) -> frozenset[Outcome]:
        """The outcomes :attr:`is_fabricated` is true of (for code that sees only counts)."""
        return _FABRICATED


_FABRICATED: frozenset[Outcome] = frozenset({Outcome.NOT_FOUND, Outcome.MISATTRIBUTED,
                                              Outcome.UNKNOWN_SOURCE})


# Frozen, so one instance serves every result without judge tokens (a Usage validates its
# fields when made: not free per citation).
_NO_USAGE = Usage()


@dataclass(frozen=True, slots=True)
class AuditResult:
    """What happened to one citation.

    Attributes:
        index: position of the citation in the answer.
        gate: the stage-1 match (``None`` for an unverifiable citation).
        verdict: the judge's verdict (``None`` when the judge did not run).
        outcome: the final verdict.
        judge_skipped: why the judge did not run (``no_judge``, ``gate_rejected``,
            ``not_sampled``, ``unverifiable``), ``None`` when it ran or failed closed.
        cached: the verdict came from the verdict cache (no model call, no tokens).
        judge_called: a model call was made for this citation (its tokens count here).
        gate_started_ns, judge_started_ns: wall-clock start times (``time.time_ns()``), so
            telemetry can be written after the fact with true timings.
        judge_input: the user prompt sent to the judge (for telemetry, if content is allowed).
        evidence: for a citation without a quote, where its source led and the passages
            located for its claim (:class:`vcg_otel.evidence.SourceEvidence`); else ``None``.
    """

    index: int
    citation: Citation
    gate: GateMatch | None
    verdict: Verdict | None
    outcome: Outcome
    judge_skipped: str | None = None
    cached: bool = False
    judge_called: bool = False
    gate_seconds: float = 0.0
    judge_seconds: float = 0.0
    gate_started_ns: int = 0
    judge_started_ns: int = 0
    judge_input: str | None = None
    evidence: SourceEvidence | None = None

    @property
    def fail_reason(self) -> FailReason | None:
        return None if self.verdict is None else self.verdict.fail_reason

    @property
    def usage(self) -> Usage:
        if self.verdict is None or not self.judge_called:
            return _NO_USAGE
        return self.verdict.usage

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready record of this citation's audit."""
        v = self.verdict
        return {
            "index": self.index,
            "citation": self.citation.to_dict(),
            "outcome": self.outcome.value,
            "gate": None if self.gate is None else self.gate.to_dict(),
            "judge": None if v is None else {
                "verdict": v.verdict.value,
                "confidence": v.confidence,
                "reasoning": v.reasoning,
                "fail_reason": None if v.fail_reason is None else v.fail_reason.value,
                "model": v.model,
                "cached": self.cached,
            },
            "judge_skipped": self.judge_skipped,
            "tokens": {"prompt": self.usage.prompt_tokens,
                       "completion": self.usage.completion_tokens,
                       "total": self.usage.total_tokens},
            "cost": self.usage.cost,
            "gate_seconds": self.gate_seconds,
            "judge_seconds": self.judge_seconds,
            "evidence": None if self.evidence is None else self.evidence.to_dict(),
        }


if TYPE_CHECKING:  # the builder's signature, for type checkers
    def audit_result(index: int, citation: Citation, gate: GateMatch | None,
                     verdict: Verdict | None, outcome: Outcome,
                     judge_skipped: str | None = None, cached: bool = False,
                     judge_called: bool = False, gate_seconds: float = 0.0,
                     judge_seconds: float = 0.0, gate_started_ns: int = 0,
                     judge_started_ns: int = 0, judge_input: str | None = None,
                     evidence: SourceEvidence | None = None) -> AuditResult:
        """``AuditResult(...)``, same arguments."""
else:
    #: ``AuditResult(...)`` (same arguments, defaults and keywords) at a third of the cost,
    #: for the auditor's loop: one result per citation of every audited call
    #: (:mod:`vcg_otel._frozen`), made by the builder itself rather than through a wrapper.
    audit_result = slot_builder(AuditResult, defaults=True)


_CONSISTENT = frozenset({Outcome.SUPPORTS, Outcome.FOUND})


def _outcome_counts(results: tuple[AuditResult, ...]) -> dict[str, int]:
    """:attr:`AuditReport.counts`: by outcome, first seen first (a plain dict: no Counter to
    make)."""
    counts: dict[str, int] = {}
    for r in results:
        label = VALUE[r.outcome]
        counts[label] = counts.get(label, 0) + 1
    return counts


@dataclass(frozen=True, slots=True)
class AuditReport:
    """All results of one audit, with totals.

    ``consistent`` holds citations that are verbatim in their source and (when a judge ran)
    supported by it; everything else, including fail-closed and unverifiable citations, is
    ``inconsistent``. ``misattributed_is_consistent`` counts real quotes cited to the wrong
    document as consistent (useful when document ids are unreliable).
    """

    results: tuple[AuditResult, ...]
    duration_seconds: float = 0.0
    prompt_version: str | None = None
    judge_model: str | None = None
    misattributed_is_consistent: bool = False
    skipped: int = 0  # citations beyond Auditor.max_citations, not audited
    counts: Mapping[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.counts:
            object.__setattr__(self, "counts", _outcome_counts(self.results))

    def is_consistent(self, r: AuditResult) -> bool:
        """Whether one result counts as consistent under this report's rule."""
        return r.outcome in _CONSISTENT or (
            self.misattributed_is_consistent and r.outcome is Outcome.MISATTRIBUTED
        )

    @property
    def consistent(self) -> list[AuditResult]:
        return [r for r in self.results if self.is_consistent(r)]

    @property
    def inconsistent(self) -> list[AuditResult]:
        return [r for r in self.results if not self.is_consistent(r)]

    @property
    def fabricated(self) -> list[AuditResult]:
        """Results whose quote is not in the cited document (:attr:`Outcome.is_fabricated`)."""
        return [r for r in self.results if r.outcome.is_fabricated]

    @property
    def usage(self) -> Usage:
        total = _NO_USAGE
        for r in self.results:
            if r.judge_called and r.verdict is not None:  # the others add nothing
                total = total + r.verdict.usage
        return total

    @property
    def judge_calls(self) -> int:
        return sum(1 for r in self.results if r.judge_called)

    def __len__(self) -> int:
        return len(self.results)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary with every result."""
        usage = self.usage
        return {
            "counts": dict(self.counts),
            "total": len(self.results),
            "skipped": self.skipped,
            "consistent": len(self.consistent),
            "inconsistent": len(self.inconsistent),
            "tokens": {"prompt": usage.prompt_tokens, "completion": usage.completion_tokens,
                       "total": usage.total_tokens},
            "cost": usage.cost,
            "judge_calls": self.judge_calls,
            "judge_model": self.judge_model,
            "prompt_version": self.prompt_version,
            "duration_seconds": self.duration_seconds,
            "results": [r.to_dict() for r in self.results],
        }


def audit_report(results: tuple[AuditResult, ...], duration_seconds: float,
                 prompt_version: str | None, judge_model: str | None,
                 misattributed_is_consistent: bool, skipped: int) -> AuditReport:
    """``AuditReport(...)`` with the same arguments at half the cost, for the auditor: one
    report per audited call (:mod:`vcg_otel._frozen`). The builder skips ``__post_init__``
    and is given the very counts it would have made."""
    return _build_report(results, duration_seconds, prompt_version, judge_model,
                         misattributed_is_consistent, skipped, _outcome_counts(results))


_build_report = slot_builder(AuditReport, post_init_unneeded=True)
