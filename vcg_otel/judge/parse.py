"""Reading the judge's answer, strictly, failing closed with a distinct reason for each flaw.

Accepted: one JSON object with ``verdict`` (one of the four labels, any case), ``confidence``
(a number from 0 to 1) and ``reasoning`` (a string) — bare, inside a markdown code fence, or
after some prose. Several objects are accepted only if they all give the same verdict.
Everything else fails closed: the parser never guesses, and never turns a flaw into support.
"""

from __future__ import annotations

import json
import math
from typing import Any

from .verdict import JUDGE_LABELS, FailReason, Verdict, VerdictLabel

__all__ = ["MAX_OUTPUT_CHARS", "parse_verdict"]

#: Longer answers are not parsed (a judge is asked for two sentences of reasoning).
MAX_OUTPUT_CHARS = 20_000
_LABELS = {label.value: label for label in JUDGE_LABELS}
_DECODER = json.JSONDecoder()


def _objects(text: str) -> tuple[list[Any], bool]:
    """Every JSON value that starts at a ``{`` in ``text``, not nested in an earlier one.

    Returns the decoded objects and whether any ``{`` was seen at all.
    """
    found: list[Any] = []
    pos = text.find("{")
    saw_brace = pos != -1
    while pos != -1:
        try:
            value, end = _DECODER.raw_decode(text, pos)
        except ValueError:
            pos = text.find("{", pos + 1)
            continue
        found.append(value)
        pos = text.find("{", end)
    return found, saw_brace


def parse_verdict(output: object) -> Verdict:
    """Turn a judge's raw output into a :class:`Verdict` (fail-closed on any flaw)."""
    if not isinstance(output, str):
        return Verdict.failed(FailReason.NON_STRING_OUTPUT, type(output).__name__)
    if not output.strip():
        return Verdict.failed(FailReason.EMPTY_OUTPUT)
    if len(output) > MAX_OUTPUT_CHARS:
        return Verdict.failed(FailReason.OVERSIZED_INPUT, f"output of {len(output)} characters",
                              raw_output=output[:MAX_OUTPUT_CHARS])
    objects, saw_brace = _objects(output)
    answers = [o for o in objects if isinstance(o, dict) and "verdict" in o]
    if not answers:
        if objects and all(isinstance(o, dict) for o in objects):
            return Verdict.failed(FailReason.MISSING_FIELD, "verdict", raw_output=output)
        reason = FailReason.INVALID_JSON if saw_brace else FailReason.NO_JSON
        return Verdict.failed(reason, raw_output=output)
    parsed: list[Verdict] = []
    for answer in answers:
        one = _one(answer, output)
        if one.fail_closed:
            return one
        parsed.append(one)
    if len({v.verdict for v in parsed}) > 1:
        return Verdict.failed(FailReason.CONFLICTING_ANSWERS,
                              ", ".join(sorted({v.verdict.value for v in parsed})),
                              raw_output=output)
    return parsed[0]


def _one(answer: dict[str, Any], output: str) -> Verdict:
    for field in ("verdict", "confidence", "reasoning"):
        if field not in answer:
            return Verdict.failed(FailReason.MISSING_FIELD, field, raw_output=output)
    label, confidence, reasoning = answer["verdict"], answer["confidence"], answer["reasoning"]
    if not isinstance(label, str):
        return Verdict.failed(FailReason.WRONG_TYPE, "verdict", raw_output=output)
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not (
        math.isfinite(confidence) and 0.0 <= confidence <= 1.0
    ):
        return Verdict.failed(FailReason.WRONG_TYPE, "confidence", raw_output=output)
    if not isinstance(reasoning, str):
        return Verdict.failed(FailReason.WRONG_TYPE, "reasoning", raw_output=output)
    verdict = _LABELS.get(label.strip().lower())
    if verdict is None:
        return Verdict.failed(FailReason.OUT_OF_VOCABULARY, label[:40], raw_output=output)
    return Verdict(reasoning, VerdictLabel(verdict), float(confidence), raw_output=output)
