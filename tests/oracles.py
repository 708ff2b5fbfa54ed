"""The properties hostile input must never break, shared by the hypothesis tests
(tests/test_hostile_input.py) and the coverage-guided atheris fuzzer (fuzz/fuzz_targets.py).

Each ``check_*`` raises ``AssertionError`` when the code under test contradicts its oracle,
and lets any other exception through: both are findings.
"""

from __future__ import annotations

import json
from typing import Any

from vcg_otel import normalize, normalize_with_map, quote_gate, span_gate
from vcg_otel.audit import Citation
from vcg_otel.extract import extract_citations, extract_documents
from vcg_otel.gate.quote import strip_edges
from vcg_otel.judge import VerdictLabel, parse_verdict

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
    """Any model output parses to a verdict, and ``supports`` only when every JSON object in
    the output that carries a verdict says ``supports`` (an independent scan of the text)."""
    v = parse_verdict(output)
    assert v.verdict in VerdictLabel
    if v.verdict is VerdictLabel.SUPPORTS:
        assert not v.fail_closed
        objects = [json.loads(chunk) for chunk in _json_chunks(output)]
        verdicts = {str(o["verdict"]).strip().lower() for o in objects
                    if isinstance(o, dict) and "verdict" in o}
        assert verdicts == {"supports"}


def _json_chunks(text: str) -> list[str]:
    decoder, chunks, pos = json.JSONDecoder(), [], text.find("{")
    while pos != -1:
        try:
            _, end = decoder.raw_decode(text, pos)
        except ValueError:
            pos = text.find("{", pos + 1)
            continue
        chunks.append(text[pos:end])
        pos = text.find("{", end)
    return chunks
