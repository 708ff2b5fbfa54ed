"""Every accuracy suite's cases gated in small document sets with and without the gram index.

    python benchmarks/gram_identity.py            # every case (a few minutes)
    python benchmarks/gram_identity.py --every 25 # one case in 25

A set of documents searched again and again for rejected quotes gets a gram index
(:mod:`vcg_otel.gate.grams`), which rules documents out without scanning them. It must change
nothing: no verdict, reason, offset, slip, rejection kind or closest passage, and no budget
step. The accuracy suites' corpora are too large to get one, so here each suite's documents
are cut into small sets (consecutive documents, at most 10 and 64 k characters: a retrieval),
each case is gated in its cited document's set twice, by a corpus that builds the index at its
first rejected quote and by one that never does, and the two answers are compared: the result
(``GateMatch.to_dict()``, its diagnosis included) and the steps spent. One case in
``--tight-every`` is gated again at every budget up to the steps it needs, where the charges
the index settles at once must stop exactly where the scan's stop.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gate_cases import suites

from vcg_otel import Corpus, quote_gate
from vcg_otel.gate import corpus as corpus_module
from vcg_otel.gate.search import SearchBudget

_SET_DOCS = 10
_SET_CHARS = 64_000
_NEVER = 1 << 62


def small_sets(docs: dict[str, str]) -> Iterator[dict[str, str]]:
    """``docs`` cut into consecutive sets of at most :data:`_SET_DOCS` documents and
    :data:`_SET_CHARS` characters (a document larger than that alone)."""
    chunk: dict[str, str] = {}
    size = 0
    for key, text in docs.items():
        if chunk and (len(chunk) == _SET_DOCS or size + len(text) > _SET_CHARS):
            yield chunk
            chunk, size = {}, 0
        chunk[key] = text
        size += len(text)
    if chunk:
        yield chunk


def _answer(quote: str, cited: str, corpus: Corpus, steps: int | None) -> tuple[Any, int]:
    budget = SearchBudget() if steps is None else SearchBudget(steps)
    match = quote_gate(quote, cited, corpus, budget=budget)
    return json.dumps(match.to_dict(), sort_keys=True), budget.used


def _indexed(docs: dict[str, str]) -> Corpus:
    """A corpus over ``docs`` that builds its gram index at its first rejected quote."""
    saved = corpus_module._GRAMS_AFTER
    corpus_module._GRAMS_AFTER = 1
    try:
        corpus = Corpus(docs)
        corpus._grams.ready(corpus)  # builds it now (the count is met at once)
    finally:
        corpus_module._GRAMS_AFTER = saved
    return corpus


def compare(every: int = 1, tight_every: int = 50) -> dict[str, list[int]]:
    """Per suite: ``[cases compared, differing, tight budgets compared, differing, searches
    the index answered]``."""
    saved = corpus_module._GRAMS_AFTER
    corpus_module._GRAMS_AFTER = _NEVER  # the plain corpora never build one
    try:
        with _Uses() as uses:
            return {name: _compare_suite(name, docs, cases, every, tight_every, uses)
                    for name, docs, cases in suites()}
    finally:
        corpus_module._GRAMS_AFTER = saved


def _compare_suite(name: str, docs: dict[str, str], cases: list[tuple[str, str]],
                   every: int, tight_every: int, uses: _Uses) -> list[int]:
    sets = list(small_sets(docs))
    home = {key: i for i, chunk in enumerate(sets) for key in chunk}
    indexed = [_indexed(chunk) for chunk in sets]
    plain = [Corpus(chunk) for chunk in sets]
    row = [0, 0, 0, 0, 0]
    answered = uses.count
    for i, (quote, cited) in enumerate(cases[::every]):
        k = home.get(cited, 0)
        row[0] += 1
        if _answer(quote, cited, indexed[k], None) != _answer(quote, cited, plain[k], None):
            row[1] += 1
            print(f"DIFFERS {name} {i * every}: {quote!r} cited {cited!r}", file=sys.stderr)
        if i % tight_every:
            continue
        _, need = _answer(quote, cited, plain[k], None)
        for steps in range(1, need + 2):
            row[2] += 1
            if (_answer(quote, cited, _indexed(sets[k]), steps)
                    != _answer(quote, cited, Corpus(sets[k]), steps)):
                row[3] += 1
                print(f"DIFFERS {name} {i * every} at {steps} steps", file=sys.stderr)
    row[4] = uses.count - answered
    return row


class _Uses:
    """Counts the searches the index answered (every document ruled out at once), so a run
    that compared nothing the index did is seen to."""

    def __init__(self) -> None:
        self.count = 0
        self._absent = Corpus._absent_from_others
        self._lacking = Corpus.others_lacking_most

    def __enter__(self) -> _Uses:
        uses = self

        def absent(corpus: Corpus, *args: Any) -> bool:
            answer = uses._absent(corpus, *args)
            uses.count += answer
            return answer

        def lacking(corpus: Corpus, *args: Any, **kwargs: Any) -> int | None:
            answer = uses._lacking(corpus, *args, **kwargs)
            uses.count += answer is not None
            return answer

        Corpus._absent_from_others = absent  # type: ignore[method-assign]
        Corpus.others_lacking_most = lacking  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        Corpus._absent_from_others = self._absent  # type: ignore[method-assign]
        Corpus.others_lacking_most = self._lacking  # type: ignore[method-assign]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--every", type=int, default=1, help="compare one case in this many")
    parser.add_argument("--tight-every", type=int, default=50,
                        help="one compared case in this many is tried at every budget")
    args = parser.parse_args()
    started = time.perf_counter()
    table = compare(args.every, args.tight_every)
    print(f"{'suite':14s} {'cases':>7s} {'differ':>7s} {'budgets':>8s} {'differ':>7s} "
          f"{'index answered':>15s}")
    for name, (cases, differ, budgets, tight_differ, answered) in table.items():
        print(f"{name:14s} {cases:7d} {differ:7d} {budgets:8d} {tight_differ:7d} "
              f"{answered:15d}")
    total = sum(row[1] + row[3] for row in table.values())
    print(f"{'identical' if not total else f'{total} DIFFER'} "
          f"({time.perf_counter() - started:.0f} s)")
    return 1 if total else 0


if __name__ == "__main__":
    raise SystemExit(main())
