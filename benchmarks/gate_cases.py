"""Every accuracy suite's per-case answers, one JSON line per case, for diffing two versions.

    python benchmarks/gate_cases.py > after.jsonl
    PYTHONPATH=<older checkout> python benchmarks/gate_cases.py > before.jsonl
    diff before.jsonl after.jsonl && echo identical

Each line is ``[suite, index, quote, cited id, GateMatch.to_dict()]`` for the cases of
``benchmarks/gate_accuracy.py`` (plain, markup, PDF, transcription, rejection), so a change
that must not move any verdict, reason, offset, forgiven slip or rejection kind (issue 24's
fast path) is checked case by case. ``--full`` answers without the fast path (the reference
the fast path must equal; needs a version that has it). ``--dict`` passes each suite's mapping
itself (the seed-compatible dict call, the same dict every call) instead of a ``Corpus``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cases import build_cases, load_corpus
from markup_cases import build_markup_cases, load_samples
from pdf_cases import build_pdf_cases
from transcription_cases import build_rejection_cases, build_transcription_cases

from vcg_otel import Corpus, quote_gate

Suite = tuple[str, dict[str, str], list[tuple[str, str]]]


def suites() -> Iterator[Suite]:
    plain = load_corpus()
    yield "plain", plain, [(c.quote, c.cited) for c in build_cases(plain)]
    docs, cases, _ = build_markup_cases(load_samples())
    yield "markup", docs, [(c.quote, c.cited) for c in cases]
    docs, cases = build_pdf_cases(plain)
    yield "pdf", docs, [(c.quote, c.cited) for c in cases]
    docs, cases = build_transcription_cases()
    yield "transcription", docs, [(c.quote, c.cited) for c in cases]
    docs, rejected = build_rejection_cases()
    yield "rejection", docs, [(q, cited) for _, q, cited in rejected]


def gate(full: bool) -> Callable[[str, str, Any], object]:
    if not full:
        return quote_gate
    from vcg_otel.gate.api import DEFAULT_MAX_GAP, full_quote_gate
    from vcg_otel.gate.search import SearchBudget

    return lambda q, cited, corpus: full_quote_gate(q, cited, corpus, DEFAULT_MAX_GAP,
                                                    SearchBudget())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--full", action="store_true", help="without the fast path")
    parser.add_argument("--dict", action="store_true", help="the dict call, not a Corpus")
    args = parser.parse_args()
    answer = gate(args.full)
    out = sys.stdout
    for name, docs, cases in suites():
        corpus = docs if args.dict else Corpus(docs)
        for i, (quote, cited) in enumerate(cases):
            match = answer(quote, cited, corpus)
            out.write(json.dumps([name, i, quote, cited, match.to_dict()],  # type: ignore[attr-defined]
                                 ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
