"""How long a background audit can freeze the host's thread, against the same loop idle.

    python benchmarks/host_stall.py [--sizes 20,50] [--package DIR]

A handler decorated with ``background=True`` returns at once an answer citing one document
of N MB without a quote (``... [1].``): the audit thread then splits and indexes the
whole document for the evidence search (vcg_otel.evidence), pure Python work that competes
with the host for the GIL. Meanwhile the host's thread runs a loop of 0.5 ms sleeps and
records the gaps between two iterations: the worst is the longest stall the host saw. The
same loop with no audit running (10 s before each size) is the baseline, measured in the same
run: the machine's own jitter. Printed: the worst gap, the 99.9th percentile and the count of
gaps over 50 ms, idle and during the audit.

On a machine shared with other work a gap is also the scheduler's: the host thread, or the
audit thread while it holds the GIL, waits for a CPU. So each gap is also measured in the
audit thread's own CPU time (``pthread_getcpuclockid``): the time our thread computed while
the host could not run. That figure ("our CPU in a gap", worst) is what holding the GIL in
one stretch costs the host, whatever the load; the wall-clock worst is what the host saw.

The document is the 295 arXiv abstracts of benchmarks/data repeated, each copy under its own
heading, to the size asked: real prose, sentences of real length, a vocabulary that grows
with the size like a long report's. ``--package DIR`` imports vcg_otel from ``DIR`` (older
code, with this script). Target (issue 19, item 7): worst stall <= 50 ms at 50 MB.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, sys.argv[sys.argv.index("--package") + 1] if "--package" in sys.argv[:-1]
                else str(Path(__file__).resolve().parent.parent))

from cases import long_report
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult

import vcg_otel
from vcg_otel import audited_citations
from vcg_otel.otel.background import runner

TICK = 0.0005


class Spans(SpanExporter):
    def __init__(self) -> None:
        self.spans: list[Any] = []

    def export(self, spans: Sequence[Any]) -> SpanExportResult:
        self.spans.extend(spans)
        return SpanExportResult.SUCCESS


def audit_clock() -> int | None:
    """The CPU-time clock of the background audit thread, once it runs."""
    for thread in threading.enumerate():
        if thread.name == "vcg-otel-audit" and thread.ident is not None:
            return time.pthread_getcpuclockid(thread.ident)
    return None


def gaps(done: threading.Event, limit: float = 600.0) -> tuple[list[float], list[float]]:
    """The gaps between iterations of a 0.5 ms sleep loop until ``done`` is set, and the CPU
    time the audit thread used during each."""
    seen: list[float] = []
    ours: list[float] = []
    clock = audit_clock()
    cpu = time.clock_gettime(clock) if clock is not None else 0.0
    last = start = time.perf_counter()
    while not done.is_set() and last - start < limit:
        time.sleep(TICK)
        now = time.perf_counter()
        used = time.clock_gettime(clock) if clock is not None else 0.0
        seen.append(now - last)
        ours.append(used - cpu)
        last, cpu = now, used
    return seen, ours


def stats(seen: list[float], ours: list[float]) -> dict[str, float]:
    ordered = sorted(seen) or [0.0]
    return {"worst": ordered[-1], "p999": ordered[int(0.999 * (len(ordered) - 1))],
            "over50": sum(1 for g in ordered if g > 0.050),
            "cpu": max(ours, default=0.0)}


def idle(seconds: float) -> dict[str, float]:
    done = threading.Event()
    threading.Timer(seconds, done.set).start()
    return stats(*gaps(done))


def one(megabytes: int, exporter: Spans, provider: TracerProvider) -> dict[str, float]:
    text = long_report(megabytes)

    @audited_citations(tracer_provider=provider, background=True)
    def answer(question: str, documents: list[str]) -> str:
        return "The reranker improves accuracy over the baseline on long documents [1]."

    before = len(exporter.spans)
    done = threading.Event()

    def wait() -> None:
        runner.flush()
        done.set()

    t0 = time.perf_counter()
    answer("q", [text])
    returned = time.perf_counter() - t0
    threading.Thread(target=wait, daemon=True).start()
    seen, ours = gaps(done)
    audit = time.perf_counter() - t0
    assert len(exporter.spans) > before, "the background audit recorded nothing"
    return {"returned": returned, "audit": audit, **stats(seen, ours)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="20,50", help="document sizes in MB")
    parser.add_argument("--package", help="import vcg_otel from this directory")
    args = parser.parse_args()
    exporter = Spans()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    print(f"vcg_otel from {Path(vcg_otel.__file__).parent}")
    rows = []
    for mb in (int(s) for s in args.sizes.split(",")):
        baseline = idle(10.0)
        r = one(mb, exporter, provider)
        rows.append((mb, baseline, r))
    print(f"{'document':>9} | {'idle: worst':>11} {'p99.9':>8} {'>50ms':>6} | "
          f"{'audit: worst':>12} {'p99.9':>8} {'>50ms':>6} {'our CPU in a gap':>17} | "
          f"{'audit took':>11} {'returned in':>12}")
    for mb, base, r in rows:
        print(f"{mb:>6} MB | {base['worst'] * 1e3:>8.1f} ms {base['p999'] * 1e3:>5.1f} ms "
              f"{base['over50']:>6.0f} | {r['worst'] * 1e3:>9.1f} ms {r['p999'] * 1e3:>5.1f} ms "
              f"{r['over50']:>6.0f} {r['cpu'] * 1e3:>14.1f} ms | {r['audit']:>9.2f} s "
              f"{r['returned'] * 1e3:>9.2f} ms")
    worst = max(r["worst"] for _, _, r in rows)
    cpu = max(r["cpu"] for _, _, r in rows)
    print(f"worst host stall {worst * 1e3:.1f} ms, of which our thread computed at most "
          f"{cpu * 1e3:.1f} ms (target <= 50 ms)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
