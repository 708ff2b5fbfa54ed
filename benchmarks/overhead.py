"""Per-call overhead of @audited_citations, against the bare handler in the same run.

    python benchmarks/overhead.py [--calls 20000]

The handler returns 5 citations (4 real quotes, 1 fabricated) over 10 documents of 2 kB; gate
only. Three configurations:

(a) no OpenTelemetry SDK configured, observe mode: nothing can record an audit, so the
    decorator skips it; this is the cost of the check.
(b) SDK tracer provider with a BatchSpanProcessor exporting to nothing, plus an SDK meter
    provider, no logger provider: the full audit, 6 spans and the metrics per call.
(c) as (b), plus a global SDK logger provider with a BatchLogRecordProcessor exporting to
    nothing: the events go through the Logs API too (5 gen_ai.evaluation.result log records
    per call, each correlated with its check span).

(b) and (c) are measured in alternating blocks of calls, so a machine busy with other work
slows both alike and their difference stays meaningful.

Against older code, run in the same minutes (absolute speed on a shared machine varies 3x):
``git worktree add /tmp/pre <commit>``, then ``cd /tmp/pre && PYTHONPATH=/tmp/pre python
benchmarks/overhead.py --calls 5000`` and this checkout's run, alternated, comparing p50s.

``--only b``, ``--only c`` or ``--only replay`` makes ``--calls`` calls of that configuration
alone (after 300 warm-up calls; ``replay``: the SDK replay of (b)'s telemetry) inside one
``operator.call`` and prints nothing: for a count the load cannot move, instructions per call,
``PYTHONHASHSEED=0 valgrind --tool=callgrind --toggle-collect='_operator_call*'
--callgrind-out-file=/dev/null python benchmarks/overhead.py --only b --calls 300``, its
"Collected" divided by 300. Only the measured calls are counted (no start-up, no warm-up, not
the span processor's export thread), and the same code counts the same to within 0.1% run
after run with the hash seed fixed (another seed moves it by up to 2%: dicts and the method
cache hash differently). Wall time follows instructions, not Python bytecodes: a loop of a few
items moved into ``map``/``zip``/``filter`` pipelines runs fewer bytecodes and more
instructions, and is slower. ``--package DIR`` imports vcg_otel from ``DIR`` instead of this
checkout (older code, with this script).

Overhead = decorated call time - bare call time, per call, reported at p50 and p99; plus spans
per second sustained over (b) and (c), and (c) / (b) at p50.
"""

from __future__ import annotations

import argparse
import gc
import json
import operator
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, sys.argv[sys.argv.index("--package") + 1] if "--package" in sys.argv[:-1]
                else str(Path(__file__).resolve().parent.parent))

from opentelemetry._logs import _internal as _logs_internal
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import BatchLogRecordProcessor
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import (
    BatchSpanProcessor,
    SimpleSpanProcessor,
    SpanExporter,
    SpanExportResult,
)
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import set_span_in_context

from vcg_otel import audited_citations

try:  # the newer names (the old ones are deprecated aliases in 1.45)
    from opentelemetry.sdk._logs.export import LogRecordExporter as LogExporter
    from opentelemetry.sdk._logs.export import LogRecordExportResult as LogExportResult
except ImportError:  # pragma: no cover - older SDK
    from opentelemetry.sdk._logs.export import LogExporter, LogExportResult  # type: ignore

DATA = Path(__file__).parent / "data" / "arxiv_abstracts_295.json"


class NullExporter(SpanExporter):
    def __init__(self) -> None:
        self.exported = 0

    def export(self, spans: Sequence[Any]) -> SpanExportResult:
        self.exported += len(spans)
        return SpanExportResult.SUCCESS


class NullLogExporter(LogExporter):
    def __init__(self) -> None:
        self.exported = 0

    def export(self, batch: Sequence[Any]) -> LogExportResult:
        self.exported += len(batch)
        return LogExportResult.SUCCESS

    def shutdown(self) -> None:
        pass

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        return True


def workload(honest: bool = False) -> tuple[dict[str, str], dict[str, Any]]:
    """10 documents of 2 kB and an answer citing them 5 times: 4 real quotes and 1 fabricated
    one (``honest``: 5 real quotes, the fifth from ``doc-4``)."""
    abstracts = list(json.loads(DATA.read_text(encoding="utf-8")).values())
    text = " ".join(abstracts)
    docs = {f"doc-{i}": text[i * 2000:(i + 1) * 2000] for i in range(10)}
    citations = []
    for i in range(4):
        doc = docs[f"doc-{i}"]
        words = doc.split()[20:32]
        citations.append({"claim": f"claim {i}", "quote": " ".join(words), "doc_id": f"doc-{i}"})
    if honest:
        words = docs["doc-4"].split()[20:32]
        citations.append({"claim": "claim 4", "quote": " ".join(words), "doc_id": "doc-4"})
    else:
        citations.append({"claim": "invented",
                          "quote": "this sentence appears in no abstract at all",
                          "doc_id": "doc-4"})
    return docs, {"answer": "...", "citations": citations}


Point = tuple[str, str, str, Any, float]


def recorded_telemetry(call: Callable[[Any, Any], Any]) -> tuple[list[Any], list[Point]]:
    """The spans and metric points one decorated ``call`` emits, captured on providers of
    its own: ``(finished spans, [(kind, name, unit, attributes, value)])``; ``call`` is given
    the two providers and must make one audited call with them."""
    spans_out = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans_out))
    reader = InMemoryMetricReader()
    call(provider, MeterProvider(metric_readers=[reader]))
    points: list[Point] = []
    data = reader.get_metrics_data()
    for resource in data.resource_metrics if data else ():
        for scope in resource.scope_metrics:
            for metric in scope.metrics:
                kind = "histogram" if hasattr(metric.data.data_points[0], "bucket_counts") \
                    else "counter"
                for point in metric.data.data_points:
                    value = point.sum if kind == "histogram" else point.value
                    count = point.count if kind == "histogram" else 1
                    points.append((kind, metric.name, metric.unit, dict(point.attributes),
                                   value / count if kind == "histogram" else value))
                    for _ in range(count - 1):
                        points.append((kind, metric.name, metric.unit, dict(point.attributes),
                                       value / count))
    return list(spans_out.get_finished_spans()), points


def sdk_replay(spans: list[Any], points: list[Point],
               tracer_provider: TracerProvider, meter_provider: MeterProvider
               ) -> Callable[[], None]:
    """A function that emits the same spans (names, kinds, parents, attributes, events,
    links, status) and metric points straight on the SDK: what the telemetry itself costs,
    without any of our work to decide it."""
    tracer = tracer_provider.get_tracer("replay")
    meter = meter_provider.get_meter("replay")
    instruments: dict[str, Any] = {}
    for kind, name, unit, _, _ in points:
        if name not in instruments:
            instruments[name] = (meter.create_histogram(name, unit) if kind == "histogram"
                                 else meter.create_counter(name, unit))
    plan = [(instruments[name], kind == "histogram", attrs, value)
            for kind, name, unit, attrs, value in points]
    by_id = {s.context.span_id: s for s in spans}
    children: dict[int | None, list[Any]] = {}
    for s in sorted(spans, key=lambda s: s.start_time):
        parent = s.parent.span_id if s.parent is not None and s.parent.span_id in by_id else None
        children.setdefault(parent, []).append(s)

    def emit(recorded: Any, parent: Any) -> None:
        span = tracer.start_span(recorded.name, context=parent, kind=recorded.kind,
                                 attributes=dict(recorded.attributes))
        for event in recorded.events:
            span.add_event(event.name, dict(event.attributes))
        context = set_span_in_context(span)
        for child in children.get(recorded.context.span_id, ()):
            emit(child, context)
        span.set_status(recorded.status)
        span.end()

    def replay() -> None:
        for root in children.get(None, ()):
            emit(root, None)
        for instrument, histogram, attrs, value in plan:
            if histogram:
                instrument.record(value, attrs)
            else:
                instrument.add(value, attrs)

    return replay


def per_call_ns(fn: Callable[[], Any], calls: int) -> list[int]:
    for _ in range(min(1000, calls)):
        fn()  # warm caches (normalized documents) and code paths
    return _timed(fn, calls)


def interleaved_ns(fn: Callable[[], Any], calls: int, switch: Callable[[bool], None],
                   blocks: int = 20) -> tuple[list[int], list[int]]:
    """Per-call times of ``fn`` with ``switch(False)`` and with ``switch(True)``, measured in
    alternating blocks (``calls`` each in all), the order flipped every other block."""
    for on in (False, True):
        switch(on)
        per_call_ns(fn, min(1000, calls) or 1)  # warm both paths
    off: list[int] = []
    on_: list[int] = []
    size = max(1, calls // blocks)
    for i in range(blocks):
        for state in ((False, True) if i % 2 == 0 else (True, False)):
            switch(state)
            (on_ if state else off).extend(_timed(fn, size))
    return off, on_


def _timed(fn: Callable[[], Any], calls: int) -> list[int]:
    gc.collect()
    gc.disable()
    try:
        out = []
        clock = time.perf_counter_ns
        for _ in range(calls):
            t0 = clock()
            fn()
            out.append(clock() - t0)
        return out
    finally:
        gc.enable()


def pct(values: list[int], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] / 1000


def main() -> int:
    parser = argparse.ArgumentParser(description="decorator overhead")
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--only", choices=("b", "c", "replay"),
                        help="only this configuration, no output (for instruction counts)")
    parser.add_argument("--package", help="directory to import vcg_otel from")
    args = parser.parse_args()
    docs, answer_value = workload()
    if args.only:
        return _only(args.only, args.calls, docs, answer_value)

    def bare(documents: dict[str, str]) -> dict[str, Any]:
        return answer_value

    no_sdk = audited_citations(bare)
    exporter = NullExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(BatchSpanProcessor(exporter, max_queue_size=65_536))
    meter_provider = MeterProvider(metric_readers=[InMemoryMetricReader()])
    full = audited_citations(tracer_provider=tracer_provider, meter_provider=meter_provider)(bare)

    base = per_call_ns(lambda: bare(docs), args.calls)
    a = per_call_ns(lambda: no_sdk(docs), args.calls)
    logs_out = NullLogExporter()
    logger_provider = LoggerProvider()
    logger_provider.add_log_record_processor(
        BatchLogRecordProcessor(logs_out, max_queue_size=65_536))

    def logs(on: bool) -> None:
        # The API lets a global logger provider be set once; for (b) blocks the benchmark puts
        # the unset state back (a private of the API: benchmark only).
        _logs_internal._LOGGER_PROVIDER = logger_provider if on else None

    spans_before, logs_before = exporter.exported, logs_out.exported
    t0 = time.perf_counter()
    b, c = interleaved_ns(lambda: full(docs), args.calls, logs)
    elapsed = time.perf_counter() - t0
    logs(False)
    spans_seen, points = recorded_telemetry(
        lambda tp, mp: audited_citations(tracer_provider=tp, meter_provider=mp)(bare)(docs))
    replay = sdk_replay(spans_seen, points, tracer_provider, meter_provider)
    # the decorator and the replay alternate block by block, so load slows both alike
    mode = {"replay": False}

    def flip(on: bool) -> None:
        mode["replay"] = on

    b2, r = interleaved_ns(lambda: replay() if mode["replay"] else full(docs), args.calls, flip)
    tracer_provider.force_flush()
    logger_provider.force_flush()
    spans = exporter.exported - spans_before
    records = logs_out.exported - logs_before

    base50 = statistics.median(base) / 1000
    print(f"{args.calls:,} calls each; handler: 5 citations over 10 documents of 2 kB, gate only")
    print(f"{'configuration':<44}{'p50 µs':>9}{'p99 µs':>9}{'overhead p50':>14}{'target':>9}")
    print(f"{'bare handler':<44}{pct(base, .5):>9.2f}{pct(base, .99):>9.2f}{'':>14}{'':>9}")
    rows = [("(a) decorated, no SDK configured (observe)", a, 3.0),
            ("(b) decorated, SDK + BatchSpanProcessor, full", b, 500.0),
            ("(c) as (b) + events on the Logs API", c, 500.0)]
    for label, values, target in rows:
        over = pct(values, .5) - base50
        print(f"{label:<44}{pct(values, .5):>9.2f}{pct(values, .99):>9.2f}"
              f"{over:>13.2f} {'<= ' + str(int(target)):>9}")
    attributes = sum(len(s.attributes) for s in spans_seen)
    print(f"\n{'SDK replay of the same telemetry, per call':<44}{'p50 µs':>9}{'p99 µs':>9}"
          f"{'decorator / replay':>20}")
    label = f"replay: {len(spans_seen)} spans ({attributes} attributes), {len(points)} points"
    print(f"{label:<44}"
          f"{pct(r, .5):>9.2f}{pct(r, .99):>9.2f}")
    print(f"{'(b) in the same blocks':<44}{pct(b2, .5):>9.2f}{pct(b2, .99):>9.2f}"
          f"{pct(b2, .5) / pct(r, .5):>19.2f}x   (target <= 1.5x)")
    print(f"\n(b) + (c): {spans:,} spans and {records:,} log records exported in {elapsed:.2f} s "
          f"({spans / elapsed:,.0f} spans/s sustained, {2 * args.calls / elapsed:,.0f} audited "
          f"calls/s on one thread); (c) / (b) at p50: {pct(c, .5) / pct(b, .5):.2f}")
    tracer_provider.shutdown()
    logger_provider.shutdown()
    return 0


def _only(config: str, calls: int, docs: dict[str, str], answer_value: dict[str, Any]) -> int:
    """``calls`` decorated calls of configuration (b) or (c), or SDK replays of (b)'s
    telemetry, after 300 warm-up calls (enough for every cache the audit keeps), all inside
    one ``operator.call``: what callgrind's ``--toggle-collect='_operator_call*'`` counts."""
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(BatchSpanProcessor(NullExporter(), max_queue_size=65_536))
    meter_provider = MeterProvider(metric_readers=[InMemoryMetricReader()])
    if config == "c":
        logger_provider = LoggerProvider()
        logger_provider.add_log_record_processor(
            BatchLogRecordProcessor(NullLogExporter(), max_queue_size=65_536))
        _logs_internal._LOGGER_PROVIDER = logger_provider

    def bare(documents: dict[str, Any]) -> dict[str, Any]:
        return answer_value

    full = audited_citations(tracer_provider=tracer_provider, meter_provider=meter_provider)(bare)
    call: Callable[[], Any] = lambda: full(docs)  # noqa: E731
    if config == "replay":
        spans, points = recorded_telemetry(
            lambda tp, mp: audited_citations(tracer_provider=tp, meter_provider=mp)(bare)(docs))
        call = sdk_replay(spans, points, tracer_provider, meter_provider)
    for _ in range(300):
        call()
    gc.collect()
    gc.disable()

    def measured() -> None:
        for _ in range(calls):
            call()

    operator.call(measured)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
