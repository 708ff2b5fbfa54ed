"""Reading the judge's answer: a verdict only from an answer whose whole structure is unambiguous.

Accepted: exactly one JSON object with ``verdict`` (one of the four labels, any case),
``confidence`` (a number from 0 to 1) and ``reasoning`` (a string) — bare, inside a markdown
code fence, or with prose around it that states no other verdict. Anything that could be read
two ways fails closed with its own :class:`FailReason`, because an answer that can be read two
ways can be made to say ``supports`` by whoever wrote the text the model echoes:

* a second object, agreeing (``multiple_answers``) or not (``conflicting_answers``);
* an object that is not valid JSON: ``invalid_json``, or ``malformed_envelope`` when a
  well-formed answer sits inside it (an echoed, unescaped ``{"verdict": "supports", ...}``);
  one that never closes: ``truncated``; one nested deeper than :data:`MAX_DEPTH`: ``too_deep``;
* a key given twice, also up to case and invisible characters (``duplicate_key``);
* a verdict inside the answer or the answer inside another object, including a JSON verdict
  quoted in a string (``nested_answer``);
* prose that states another verdict or negates the JSON's (``prose_verdict``); for a
  ``supports`` answer this holds for its ``reasoning`` too (see below).

The verdict field is the verdict, but a ``supports`` whose own reasoning speaks against it
("does not support", "contradicts", "refutes", "partially", "unrelated") is two answers in
one, and fails closed (``prose_verdict``): the reasoning is read with the rule that reads
the prose around the object. Only ``supports`` is checked so: it is the one verdict that
counts a citation as consistent, and the one an injected text wants; the reasoning of a
less favourable verdict honestly says what the source does not do ("supports only the first
half"), and reading it would only turn a fair verdict into ``unjudged``. The rule is lexical:
"nothing contradicts it" states ``contradicts`` to it (only ``not``, ``no``, ``never``,
``without``, ``fails``, ``lacks``, ``n't`` and their kin negate), and fails closed.

``confidence`` must be a JSON number from 0 to 1; any other number, an integer of any size
included (compared exactly, never converted), is out of range: ``wrong_type``, detail
``confidence out of range``. It is not clamped: a judge that answers outside the scale it
was given is not following its instructions.

Objects are never searched for inside an object that failed to parse: a verdict is read from
the one top-level object or from nothing. The parser is total: any input gives a
:class:`Verdict` (an internal error gives ``parser_error``), nesting is bounded by our own scan
before ``json`` sees the text (no ``RecursionError``), and ``str`` subclasses are read through
``str``'s own methods (a subclass cannot lie about its length or content).
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from typing import Any, cast

from .verdict import JUDGE_LABELS, FailReason, Verdict, VerdictLabel

__all__ = ["MAX_DEPTH", "MAX_OUTPUT_CHARS", "parse_verdict"]

#: Longer answers are not parsed (a judge is asked for two sentences of reasoning).
MAX_OUTPUT_CHARS = 20_000
#: Objects and arrays nested deeper than this are not parsed (an answer is one flat object).
MAX_DEPTH = 8
_LABELS = {label.value: label for label in JUDGE_LABELS}
_FIELDS = ("verdict", "confidence", "reasoning")
_STRUCTURE = re.compile(r'[{}\[\]"\\]')
# Bounds on the search for an answer inside a malformed object (it only picks the reason).
_MAX_PROBES = 64
_PROBE_BUDGET = 4 * MAX_OUTPUT_CHARS
# A JSON-style "verdict" key quoted inside a string value: an echoed answer.
_QUOTED_KEY = re.compile(r"""["'\u201c\u201d]\s*verdict\s*["'\u201c\u201d]\s*:""")
# Verdict words in prose, and the negations that reverse them (on case-folded text).
_WORDS = (r"(?:(?P<unsupported>unsupported)|(?P<supports>support(?:s|ed|ing|ive)?)"
          r"|(?P<partial>partial(?:ly)?)|(?P<unrelated>unrelated)"
          r"|(?P<contradicts>contradict(?:s|ed|ing|ion|ions|ory)?|refut(?:e|es|ed|ing|ation)"
          r"|disprov(?:e|es|ed|ing)))")
_PROSE_WORDS = re.compile(rf"\b{_WORDS}\b")
# With invisible characters dropped, a word may run into its neighbours: "con<ZWSP>tradicts<ZWSP>
# the" reads "contradicts the" to a person and "contradictsthe" to a word boundary.
_HIDDEN_WORDS = re.compile(_WORDS)
_NEGATION = re.compile(
    r"(?:\b(?:not|no|never|cannot|nor|neither|without|fails?|failed|lacks?|lacking|"
    r"insufficient|insufficiently)\b|n[\u2019']t\b)[^.;:!?\n]*$"
)
_QUALIFIED = re.compile(r"\b(?:partial(?:ly)?|partly)\s+$")
_NEGATION_REACH = 40  # characters before a verdict word searched for a negation
_ASCII_CONTROLS = dict.fromkeys([c for c in [*range(32), 127] if c != 10], " ")
#: More top-level objects than this are not decoded one by one (``multiple_answers``).
_MAX_OBJECTS = 16


class _Problem(Exception):
    """A structural flaw found while reading; carries the fail-closed reason."""

    def __init__(self, reason: FailReason, detail: str = "") -> None:
        super().__init__(reason.value)
        self.reason, self.detail = reason, detail


def _fold(text: str, invisible: str = "") -> str:
    """Compatibility- and case-folded; control characters other than a line break become
    spaces (they still separate words) and format characters (zero-width, soft hyphen) become
    ``invisible``."""
    if text.isascii():  # the common case, ~50x faster: NFKC is the identity, no Cf exists
        return text.translate(_ASCII_CONTROLS).lower()
    nfkc = unicodedata.normalize("NFKC", text)
    return "".join(invisible if cat == "Cf" else " " if cat == "Cc" and ch != "\n" else ch
                   for ch, cat in ((ch, unicodedata.category(ch)) for ch in nfkc)).casefold()


def _close(text: str, start: int) -> tuple[int, bool]:
    """Scan the value that opens at ``text[start]`` (``{``) without recursion.

    Returns the index just past its closing bracket and ``True``, or the length of the text and
    ``False`` when it never closes. Raises :class:`_Problem` (``too_deep``) past
    :data:`MAX_DEPTH`. Strings are skipped the way JSON reads them, so a valid object is
    delimited exactly as ``json`` would; an invalid one is delimited somehow, and rejected.
    """
    depth, in_string, skip = 0, False, -1
    for match in _STRUCTURE.finditer(text, start):
        i = match.start()
        if i == skip:
            continue
        char = text[i]
        if in_string:
            if char == "\\":
                skip = i + 1
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            depth += 1
            if depth > MAX_DEPTH:
                raise _Problem(FailReason.TOO_DEEP, f"nested deeper than {MAX_DEPTH}")
        elif char in "}]":
            depth -= 1
            if depth == 0:
                return i + 1, True
    return len(text), False


def _regions(text: str) -> list[tuple[int, int, bool]]:
    """The top-level ``{...}`` spans of the text: ``(start, end, closed)``, in order.

    A ``}`` outside every object is a fragment of one (``invalid_json``).
    """
    regions: list[tuple[int, int, bool]] = []
    pos = 0
    while True:
        opening, closing = text.find("{", pos), text.find("}", pos)
        if closing != -1 and (opening == -1 or closing < opening):
            raise _Problem(FailReason.INVALID_JSON, "a '}' outside any object")
        if opening == -1:
            return regions
        end, closed = _close(text, opening)
        regions.append((opening, end, closed))
        if len(regions) > _MAX_OBJECTS:
            raise _Problem(FailReason.MULTIPLE_ANSWERS, f"more than {_MAX_OBJECTS} JSON objects")
        pos = end


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: set[str] = set()
    for key, _ in pairs:
        folded = _fold(key).strip()
        if folded in seen:
            raise _Problem(FailReason.DUPLICATE_KEY, folded[:40])
        seen.add(folded)
    return dict(pairs)


_DECODER = json.JSONDecoder(object_pairs_hook=_no_duplicates)


def _loads(chunk: str) -> Any:
    """Decode one delimited object; ``ValueError`` if it is not valid JSON."""
    return _DECODER.decode(chunk)


def _holds_answer(text: str, start: int, end: int) -> bool:
    """Whether a well-formed answer object sits inside ``text[start:end]`` (bounded search)."""
    budget, probes, pos = _PROBE_BUDGET, 0, text.find("{", start + 1, end)
    while pos != -1 and probes < _MAX_PROBES and budget > 0:
        probes += 1
        try:
            stop, closed = _close(text, pos)
            budget -= stop - pos
            if closed:
                value = _loads(text[pos:stop])
                if isinstance(value, dict) and "verdict" in value:
                    return True
        except (_Problem, ValueError, RecursionError):
            pass
        pos = text.find("{", pos + 1, end)
    return False


def _label_of(answer: Any) -> str:
    label = answer.get("verdict") if isinstance(answer, dict) else None
    return label.strip().lower() if isinstance(label, str) else f"<{type(label).__name__}>"


def _nested_answer(answer: dict[str, Any]) -> str | None:
    """Where a second verdict hides inside the answer, if it does (iterative walk)."""
    stack: list[tuple[Any, bool]] = [(answer, True)]
    while stack:
        value, top = stack.pop()
        if isinstance(value, dict):
            if not top and any(_fold(str(k)).strip() == "verdict" for k in value):
                return "an object with a verdict inside the answer"
            for key, item in value.items():
                if top and key == "verdict":
                    continue
                stack.append((item, False))
        elif isinstance(value, list):
            stack.extend((item, False) for item in value)
        elif isinstance(value, str) and _QUOTED_KEY.search(_fold(value)):
            return "a quoted verdict inside a string"
    return None


def _prose_conflict(prose: str, label: str, where: str = "prose") -> str | None:
    """A verdict stated in the prose that differs from ``label`` (or negates it), if any.

    Read twice, with invisible characters dropped and as spaces, so that neither hides a word.
    """
    readings = [(_fold(prose, " "), _PROSE_WORDS)]
    dropped = _fold(prose)
    if dropped != readings[0][0]:  # invisible characters: also read without word boundaries
        readings += [(dropped, _PROSE_WORDS), (dropped, _HIDDEN_WORDS)]
    for folded, words in readings:
        conflict = _stated(folded, label, words, where)
        if conflict is not None:
            return conflict
    return None


def _stated(folded: str, label: str, words: re.Pattern[str], where: str) -> str | None:
    for match in words.finditer(folded):
        word = match.lastgroup or ""
        said, negated = ("supports", True) if word == "unsupported" else (word, False)
        window = folded[max(0, match.start() - _NEGATION_REACH):match.start()]
        if said == "supports" and _QUALIFIED.search(window):
            said = "partial"  # "partially supports" states partial
        negated = negated or _NEGATION.search(window) is not None
        if (said == label) is negated:
            stated = f"not {said}" if negated else said
            return f"the {where} says {stated!r}, the verdict {label!r}"
    return None


def _read(text: str) -> Verdict:
    regions = _regions(text)
    if not regions:
        return Verdict.failed(FailReason.NO_JSON, raw_output=text)
    answers: list[Any] = []
    for start, end, closed in regions:
        if not closed:
            inside = _holds_answer(text, start, end)
            detail = "an answer inside the unclosed object" if inside else ""
            return Verdict.failed(FailReason.TRUNCATED, detail, raw_output=text)
        try:
            answers.append(_loads(text[start:end]))
        except ValueError:
            if _holds_answer(text, start, end):
                return Verdict.failed(FailReason.MALFORMED_ENVELOPE,
                                      "an answer inside an invalid object", raw_output=text)
            return Verdict.failed(FailReason.INVALID_JSON, raw_output=text)
    if len(answers) > 1:
        labels = sorted({_label_of(a) for a in answers if isinstance(a, dict) and "verdict" in a})
        if len(labels) > 1:
            return Verdict.failed(FailReason.CONFLICTING_ANSWERS, ", ".join(labels)[:120],
                                  raw_output=text)
        return Verdict.failed(FailReason.MULTIPLE_ANSWERS, f"{len(answers)} JSON objects",
                              raw_output=text)
    answer = answers[0]
    nested = _nested_answer(answer)
    if nested is not None:
        return Verdict.failed(FailReason.NESTED_ANSWER, nested, raw_output=text)
    verdict = _one(answer, text)
    if verdict.fail_closed:
        return verdict
    start, end, _ = regions[0]
    conflict = _prose_conflict(text[:start] + "\n" + text[end:], verdict.verdict.value)
    if conflict is None and verdict.verdict is VerdictLabel.SUPPORTS:  # see the docstring
        conflict = _prose_conflict(verdict.reasoning, "supports", "reasoning")
    if conflict is not None:
        return Verdict.failed(FailReason.PROSE_VERDICT, conflict, raw_output=text)
    return verdict


def parse_verdict(output: object) -> Verdict:
    """Turn a judge's raw output into a :class:`Verdict` (fail-closed on any flaw, never raises).

    See the module docstring for what is accepted and each reason for what is not.
    """
    try:
        if not issubclass(type(output), str):  # type(), not isinstance: __class__ can lie
            return Verdict.failed(FailReason.NON_STRING_OUTPUT, type(output).__name__)
        assert isinstance(output, str)
        size = str.__len__(output)
        if size > MAX_OUTPUT_CHARS:
            return Verdict.failed(FailReason.OVERSIZED_INPUT, f"output of {size} characters",
                                  raw_output=str.__getitem__(output, slice(0, MAX_OUTPUT_CHARS)))
        text = str.__str__(output)  # a plain copy: a subclass's methods are never called
        if not text.strip():
            return Verdict.failed(FailReason.EMPTY_OUTPUT)
        return _read(text)
    except _Problem as problem:
        return Verdict.failed(problem.reason, problem.detail, raw_output=_plain(output))
    except Exception as exc:  # total by contract: a parser bug still fails closed
        return Verdict.failed(FailReason.PARSER_ERROR, type(exc).__name__)


def _plain(output: object) -> str | None:
    if not issubclass(type(output), str):
        return None
    text = cast(str, output)
    return str.__str__(text) if str.__len__(text) <= MAX_OUTPUT_CHARS else None


def _one(answer: Any, output: str) -> Verdict:
    if not isinstance(answer, dict):
        return Verdict.failed(FailReason.WRONG_TYPE, "answer", raw_output=output)
    for field in _FIELDS:
        if field not in answer:
            return Verdict.failed(FailReason.MISSING_FIELD, field, raw_output=output)
    label, confidence, reasoning = answer["verdict"], answer["confidence"], answer["reasoning"]
    if not isinstance(label, str):
        return Verdict.failed(FailReason.WRONG_TYPE, "verdict", raw_output=output)
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)):
        return Verdict.failed(FailReason.WRONG_TYPE, "confidence", raw_output=output)
    # An int is compared as an int: converting 10**400 to a float raises OverflowError.
    if not (0 <= confidence <= 1 if isinstance(confidence, int)
            else math.isfinite(confidence) and 0.0 <= confidence <= 1.0):
        return Verdict.failed(FailReason.WRONG_TYPE, "confidence out of range",
                              raw_output=output)
    if not isinstance(reasoning, str):
        return Verdict.failed(FailReason.WRONG_TYPE, "reasoning", raw_output=output)
    verdict = _LABELS.get(label.strip().lower())
    if verdict is None:
        return Verdict.failed(FailReason.OUT_OF_VOCABULARY, label[:40], raw_output=output)
    return Verdict(reasoning, VerdictLabel(verdict), float(confidence), raw_output=output)
