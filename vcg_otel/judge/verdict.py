"""Stage-2 outcomes: what the judge may answer, and every way it can fail closed."""

from __future__ import annotations

from dataclasses import dataclass

from .._enum import StrEnum

__all__ = ["FailReason", "JudgeResponse", "Usage", "Verdict", "VerdictLabel"]


class VerdictLabel(StrEnum):
    """A judge's answer. ``supports`` must be earned; the rest are less favourable."""

    SUPPORTS = "supports"
    PARTIAL = "partial"
    UNRELATED = "unrelated"
    CONTRADICTS = "contradicts"
    UNJUDGED = "unjudged"  # the judge failed closed: see Verdict.fail_reason


JUDGE_LABELS = frozenset(
    {VerdictLabel.SUPPORTS, VerdictLabel.PARTIAL, VerdictLabel.UNRELATED, VerdictLabel.CONTRADICTS}
)


class FailReason(StrEnum):
    """Why the judge failed closed. Each is distinct and recorded; none becomes ``supports``."""

    RAISED = "raised"
    TIMEOUT = "timeout"
    EMPTY_OUTPUT = "empty_output"
    NON_STRING_OUTPUT = "non_string_output"
    NO_JSON = "no_json"
    INVALID_JSON = "invalid_json"
    MISSING_FIELD = "missing_field"
    WRONG_TYPE = "wrong_type"
    OUT_OF_VOCABULARY = "out_of_vocabulary"
    CONFLICTING_ANSWERS = "conflicting_answers"
    OVERSIZED_INPUT = "oversized_input"
    BUDGET_EXHAUSTED = "budget_exhausted"


@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens (and cost, when the model's price is known) of one or more judge calls."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        cost = None if self.cost is None and other.cost is None else (
            (self.cost or 0.0) + (other.cost or 0.0))
        return Usage(self.prompt_tokens + other.prompt_tokens,
                     self.completion_tokens + other.completion_tokens, cost)


@dataclass(frozen=True, slots=True)
class JudgeResponse:
    """What a judge callable may return instead of a plain string: the text plus its usage.

    ``model`` names the model that answered (recorded as ``llm.model_name``).
    """

    text: str
    usage: Usage = Usage()
    model: str | None = None


@dataclass(frozen=True, slots=True)
class Verdict:
    """The judge's decision on one claim (seed-compatible: ``reasoning, verdict, confidence``).

    When the judge failed closed ``verdict`` is ``unjudged``, ``confidence`` is 0 and
    ``fail_reason`` says why; ``detail`` carries a short, content-free explanation.
    """

    reasoning: str
    verdict: VerdictLabel
    confidence: float
    fail_reason: FailReason | None = None
    detail: str = ""
    usage: Usage = Usage()
    model: str | None = None
    raw_output: str | None = None

    @property
    def fail_closed(self) -> bool:
        return self.fail_reason is not None

    @classmethod
    def failed(cls, reason: FailReason, detail: str = "", *, usage: Usage = Usage(),
               model: str | None = None, raw_output: str | None = None) -> Verdict:
        """A fail-closed verdict: never support, always with its reason."""
        return cls("", VerdictLabel.UNJUDGED, 0.0, reason, detail, usage, model, raw_output)
