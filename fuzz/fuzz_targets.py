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
    check_gate(_text(fdp, 300), _text(fdp, 80))


def span_gate_target(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    start, end = fdp.ConsumeIntInRange(-5, 80), fdp.ConsumeIntInRange(-5, 80)
    quote = _text(fdp, 40) if fdp.ConsumeBool() else None
    chunk = ((fdp.ConsumeIntInRange(-5, 80), fdp.ConsumeIntInRange(-5, 80))
             if fdp.ConsumeBool() else None)
    check_span_gate(_text(fdp, 200), start, end, quote, chunk)


def parser_target(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    check_parser(fdp.ConsumeUnicodeNoSurrogates(2000))


def extractors_target(data: bytes) -> None:
    text = atheris.FuzzedDataProvider(data).ConsumeUnicodeNoSurrogates(2000)
    try:
        value: Any = json.loads(text)
    except ValueError:
        value = text
    check_extractors(value)


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
