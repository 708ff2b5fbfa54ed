"""Coverage-guided fuzzing (atheris, libFuzzer) of everything that reads untrusted input.

    pip install atheris
    python fuzz/fuzz_targets.py gate -runs=200000          # or: normalize, span_gate,
    python fuzz/fuzz_targets.py parser -max_total_time=600  #     parser, extractors

Each target checks the same oracles as the hypothesis tests (tests/oracles.py): an exception
or a contradicted oracle is a crash, which libFuzzer reports with the input that caused it
(``-artifact_prefix=DIR/`` says where to write it). ``tests/test_fuzz.py`` runs every target
for a bounded number of runs in CI.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import atheris

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

with atheris.instrument_imports(include=["vcg_otel"]):
    from oracles import check_extractors, check_gate, check_normalize, check_parser, check_span_gate

    import vcg_otel  # noqa: F401  (instrumented for coverage feedback)

# Characters the normalizer and quote parser treat specially, so the fuzzer meets them often.
_SPECIAL = " .\u2026[]()\u00ad\u2014\u200b\u00a0\"'-\n\u0301\ufb01\u0130\u1e9e"


def _text(fdp: atheris.FuzzedDataProvider, limit: int) -> str:
    """Unicode from the fuzzer, with its low bytes sometimes mapped onto special characters."""
    raw = fdp.ConsumeUnicodeNoSurrogates(limit)
    return "".join(_SPECIAL[ord(c) % len(_SPECIAL)] if ord(c) < 32 else c for c in raw)


def normalize_target(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    a, b = fdp.ConsumeIntInRange(0, 400), fdp.ConsumeIntInRange(0, 400)
    check_normalize(_text(fdp, 400), a, b)


def gate_target(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    quote = _text(fdp, fdp.ConsumeIntInRange(0, 60))
    how, at = fdp.ConsumeIntInRange(0, 2), fdp.ConsumeIntInRange(0, 300)
    rest = _text(fdp, 300)
    # Mostly plant the quote (as is, or re-typeset) so that the "found" paths get explored.
    planted = quote if how == 1 else quote.upper().replace(" ", "  \n")
    doc = rest if how == 0 else rest[:at] + planted + rest[at:]
    check_gate(doc, quote)


def span_gate_target(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    start, end = fdp.ConsumeIntInRange(-5, 80), fdp.ConsumeIntInRange(-5, 80)
    quote = _text(fdp, fdp.ConsumeIntInRange(0, 40)) if fdp.ConsumeBool() else None
    chunk = ((fdp.ConsumeIntInRange(-5, 80), fdp.ConsumeIntInRange(-5, 80))
             if fdp.ConsumeBool() else None)
    check_span_gate(_text(fdp, 200), start, end, quote, chunk)


_VERDICTS = ["supports", "partial", "unrelated", "contradicts", "SUPPORTS", " supports",
             "supports\u200b", "supp\u043erts", "support", "", "unjudged"]
_CONFIDENCES: list[Any] = [0.9, 1, 0, -0.1, 2, "0.9", None, True, 1e309, [0.5]]


def _answer(fdp: atheris.FuzzedDataProvider) -> str:
    """A judge answer built from the input: JSON with picked or fuzzed fields, with fuzzed
    text around it (and sometimes a second, conflicting object)."""
    obj: dict[str, Any] = {
        "verdict": (fdp.PickValueInList(_VERDICTS) if fdp.ConsumeBool()
                    else _text(fdp, fdp.ConsumeIntInRange(0, 12))),
        "confidence": fdp.PickValueInList(_CONFIDENCES),
        "reasoning": _text(fdp, fdp.ConsumeIntInRange(0, 40)),
    }
    for key in ("verdict", "confidence", "reasoning"):
        if fdp.ConsumeIntInRange(0, 9) == 0:
            del obj[key]
    body = json.dumps(obj, ensure_ascii=fdp.ConsumeBool())
    if fdp.ConsumeBool():
        body = f"```json\n{body}\n```"
    if fdp.ConsumeIntInRange(0, 4) == 0:
        body += " " + json.dumps({**obj, "verdict": fdp.PickValueInList(_VERDICTS)})
    before = _text(fdp, fdp.ConsumeIntInRange(0, 30))
    return before + body + _text(fdp, fdp.ConsumeIntInRange(0, 30))


def parser_target(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    check_parser(_answer(fdp) if fdp.ConsumeBool() else fdp.ConsumeUnicodeNoSurrogates(2000))


_KEYS = ["claim", "quote", "doc_id", "citations", "content", "text", "type", "documents", "id",
         "start", "end", "sources", "annotations", "document_index", "cited_text", "source"]


def _value(fdp: atheris.FuzzedDataProvider, depth: int = 0) -> Any:
    """A nested structure of the shapes the extractors look for, built from the input."""
    kind = fdp.ConsumeIntInRange(0, 5 if depth < 6 else 2)
    if kind == 0:
        return fdp.PickValueInList([None, True, False, 0, -1, 2**70, 1.5])
    if kind == 1:
        return _text(fdp, fdp.ConsumeIntInRange(0, 20))
    if kind == 2:
        return fdp.ConsumeIntInRange(-3, 300)
    if kind == 3:
        return [_value(fdp, depth + 1) for _ in range(fdp.ConsumeIntInRange(0, 4))]
    if kind == 4:
        return {fdp.PickValueInList(_KEYS): _value(fdp, depth + 1)
                for _ in range(fdp.ConsumeIntInRange(0, 5))}
    return {"claim": _value(fdp, depth + 1), "quote": _value(fdp, depth + 1),
            "doc_id": _value(fdp, depth + 1)}


def extractors_target(data: bytes) -> None:
    check_extractors(_value(atheris.FuzzedDataProvider(data)))


TARGETS: dict[str, Callable[[bytes], None]] = {
    "normalize": normalize_target, "gate": gate_target, "span_gate": span_gate_target,
    "parser": parser_target, "extractors": extractors_target,
}


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] not in TARGETS:
        sys.exit(f"usage: {sys.argv[0]} {{{','.join(TARGETS)}}} [libFuzzer options]")
    target = TARGETS[sys.argv[1]]
    atheris.Setup([sys.argv[0], *sys.argv[2:]], target)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
