"""Extraction cost per kB and the caller's time with ``background=True``, against baselines.

    python benchmarks/extract_speed.py            # full run (about ten seconds)
    python benchmarks/extract_speed.py --quick    # smaller sizes, for a smoke test

Each figure is printed next to a baseline measured in the same run, so the ratios mean the same
on a slow or busy machine:

* answer text with inline quotes (``'x. "improves accuracy by 4.2%" [d1] y. ' * n``) against
  one ``re.findall`` pass over the same text: the ratio must stay flat as the text grows
  (linear extraction), where a quadratic scan makes it grow with the size;
* a result that reuses one sub-list (``a = [GOOD]; a = [a] * n`` six times): the time must not
  grow with ``n ** 6``;
* a flat list of floats, per element, against ``sum()`` over the list;
* the caller's time of a decorated handler with ``background=True`` returning the largest
  answer, against the same handler undecorated.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from vcg_otel import audited_citations
from vcg_otel.extract import extract_citations
from vcg_otel.otel.background import runner

UNIT = 'x. "improves accuracy by 4.2%" [d1] y. '
GOOD = {"claim": "c", "quote": "improves accuracy", "doc_id": "d1"}
_BASELINE = re.compile(r'"[^"]*"')


def best_of(fn: Callable[[], Any], repeat: int) -> float:
    """The fastest of ``repeat`` runs, in seconds (the least disturbed by other processes)."""
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - started)
    return best


def inline_text(sizes_kb: list[int], repeat: int) -> None:
    print("inline quotes in answer text          ms   us/kB   baseline us/kB   ratio")
    for kb in sizes_kb:
        text = UNIT * (kb * 1024 // len(UNIT))
        ours = best_of(lambda t=text: extract_citations(t), repeat)
        base = best_of(lambda t=text: _BASELINE.findall(t), repeat)
        size = len(text) / 1024
        print(f"  {size:6.0f} kB {ours * 1e3:24.1f} {ours * 1e6 / size:7.1f} "
              f"{base * 1e6 / size:16.2f} {ours / base:7.0f}x")


def reused_sublists(ns: list[int], repeat: int) -> None:
    print("result reusing one sub-list six deep   ms   (n**6 leaves)")
    for n in ns:
        nested: Any = [GOOD]
        for _ in range(6):
            nested = [nested] * n
        took = best_of(lambda v=nested: extract_citations(v), repeat)
        print(f"  n={n:<3} {took * 1e3:29.1f}   ({n ** 6:,})")


def flat_list(count: int, repeat: int) -> None:
    values = [0.1] * count
    ours = best_of(lambda: extract_citations(values), repeat)
    base = best_of(lambda: sum(values), repeat)
    print(f"flat list of {count:,} floats: {ours * 1e3:.1f} ms, {ours * 1e6 / count:.3f} "
          f"us/element; sum(): {base * 1e6 / count:.3f} us/element ({ours / base:.0f}x)")


def caller_time(kb: int, repeat: int) -> None:
    text = UNIT * (kb * 1024 // len(UNIT))
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(InMemorySpanExporter()))

    def handler(question: str) -> str:
        return text

    decorated = audited_citations(handler, background=True, tracer_provider=provider)
    plain = best_of(lambda: handler("q"), repeat)
    decorated("q")  # warm-up: the first call starts the audit thread and imports asyncio
    runner.flush(120)
    caller = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        decorated("q")
        caller = min(caller, time.perf_counter() - started)
        runner.flush(120)
    print(f"caller's time, background=True, {len(text) / 1024:.0f} kB answer: "
          f"{caller * 1e6:.0f} us (undecorated call: {plain * 1e6:.2f} us)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes (smoke test)")
    args = parser.parse_args()
    if args.quick:
        inline_text([10, 20, 39], 1)
        reused_sublists([3, 4], 1)
        flat_list(10_000, 1)
        caller_time(39, 1)
        return
    inline_text([10, 39, 78, 156], 3)
    reused_sublists([4, 6, 8], 1)
    flat_list(100_000, 3)
    caller_time(156, 3)


if __name__ == "__main__":
    main()
