"""Coverage-guided fuzzing (atheris, libFuzzer) of everything that reads untrusted input.

Targets: ``normalize``, ``gate``, ``span_gate``, ``parser``, ``extractors``. Each checks the
same oracles as the hypothesis tests (tests/support/oracles.py): an exception or a
contradicted oracle is a crash.

CI (``tests/properties/test_fuzz_corpus.py``) is deterministic: it replays every input checked
in under
``fuzz/corpus/<target>/`` (in process, and once through this script with ``-runs=0``) and a
fixed, derandomized hypothesis sample of byte strings through the same targets. It does not
run libFuzzer's mutation loop, whose path depends on coverage feedback and so differs from
run to run even with a fixed ``-seed``.

Open-ended fuzzing is this separate command (``pip install atheris``); it adds the inputs that
reach new coverage to the corpus directory and writes a crash to ``-artifact_prefix``::

    python fuzz/fuzz_targets.py gate -max_total_time=600 -artifact_prefix=/tmp/ fuzz/corpus/gate

A crash is a finding: fix it, then add the input to the corpus so that CI replays it from
then on: copy the crash file into ``fuzz/corpus/<target>/``, or (better, readable) add it to
``fuzz/seeds.py`` as a ``regression-*`` seed built from the values it decodes to, and run
``python fuzz/seeds.py``. Replay one input: ``python fuzz/fuzz_targets.py gate FILE``.
(libFuzzer's ``-fork`` and ``-merge`` modes did not work under atheris 3.0 when tried: their
child processes fail. To keep a grown corpus small, commit only what is new and useful.)
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import atheris

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

if __name__ == "__main__":  # libFuzzer needs coverage feedback: instrument before importing
    with atheris.instrument_imports(include=["vcg_otel"]):
        import support.oracles  # noqa: F401

        import vcg_otel  # noqa: F401

from support.oracles import (
    check_extractors,
    check_gate,
    check_normalize,
    check_parser,
    check_span_gate,
)

# Characters the normalizer and quote parser treat specially, so the fuzzer meets them often.
SPECIAL = " .\u2026[]()\u00ad\u2014\u200b\u00a0\"'-\n\u0301\ufb01\u0130\u1e9e"

Provider = atheris.FuzzedDataProvider

# Each target is a decoder (bytes -> the oracle's arguments) and an oracle. Keeping the two
# apart lets fuzz/seeds.py build inputs that decode to chosen values, and lets the tests
# replay the corpus without libFuzzer.


def _text(fdp: Provider, limit: int) -> str:
    """Unicode from the fuzzer, with its low code points mapped onto special characters."""
    raw = fdp.ConsumeUnicodeNoSurrogates(limit)
    return "".join(SPECIAL[ord(c) % len(SPECIAL)] if ord(c) < 32 else c for c in raw)


def normalize_args(fdp: Provider) -> tuple[Any, ...]:
    a, b = fdp.ConsumeIntInRange(0, 400), fdp.ConsumeIntInRange(0, 400)
    return _text(fdp, 400), a, b


def gate_args(fdp: Provider) -> tuple[Any, ...]:
    quote = _text(fdp, fdp.ConsumeIntInRange(0, 60))
    how, at = fdp.ConsumeIntInRange(0, 2), fdp.ConsumeIntInRange(0, 300)
    rest = _text(fdp, 300)
    # Mostly plant the quote (as is, or re-typeset) so that the "found" paths get explored.
    planted = quote if how == 1 else quote.upper().replace(" ", "  \n")
    doc = rest if how == 0 else rest[:at] + planted + rest[at:]
    return doc, quote


def span_gate_args(fdp: Provider) -> tuple[Any, ...]:
    start, end = fdp.ConsumeIntInRange(-5, 80), fdp.ConsumeIntInRange(-5, 80)
    quote = _text(fdp, fdp.ConsumeIntInRange(0, 40)) if fdp.ConsumeBool() else None
    chunk = ((fdp.ConsumeIntInRange(-5, 80), fdp.ConsumeIntInRange(-5, 80))
             if fdp.ConsumeBool() else None)
    return _text(fdp, 200), start, end, quote, chunk


VERDICTS = ["supports", "partial", "unrelated", "contradicts", "SUPPORTS", " supports",
            "supports\u200b", "supp\u043erts", "support", "", "unjudged"]
CONFIDENCES: list[Any] = [0.9, 1, 0, -0.1, 2, "0.9", None, True, 1e309, [0.5]]
PARSER_RAW_LIMIT = 8_000  # enough for nesting past Python's recursion limit


def _answer(fdp: Provider) -> str:
    """A judge answer built from the input: JSON with picked or fuzzed fields, with fuzzed
    text around it (and sometimes a second, conflicting object)."""
    obj: dict[str, Any] = {
        "verdict": (fdp.PickValueInList(VERDICTS) if fdp.ConsumeBool()
                    else _text(fdp, fdp.ConsumeIntInRange(0, 12))),
        "confidence": fdp.PickValueInList(CONFIDENCES),
        "reasoning": _text(fdp, fdp.ConsumeIntInRange(0, 40)),
    }
    for key in ("verdict", "confidence", "reasoning"):
        if fdp.ConsumeIntInRange(0, 9) == 0:
            del obj[key]
    body = json.dumps(obj, ensure_ascii=fdp.ConsumeBool())
    if fdp.ConsumeBool():
        body = f"```json\n{body}\n```"
    if fdp.ConsumeIntInRange(0, 4) == 0:
        body += " " + json.dumps({**obj, "verdict": fdp.PickValueInList(VERDICTS)})
    before = _text(fdp, fdp.ConsumeIntInRange(0, 30))
    return before + body + _text(fdp, fdp.ConsumeIntInRange(0, 30))


def parser_args(fdp: Provider) -> tuple[Any, ...]:
    built = fdp.ConsumeBool()
    return (_answer(fdp) if built else fdp.ConsumeUnicodeNoSurrogates(PARSER_RAW_LIMIT),)


KEYS = ["claim", "quote", "doc_id", "citations", "content", "text", "type", "documents", "id",
        "start", "end", "sources", "annotations", "document_index", "cited_text", "source"]
SCALARS: list[Any] = [None, True, False, 0, -1, 2**70, 1.5]


def _value(fdp: Provider, depth: int = 0) -> Any:
    """A nested structure of the shapes the extractors look for, built from the input."""
    kind = fdp.ConsumeIntInRange(0, 5 if depth < 6 else 2)
    if kind == 0:
        return fdp.PickValueInList(SCALARS)
    if kind == 1:
        return _text(fdp, fdp.ConsumeIntInRange(0, 20))
    if kind == 2:
        return fdp.ConsumeIntInRange(-3, 300)
    if kind == 3:
        return [_value(fdp, depth + 1) for _ in range(fdp.ConsumeIntInRange(0, 4))]
    if kind == 4:
        return {fdp.PickValueInList(KEYS): _value(fdp, depth + 1)
                for _ in range(fdp.ConsumeIntInRange(0, 5))}
    return {"claim": _value(fdp, depth + 1), "quote": _value(fdp, depth + 1),
            "doc_id": _value(fdp, depth + 1)}


def extractors_args(fdp: Provider) -> tuple[Any, ...]:
    return (_value(fdp),)


Decoder = Callable[[Provider], tuple[Any, ...]]
DECODERS: dict[str, tuple[Decoder, Callable[..., None]]] = {
    "normalize": (normalize_args, check_normalize),
    "gate": (gate_args, check_gate),
    "span_gate": (span_gate_args, check_span_gate),
    "parser": (parser_args, check_parser),
    "extractors": (extractors_args, check_extractors),
}


def decode(target: str, data: bytes) -> tuple[Any, ...]:
    """The oracle's arguments that ``data`` stands for under ``target``."""
    return DECODERS[target][0](Provider(data))


def run(target: str, data: bytes) -> None:
    """One input through one target: raises on a finding (an exception or a broken oracle)."""
    make_args, check = DECODERS[target]
    check(*make_args(Provider(data)))


TARGETS: dict[str, Callable[[bytes], None]] = {
    name: functools.partial(run, name) for name in DECODERS}


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] not in TARGETS:
        sys.exit(f"usage: {sys.argv[0]} {{{','.join(TARGETS)}}} [libFuzzer options] "
                 "[corpus directory or input files]")
    atheris.Setup([sys.argv[0], *sys.argv[2:]], TARGETS[sys.argv[1]])
    atheris.Fuzz()


if __name__ == "__main__":
    main()
