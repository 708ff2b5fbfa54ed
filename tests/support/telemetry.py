"""The real OpenTelemetry SDK with in-memory exporters: what a test reads back of the spans
and metric points the decorator records."""

from __future__ import annotations

from typing import Any

from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.semconv._incubating.attributes.gen_ai_attributes import (
    GEN_AI_OPERATION_NAME,
)


class Telemetry:
    def __init__(self) -> None:
        self.exporter = InMemorySpanExporter()
        self.tracer_provider = TracerProvider()
        self.tracer_provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.reader = InMemoryMetricReader()
        self.meter_provider = MeterProvider(metric_readers=[self.reader])

    @property
    def providers(self) -> dict[str, Any]:
        return {"tracer_provider": self.tracer_provider, "meter_provider": self.meter_provider}

    def spans(self, name: str | None = None) -> list[ReadableSpan]:
        return [s for s in self.exporter.get_finished_spans() if name is None or s.name == name]

    def judges(self) -> list[ReadableSpan]:
        """Judge calls: GenAI client spans, named "chat <model>"."""
        return [s for s in self.spans() if GEN_AI_OPERATION_NAME in (s.attributes or {})]

    def metric_points(self, name: str) -> list[tuple[dict[str, Any], float]]:
        data = self.reader.get_metrics_data()
        out = []
        for rm in data.resource_metrics if data else ():
            for sm in rm.scope_metrics:
                for metric in sm.metrics:
                    if metric.name == name:
                        for p in metric.data.data_points:
                            value = getattr(p, "value", None)
                            if value is None:
                                value = p.count
                            out.append((dict(p.attributes), value))
        return out

    def dump(self) -> str:
        return "\n".join(s.to_json() for s in self.spans())
