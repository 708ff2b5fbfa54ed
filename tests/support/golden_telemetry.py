"""Everything the decorator emits for a few fixed calls, as JSON, minus what varies from run to
run (timestamps, trace and span ids, measured durations).

    PYTHONPATH=<checkout> python tests/support/golden_telemetry.py [--write]

prints the dump of the ``vcg_otel`` on ``PYTHONPATH`` (diff two checkouts' outputs to prove a
change left the telemetry as it was); ``--write`` stores it as the golden file that
``tests/unit/otel/test_telemetry_unchanged.py`` compares against. Regenerate it only for a
change meant to alter the telemetry (a gate that now finds a passage elsewhere changes the
gate attributes), and say so in the commit.

Shapes: the overhead benchmark's workload (4 real quotes and 1 invented one over 10 documents
of 2 kB) and the same all honest; a misquote and a misattributed quote; content capture off;
a judge callable (one verdict, one answer that fails closed); ``check_spans=False``; events on
the Logs API; an answer that cites nothing; enforce mode; an audit that raises.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import SimpleLogRecordProcessor
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

try:  # the newer name (the old one is a deprecated alias in 1.45)
    from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter as LogExporter
except ImportError:  # pragma: no cover - older SDK
    from opentelemetry.sdk._logs.export import InMemoryLogExporter as LogExporter  # type: ignore

GOLDEN = Path(__file__).resolve().parent.parent / "data" / "telemetry_golden.json"
ABSTRACTS = (Path(__file__).resolve().parent.parent.parent / "benchmarks" / "data"
             / "arxiv_abstracts_295.json")
#: Metrics whose values are measured times: only their point counts are kept.
TIMED = frozenset({"citation.audit.duration", "gen_ai.client.operation.duration"})


def documents() -> dict[str, str]:
    """The overhead benchmark's 10 documents of 2 kB."""
    abstracts = list(json.loads(ABSTRACTS.read_text(encoding="utf-8")).values())
    text = " ".join(abstracts)
    return {f"doc-{i}": text[i * 2000:(i + 1) * 2000] for i in range(10)}


def quote(docs: dict[str, str], doc: int, start: int = 20, words: int = 12) -> str:
    return " ".join(docs[f"doc-{doc}"].split()[start:start + words])


def answers(docs: dict[str, str]) -> dict[str, dict[str, Any]]:
    """The answers the handler returns, by shape."""
    real = [{"claim": f"claim {i}", "quote": quote(docs, i), "doc_id": f"doc-{i}"}
            for i in range(4)]
    invented = {"claim": "invented", "quote": "this sentence appears in no abstract at all",
                "doc_id": "doc-4"}
    words = quote(docs, 5, 30, 14).split()
    words[6] = "zebra"  # one word changed: a misquote (altered)
    return {
        "overhead": {"answer": "...", "citations": [*real, invented]},
        "honest": {"answer": "...", "citations": [
            *real, {"claim": "claim 4", "quote": quote(docs, 4), "doc_id": "doc-4"}]},
        "slips": {"answer": "...", "citations": [
            {"claim": "altered", "quote": " ".join(words), "doc_id": "doc-5"},
            {"claim": "elsewhere", "quote": quote(docs, 6), "doc_id": "doc-7"},
            {"claim": "no id", "quote": quote(docs, 8)},
            {"claim": "unknown", "quote": quote(docs, 9), "doc_id": "doc-99"}]},
        "nothing": {"answer": "no citations here"},
    }


def judge(system: str, user: str) -> str:
    """A judge that supports every claim but ``claim 1``, whose answer is unreadable (it
    fails closed)."""
    if "claim 1" in user:
        return "sure, it supports it"
    return json.dumps({"verdict": "supports", "confidence": 0.9, "reasoning": "it says so"})


def failing_auditor() -> Any:
    """An auditor whose audit raises (the audit span records the failure)."""
    from vcg_otel.audit import Auditor

    class Failing(Auditor):
        def audit(self, *args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("the audit failed")

    return Failing()


# The judge's model name (``callable:<module>.<name>``) is telemetry: the same whether this
# file runs as a script or is imported by a test.
judge.__module__ = "golden_telemetry"


#: (name, answer shape, decorator options, events on the Logs API)
CASES: tuple[tuple[str, str, dict[str, Any], bool], ...] = (
    ("overhead", "overhead", {}, False),
    ("honest", "honest", {}, False),
    ("slips", "slips", {}, False),
    ("content_off", "overhead", {"capture_content": False}, False),
    ("content_off_slips", "slips", {"capture_content": False}, False),
    ("judge", "overhead", {"judge": judge}, False),
    ("judge_content_off", "overhead", {"judge": judge, "capture_content": False}, False),
    ("events", "overhead", {"judge": judge}, True),
    ("check_events", "slips", {"check_spans": False}, True),
    ("no_span_events", "overhead", {"judge": judge, "span_events": False}, True),
    ("nothing", "nothing", {}, False),
    ("enforce", "overhead", {"mode": "enforce"}, False),
    ("audit_error", "overhead", {"auditor": failing_auditor}, False),
)


#: Attributes whose values name this checkout's files and lines: only their presence is kept.
PLACED = frozenset({"exception.stacktrace"})


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def _attributes(attributes: Any) -> list[list[Any]]:
    """``[key, value]`` pairs in the order they were set (an exporter keeps that order)."""
    return [[k, "..." if k in PLACED else _plain(v)] for k, v in (attributes or {}).items()]


def _spans(exporter: InMemorySpanExporter) -> list[dict[str, Any]]:
    spans = list(exporter.get_finished_spans())
    names = {s.context.span_id: s.name for s in spans}
    return [{
        "name": s.name,
        "kind": s.kind.name,
        "parent": None if s.parent is None else names.get(s.parent.span_id, "?"),
        "status": [s.status.status_code.name, s.status.description],
        "attributes": _attributes(s.attributes),
        "events": [{"name": e.name, "attributes": _attributes(e.attributes)} for e in s.events],
        "links": len(s.links),
    } for s in spans]


def _points(reader: InMemoryMetricReader) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    data = reader.get_metrics_data()
    for resource in data.resource_metrics if data else ():
        for scope in resource.scope_metrics:
            for metric in scope.metrics:
                for point in metric.data.data_points:
                    entry: dict[str, Any] = {"metric": metric.name, "unit": metric.unit,
                                             "attributes": _attributes(point.attributes)}
                    if hasattr(point, "bucket_counts"):
                        entry["count"] = point.count
                        if metric.name not in TIMED:
                            entry["sum"] = point.sum
                    else:
                        entry["value"] = point.value
                    out.append(entry)
    return out


def _logs(exporter: Any, spans: InMemorySpanExporter) -> list[dict[str, Any]]:
    names = {s.context.span_id: s.name for s in spans.get_finished_spans()}
    out = []
    for data in exporter.get_finished_logs():
        record = data.log_record
        out.append({"event_name": getattr(record, "event_name", None),
                    "severity": [getattr(record.severity_number, "name", None),
                                 record.severity_text],
                    "span": names.get(record.span_id, "?") if record.span_id else None,
                    "attributes": _attributes(record.attributes)})
    return out


def run(case: str, shape: str, options: dict[str, Any], logs: bool) -> dict[str, Any]:
    """One decorated call of ``shape`` with ``options``: its telemetry."""
    from vcg_otel import audited_citations

    docs = documents()
    value = answers(docs)[shape]
    spans = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(spans))
    reader = InMemoryMetricReader()
    providers: dict[str, Any] = {"tracer_provider": tracer_provider,
                                 "meter_provider": MeterProvider(metric_readers=[reader])}
    log_exporter = LogExporter()
    if logs:
        logger_provider = LoggerProvider()
        logger_provider.add_log_record_processor(SimpleLogRecordProcessor(log_exporter))
        providers["logger_provider"] = logger_provider

    def handler(documents: dict[str, str]) -> dict[str, Any]:
        return value

    options = {k: v() if k == "auditor" else v for k, v in options.items()}  # one per run
    decorated: Callable[..., Any] = audited_citations(**providers, **options)(handler)
    returned = decorated(docs)
    return {"case": case, "returned_citations": len(returned.get("citations", ()))
            if isinstance(returned, dict) else type(returned).__name__,
            "spans": _spans(spans), "metrics": _points(reader),
            "logs": _logs(log_exporter, spans) if logs else []}


def dump() -> list[dict[str, Any]]:
    """Every case's telemetry, in :data:`CASES` order."""
    return [run(*case) for case in CASES]


def main(argv: Sequence[str]) -> int:
    text = json.dumps(dump(), indent=1, ensure_ascii=False) + "\n"
    if "--write" in argv:
        GOLDEN.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
