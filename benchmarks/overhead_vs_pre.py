"""The decorator's full-audit overhead against the pre-phase code, both in ONE process.

    python benchmarks/overhead_vs_pre.py [--rev 3599406] [--blocks 60]

Separate runs of ``overhead.py`` on the old and the new code cannot be compared on a shared
machine: its speed swings 2x from one minute to the next. Here the code at ``--rev`` is
extracted with ``git archive`` and imported under another name (``vcg_pre``: the package
imports itself relatively), and the old and new decorators are timed in alternating blocks of
100 calls, the order flipped every block, so a swing hits all of them alike.

Same workload as ``overhead.py``: 5 citations (4 real, 1 fabricated; ``--honest``: 5 real, to
see everything but the rejected path's cost) over 10 documents of 2 kB, gate only; (b) SDK
tracer and meter providers, (c) (b) plus an SDK logger provider (the events through the Logs
API), each against the old code in the same configuration (``x old, same``: the regression).
The target (issue 14): (c) <= 500 µs p50 where the README's reference table measured the
old (b) at 348 µs, i.e. (c) <= 1.437x the old (b).
"""

from __future__ import annotations

import argparse
import gc
import io
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from opentelemetry.sdk._logs import LoggerProvider  # noqa: E402
from opentelemetry.sdk._logs.export import BatchLogRecordProcessor  # noqa: E402
from opentelemetry.sdk.metrics import MeterProvider  # noqa: E402
from opentelemetry.sdk.metrics.export import InMemoryMetricReader  # noqa: E402
from opentelemetry.sdk.trace import TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import BatchSpanProcessor  # noqa: E402
from overhead import NullExporter, NullLogExporter, workload  # noqa: E402

#: The README's reference figure for the old (b), and the target for (c).
REFERENCE_OLD_B_US = 348.0
TARGET_US = 500.0


def extract_old(rev: str, into: Path) -> None:
    """``vcg_otel`` at ``rev`` as the package ``vcg_pre`` under ``into``."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "vcg_otel"],
                             check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    (into / "vcg_otel").rename(into / "vcg_pre")


def providers(logs: bool) -> dict[str, Any]:
    tracer = TracerProvider()
    tracer.add_span_processor(BatchSpanProcessor(NullExporter()))
    out: dict[str, Any] = {"tracer_provider": tracer,
                           "meter_provider": MeterProvider(metric_readers=[InMemoryMetricReader()])}
    if logs:
        logger = LoggerProvider()
        logger.add_log_record_processor(BatchLogRecordProcessor(NullLogExporter()))
        out["logger_provider"] = logger
    return out


def interleaved(fns: dict[str, Callable[[], Any]], blocks: int,
                size: int = 100) -> dict[str, list[int]]:
    """Per-call ns of each function, in alternating blocks (order flipped every block)."""
    for fn in fns.values():
        for _ in range(1500):
            fn()  # warm caches and code paths
    times: dict[str, list[int]] = {name: [] for name in fns}
    clock = time.perf_counter_ns
    for block in range(blocks):
        order = list(fns.items())
        if block % 2:
            order.reverse()
        for name, fn in order:
            gc.collect()
            gc.disable()
            try:
                for _ in range(size):
                    t0 = clock()
                    fn()
                    times[name].append(clock() - t0)
            finally:
                gc.enable()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rev", default="3599406", help="the old code (default: pre-phase)")
    parser.add_argument("--blocks", type=int, default=60, help="blocks of 100 calls each")
    parser.add_argument("--honest", action="store_true",
                        help="5 real quotes (no fabricated one): the cost of everything but "
                             "the rejected path")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        extract_old(args.rev, Path(tmp))
        sys.path.insert(0, tmp)
        import vcg_pre  # type: ignore[import-not-found]

        import vcg_otel

        docs, answer = workload(honest=args.honest)

        def handler(question: str, documents: dict[str, str]) -> dict[str, Any]:
            return answer

        decorated = {
            f"old (b) [{args.rev}]": vcg_pre.audited_citations(**providers(False))(handler),
            f"old (c) [{args.rev}]": vcg_pre.audited_citations(**providers(True))(handler),
            "new (b)": vcg_otel.audited_citations(**providers(False))(handler),
            "new (c)": vcg_otel.audited_citations(**providers(True))(handler),
        }
        times = interleaved({k: (lambda f=f: f("q", docs)) for k, f in decorated.items()},
                            args.blocks)
    base = statistics.median(next(iter(times.values())))
    medians = {name: statistics.median(t) for name, t in times.items()}
    old = {name[4:7]: m for name, m in medians.items() if name.startswith("old")}
    print(f"{args.blocks * 100:,} calls each, in {args.blocks} alternating blocks; "
          f"5 citations ({'all real' if args.honest else '4 real, 1 fabricated'}) over 10 "
          "documents of 2 kB, gate only")
    print(f"{'configuration':<26}{'p50 µs':>9}{'p99 µs':>10}{'x old (b)':>11}"
          f"{'x old, same':>13}{'at the README scale':>21}")
    for name, t in times.items():
        ordered = sorted(t)
        p50, p99 = medians[name] / 1000, ordered[int(0.99 * len(ordered))] / 1000
        scaled = REFERENCE_OLD_B_US * p50 * 1000 / base
        same = medians[name] / old[name[4:7]]  # new (c) against old (c): the regression
        print(f"{name:<26}{p50:>9.1f}{p99:>10.1f}{p50 * 1000 / base:>10.2f}x"
              f"{same:>12.2f}x{scaled:>17.0f} µs")
    limit = TARGET_US / REFERENCE_OLD_B_US
    new_c = statistics.median(times["new (c)"]) / base
    print(f"\ntarget: new (c) <= {limit:.3f}x old (b) (500 µs at the README's 348 µs): "
          f"{'met' if new_c <= limit else 'NOT met'} ({new_c:.2f}x)")


if __name__ == "__main__":
    main()
