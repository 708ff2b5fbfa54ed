"""Stage-2 outcomes: what the judge may answer, and every way it can fail closed."""

from __future__ import annotations

import math
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
    # The answer is not one unambiguous statement (see vcg_otel.judge.parse):
    MULTIPLE_ANSWERS = "multiple_answers"  # more than one JSON object, even if they agree
    MALFORMED_ENVELOPE = "malformed_envelope"  # an invalid object around a well-formed answer
    TRUNCATED = "truncated"  # an object opened and never closed
    DUPLICATE_KEY = "duplicate_key"  # a key twice (also up to case and invisible characters)
    NESTED_ANSWER = "nested_answer"  # a verdict inside the answer, or the answer inside another
    PROSE_VERDICT = "prose_verdict"  # the prose (or a supports answer's reasoning) disagrees
    TOO_DEEP = "too_deep"  # nested deeper than the parser reads
    INVALID_RESPONSE = "invalid_response"  # a JudgeResponse whose usage or model is not valid
    PARSER_ERROR = "parser_error"  # the parser itself failed (a bug: it is still fail-closed)
    REENTRANCY_LIMIT = "reentrancy_limit"  # a judge calling back into audits, too deeply


@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens (and cost, when the model's price is known) of one or more judge calls."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None

    def __post_init__(self) -> None:
        # Token counts feed the max_tokens budget and the exported metrics: a negative or
        # non-integer count would open the budget or record nonsense, so it is refused here,
        # inside the judge (which then fails closed with ``raised``). Subclasses of int and
        # float are stored as plain values: their arithmetic could lie.
        for name in ("prompt_tokens", "completion_tokens"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"Usage.{name} must be an int, not {type(value).__name__}")
            if value < 0:
                raise ValueError(f"Usage.{name} must be >= 0")
            object.__setattr__(self, name, int.__int__(value))
        cost = self.cost
        if cost is not None:
            if isinstance(cost, bool) or not isinstance(cost, (int, float)):
                raise TypeError(f"Usage.cost must be a number or None, not {type(cost).__name__}")
            plain = float(int.__int__(cost)) if isinstance(cost, int) else float.__float__(cost)
            if not (math.isfinite(plain) and plain >= 0.0):
                raise ValueError("Usage.cost must be finite and >= 0")
            object.__setattr__(self, "cost", plain)

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

    ``model`` names the model that answered (recorded as ``llm.model_name``). ``usage=None``
    means unknown and counts as zero; anything else that is not a :class:`Usage` raises
    ``TypeError`` (in the judge, which then fails closed with ``raised``).
    """

    text: str
    usage: Usage = Usage()
    model: str | None = None

    def __post_init__(self) -> None:
        if self.usage is None:
            object.__setattr__(self, "usage", Usage())
        elif not isinstance(self.usage, Usage):
            raise TypeError(f"JudgeResponse.usage must be a Usage, not "
                            f"{type(self.usage).__name__}")
        if self.model is not None:
            if not isinstance(self.model, str):
                raise TypeError(f"JudgeResponse.model must be a str or None, not "
                                f"{type(self.model).__name__}")
            object.__setattr__(self, "model", str.__str__(self.model) or None)


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
