"""A small RAG handler under @audited_citations, its spans and metrics printed.

    pip install -e ".[sdk]" && python examples/traced_rag_app.py

The SDK here keeps spans in memory and prints them as a tree; in production you would
configure an OTLP exporter (or Phoenix) instead, and nothing else changes.
"""

from __future__ import annotations

from typing import Any

from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from vcg_otel import audited_citations

exporter, reader = InMemorySpanExporter(), InMemoryMetricReader()
tracer_provider = TracerProvider()
tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
meter_provider = MeterProvider(metric_readers=[reader])

DOCUMENTS = {
    "smith-2026": "The proposed reranker improves accuracy by 4.2% over the baseline, although "
    "gains shrink on long documents. The model may overfit when data is scarce.",
    "lee-2025": "Citation errors are common: one in five quotes could not be traced.",
}


@audited_citations(tracer_provider=tracer_provider, meter_provider=meter_provider)
def answer(question: str, documents: dict[str, str]) -> dict[str, Any]:
    """Stands in for retrieval + generation: returns an answer with quote citations."""
    return {
        "answer": "The reranker helps, though not everywhere.",
        "citations": [
            {"claim": "Accuracy improves.", "quote": "improves accuracy by 4.2%",
             "doc_id": "smith-2026"},
            {"claim": "Gains shrink.", "quote": "The proposed reranker \u2026 gains shrink",
             "doc_id": "smith-2026"},
            {"claim": "It never overfits.", "quote": "The model never overfits",
             "doc_id": "smith-2026"},
            {"claim": "Quotes are often wrong.", "quote": "one in five quotes could not be traced",
             "doc_id": "smith-2026"},
        ],
    }


def main() -> None:
    answer("Does the reranker help?", documents=DOCUMENTS)
    spans = exporter.get_finished_spans()
    for span in sorted(spans, key=lambda s: (s.name != "citation_audit", s.start_time)):
        a = span.attributes or {}
        indent = "" if span.name == "citation_audit" else "  "
        detail = (f"verdict={a.get('citation.verdict')} gate={a.get('citation.gate.result')} "
                  f"offsets={a.get('citation.gate.match.start')}..{a.get('citation.gate.match.end')}"
                  if span.name == "citation.check"
                  else " ".join(f"{k.split('.')[-1]}={v}" for k, v in a.items()
                                if k.startswith("citation.count.")))
        print(f"{indent}{span.name} [{a.get('openinference.span.kind')}] {detail}")
    data = reader.get_metrics_data()
    for rm in data.resource_metrics if data else ():
        for sm in rm.scope_metrics:
            for metric in sm.metrics:
                if metric.name == "citation.audits":
                    for p in metric.data.data_points:
                        print(f"metric citation.audits{dict(p.attributes)} = {p.value}")


if __name__ == "__main__":
    main()
