"""Sustained load through @audited_citations into a real Phoenix server.

    python benchmarks/load.py --check-events --annotations requests   # the high-volume set-up
    python benchmarks/load.py                                        # span and annotation
                                                                     # per citation
    python benchmarks/load.py --duration 60 --rate 100               # shorter, slower

Half the requests come from threads calling a sync handler, half from asyncio tasks calling an
async handler; each answer has 5 citations over 10 documents of 2 kB (gate only). By default
each request makes 6 spans (``citation_audit`` and a ``citation.check`` per citation), 5
``citation_verdict`` annotations and 1 ``citation_fabrication``; ``--check-events`` makes the
checks events on the audit span (``check_spans=False``, 1 span per request) and
``--annotations requests`` writes only ``citation_fabrication`` (1 annotation per request).
Requests are paced to the target rate (default 200/s for 10 minutes). Reported: achieved
requests/s, added latency (p50/p99 of the decorated call minus the bare handler's p50), spans
created vs spans Phoenix stored, annotations written vs stored (counted exactly through
Phoenix's GraphQL API: ``recordCount``, ``spanAnnotationNameCounts``), and RSS at start, every
minute and at the end.

Exporter settings: ``vcg_otel.phoenix.register`` with a 30 s export timeout (a busy Phoenix
answers 503; the exporter retries that long), a 65,536-span queue and batches of 2,048.
Annotations are written with ``sync=False`` (Phoenix writes them in bulk) unless
``--annotation-sync``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor

from vcg_otel import audited_citations
from vcg_otel.phoenix import LocalPhoenix, PhoenixAnnotationProcessor, register

DATA = Path(__file__).parent / "data" / "arxiv_abstracts_295.json"
PROJECT = "load"


def rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class Counter(SpanProcessor):
    def __init__(self) -> None:
        self.ended = 0
        self._lock = threading.Lock()

    def on_end(self, span: ReadableSpan) -> None:
        with self._lock:
            self.ended += 1


def workload() -> tuple[dict[str, str], dict[str, Any]]:
    text = " ".join(json.loads(DATA.read_text(encoding="utf-8")).values())
    docs = {f"doc-{i}": text[i * 2000:(i + 1) * 2000] for i in range(10)}
    citations = [{"claim": f"claim {i}", "quote": " ".join(docs[f"doc-{i}"].split()[20:32]),
                  "doc_id": f"doc-{i}"} for i in range(3)]
    citations.append({"claim": "wrong doc", "quote": " ".join(docs["doc-5"].split()[40:50]),
                      "doc_id": "doc-6"})
    citations.append({"claim": "invented", "quote": "this sentence appears nowhere at all",
                      "doc_id": "doc-4"})
    return docs, {"answer": "...", "citations": citations}


def main() -> int:
    parser = argparse.ArgumentParser(description="sustained load into a real Phoenix")
    parser.add_argument("--duration", type=float, default=600.0, help="seconds of load")
    parser.add_argument("--rate", type=float, default=200.0, help="requests per second")
    parser.add_argument("--threads", type=int, default=4, help="threads (plus asyncio tasks)")
    parser.add_argument("--export-timeout", type=float, default=30.0,
                        help="OTLP export timeout: retries of a busy Phoenix (503) last this long")
    parser.add_argument("--queue", type=int, default=65_536, help="batch processor queue size")
    parser.add_argument("--drain", type=float, default=60.0,
                        help="seconds allowed for export and annotations to drain at the end")
    parser.add_argument("--annotations", choices=("all", "requests", "none"), default="all",
                        help="Phoenix annotations: per citation and per request, per request "
                             "only, or none")
    parser.add_argument("--annotation-sync", action=argparse.BooleanOptionalAction,
                        default=False, help="Phoenix writes each annotation batch before "
                        "answering (default: queued, written in bulk)")
    parser.add_argument("--check-events", action="store_true",
                        help="check_spans=False: one span per request, a citation.check event "
                             "per citation")
    args = parser.parse_args()

    docs, answer_value = workload()
    phoenix = LocalPhoenix(tempfile.mkdtemp(prefix="vcg-load-"))
    print("starting Phoenix ...", flush=True)
    phoenix.start()
    try:
        notes: bool | PhoenixAnnotationProcessor = False
        if args.annotations != "none":
            notes = PhoenixAnnotationProcessor(phoenix.url, sync=args.annotation_sync,
                                               per_citation=args.annotations == "all")
        provider = register(project_name=PROJECT, endpoint=phoenix.url,
                            export_timeout=args.export_timeout,
                            max_queue_size=args.queue, max_export_batch_size=2048,
                            annotations=notes)
        counter = Counter()
        provider.add_span_processor(counter)

        def bare(documents: dict[str, str]) -> dict[str, Any]:
            return answer_value

        async def abare(documents: dict[str, str]) -> dict[str, Any]:
            return answer_value

        sync_handler = audited_citations(tracer_provider=provider,
                                         check_spans=not args.check_events)(bare)
        async_handler = audited_citations(tracer_provider=provider,
                                          check_spans=not args.check_events)(abare)
        base = []
        for _ in range(2000):
            t0 = time.perf_counter_ns()
            bare(docs)
            base.append(time.perf_counter_ns() - t0)
        base_p50 = statistics.median(base) / 1e3

        latencies: list[int] = []
        lock = threading.Lock()
        total = int(args.duration * args.rate)
        per_stream = args.rate / (args.threads + 1)  # threads + one asyncio stream share it
        start = time.monotonic()
        rss_start = rss_mib()

        def delays() -> Iterator[float]:
            """Seconds to wait before each request of one stream, paced to its share."""
            n = 0
            while n / per_stream < args.duration:
                yield start + n / per_stream - time.monotonic()
                n += 1

        def record(mine: list[int]) -> None:
            with lock:
                latencies.extend(mine)

        def thread_load(k: int) -> None:
            mine: list[int] = []
            for delay in delays():
                time.sleep(max(delay, 0))
                t0 = time.perf_counter_ns()
                sync_handler(docs)
                mine.append(time.perf_counter_ns() - t0)
            record(mine)

        async def async_load() -> None:
            mine: list[int] = []
            for delay in delays():
                await asyncio.sleep(max(delay, 0))
                t0 = time.perf_counter_ns()
                await async_handler(docs)
                mine.append(time.perf_counter_ns() - t0)
            record(mine)

        samples: list[tuple[float, float]] = []  # (seconds into the load, RSS MiB)
        done = threading.Event()

        def sample_rss() -> None:
            while not done.wait(min(60.0, args.duration / 4)):
                samples.append((time.monotonic() - start, rss_mib()))

        sampler = threading.Thread(target=sample_rss, daemon=True)
        sampler.start()
        threads = [threading.Thread(target=thread_load, args=(k,)) for k in range(args.threads)]
        for t in threads:
            t.start()
        asyncio.run(async_load())
        for t in threads:
            t.join()
        elapsed = time.monotonic() - start
        rss_end = rss_mib()
        done.set()
        created = counter.ended
        requests = len(latencies)
        ordered = sorted(latencies)
        p50 = ordered[len(ordered) // 2] / 1e3
        p99 = ordered[int(len(ordered) * 0.99)] / 1e3
        print(f"\n{requests:,} requests in {elapsed:.0f} s (target {total:,} at "
              f"{args.rate:.0f}/s; {args.threads} threads + 1 asyncio stream), 5 citations each")
        print(f"{'metric':<44}{'value':>24}")
        rows = [
            ("requests/s achieved", f"{requests / elapsed:,.1f}"),
            ("decorated call p50 / p99 (µs)", f"{p50:,.0f} / {p99:,.0f}"),
            ("added latency p50 / p99 (µs)", f"{p50 - base_p50:,.0f} / {p99 - base_p50:,.0f}"),
            ("RSS start / end of the load (MiB)", f"{rss_start:,.0f} / {rss_end:,.0f}"),
            ("RSS during the load (MiB, every minute)",
             " ".join(f"{mib:.0f}" for _, mib in samples) or "-"),
            ("spans created", f"{created:,}"),
        ]
        for name, value in rows:
            print(f"{name:<44}{value:>24}", flush=True)
        # Delivery: give export and annotations a bounded time to drain, then count.
        processors = provider._active_span_processor._span_processors
        for p in processors:
            p.force_flush(int(args.drain * 1000))
        deadline = time.monotonic() + args.drain
        stored = notes = 0
        written = sum(getattr(p, "written", 0) for p in processors)
        while time.monotonic() < deadline:
            stored, by_name = phoenix.stored(PROJECT)
            notes = sum(by_name.values())
            if stored >= created and notes >= written:
                break
            time.sleep(1)
        dropped = sum(getattr(p, "dropped", 0) for p in processors)
        reasons = {k: v for p in processors
                   for k, v in (getattr(p, "dropped_by_reason", None) or {}).items()}
        for name, value in [
            (f"spans stored in Phoenix (after {args.drain:.0f} s drain)", f"{stored:,}"),
            ("spans not stored", f"{created - stored:,}"),
            ("annotations written / stored", f"{written:,} / {notes:,}"),
            ("annotations dropped", f"{dropped:,} {reasons or ''}"),
        ]:
            print(f"{name:<44}{value:>24}", flush=True)
    finally:
        phoenix.stop()  # first: a provider shutdown against a busy Phoenix could take minutes
    return 0


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    # Skip the SDK's exit-time flush: with Phoenix stopped it would retry a backlog for minutes.
    os._exit(code)
