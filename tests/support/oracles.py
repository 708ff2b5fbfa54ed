"""The properties hostile input must never break, shared by the hypothesis tests
(tests/properties/test_hostile_input.py) and the coverage-guided atheris fuzzer
(fuzz/fuzz_targets.py).

Each ``check_*`` raises ``AssertionError`` when the code under test contradicts its oracle,
and lets any other exception through: both are findings.
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

from vcg_otel import normalize, quote_gate, span_gate
from vcg_otel.audit import Citation
from vcg_otel.extract import extract_citations, extract_documents
from vcg_otel.gate import normalize_with_map
from vcg_otel.gate.quote import strip_edges
from vcg_otel.judge import FailReason, VerdictLabel, parse_verdict

_EDITORIAL = ("\u2026", "...", "[")


def check_normalize(text: str, a: int, b: int) -> None:
    """Normalization is idempotent, the mapped variant agrees, and any normalized range maps
    back inside the original."""
    once = normalize(text)
    assert normalize(once) == once
    nt = normalize_with_map(text)
    assert nt.text == once
    lo, hi = sorted((min(a, len(nt.text)), min(b, len(nt.text))))
    start, end = nt.original_span(lo, hi)
    assert 0 <= start <= end <= len(text)


def check_gate(doc: str, quote: str) -> None:
    """A verdict is one of three, and ``found`` means the quote really occurs (by the
    documented normalization) in the cited document; elided quotes are matched piecewise."""
    m = quote_gate(quote, "d", {"d": doc, "e": "unrelated text"})
    assert m in ("found", "not_found", "misattributed")
    if m == "found" and not any(mark in quote for mark in _EDITORIAL):
        needle = strip_edges(normalize(quote))
        assert needle and needle in normalize(doc)  # the oracle: it really occurs


def check_span_gate(doc: str, start: int, end: int, quote: str | None,
                    chunk: tuple[int, int] | None) -> None:
    """``found`` only for a range inside the document (and inside ``chunk``), never clipped."""
    m = span_gate("d", start, end, {"d": doc}, quote=quote, chunk=chunk)
    if m == "found":
        assert 0 <= start < end <= len(doc)
        assert m.start is not None and m.end is not None and start <= m.start <= m.end <= end
        if chunk is not None:
            assert chunk[0] <= start and end <= chunk[1]


def check_extractors(value: Any) -> None:
    """Any structure yields citations and string documents, never an exception."""
    for citation in extract_citations(value):
        assert isinstance(citation, Citation)
    assert all(isinstance(v, str) for v in extract_documents(value).values())


def check_parser(output: str) -> None:
    """Any model output parses to a verdict without an internal error, and ``supports`` only
    when the whole output is exactly one clean supports answer, judged by an independent
    reading: the text from the first ``{`` to the last ``}`` is one JSON object (no key twice,
    up to case) that says ``supports``, holds no other verdict, and the prose around it has no
    brace and states no other verdict."""
    v = parse_verdict(output)
    assert v.verdict in VerdictLabel
    assert v.fail_reason is not FailReason.PARSER_ERROR, v.detail
    if v.verdict is VerdictLabel.SUPPORTS:
        assert not v.fail_closed
        assert _one_clean_supports_answer(str.__str__(output)), output


def _one_clean_supports_answer(text: str) -> bool:
    first, last = text.find("{"), text.rfind("}")
    prose = text[:first] + " " + text[last + 1:]
    if first == -1 or last < first or "{" in prose or "}" in prose:
        return False
    try:
        body = json.loads(text[first:last + 1], object_pairs_hook=_unique_keys)
    except ValueError:
        return False
    if not isinstance(body, dict) or str(body.get("verdict", "")).strip().lower() != "supports":
        return False
    if any(_echoes_a_verdict(value) for key, value in body.items() if key != "verdict"):
        return False
    said = re.compile(r"\b(?:partial(?:ly)?|unrelated|unsupported|contradict(?:s|ed|ing|ion|ions"
                      r"|ory)?)\b|\bnot support(?:s|ed|ing|ive)?\b")
    return not said.search(_fold(prose))


def _fold(text: str) -> str:
    nfkc = unicodedata.normalize("NFKC", text)
    return "".join(" " if unicodedata.category(c) == "Cc" and c != "\n" else c for c in nfkc
                   if unicodedata.category(c) != "Cf").casefold()


def _echoes_a_verdict(value: Any) -> bool:
    """A verdict key in a nested object, or a JSON-quoted ``"verdict":`` inside a string."""
    if isinstance(value, dict):
        return any(_fold(key).strip() == "verdict" or _echoes_a_verdict(item)
                   for key, item in value.items())
    if isinstance(value, list):
        return any(_echoes_a_verdict(item) for item in value)
    return isinstance(value, str) and re.search(r"[\"']verdict[\"']\s*:", _fold(value)) is not None


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key.strip().casefold() for key, _ in pairs]
    if len(set(keys)) != len(keys):
        raise ValueError("a key given twice")
    return dict(pairs)
