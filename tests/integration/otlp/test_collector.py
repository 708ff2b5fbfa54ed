"""Any OTLP backend, the production way: app -> a real OpenTelemetry collector -> Phoenix.

The collector is rotel (PyPI package ``rotel``, which ships the collector binary). The app's
exporter is plain OTLP/HTTP pointed at the collector: nothing Phoenix-specific on the path.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from support.phoenix_server import PhoenixServer, poll
from support.rotel_collector import rotel

from vcg_otel import audited_citations

DOCS = {"paper": "The reranker improves accuracy by 4.2% over the baseline.",
        "blog": "Cats sleep for most of the day."}


@pytest.fixture
def collector(phoenix: PhoenixServer, tmp_path: Path) -> Iterator[str]:
    with rotel(phoenix.url, tmp_path / "rotel.log", traces_only=True) as url:
        yield url + "/v1/traces"


def test_spans_arrive_unchanged_through_a_collector(collector: str,
                                                    phoenix: PhoenixServer) -> None:
    project = "via-collector"
    provider = TracerProvider(resource=Resource.create({"openinference.project.name": project}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=collector)))

    @audited_citations(tracer_provider=provider)
    def answer(documents: dict[str, str]) -> dict[str, Any]:
        return {"citations": [
            {"claim": "helps", "quote": "improves accuracy by 4.2%", "doc_id": "paper"},
            {"claim": "cats", "quote": "Cats sleep for most of the day", "doc_id": "paper"}]}

    answer(DOCS)
    provider.force_flush()
    spans = poll(lambda: phoenix.spans(project), lambda s: len(s) >= 3, timeout=30)
    by_name: dict[str, list[dict[str, Any]]] = {}
    for s in spans:
        by_name.setdefault(s["name"], []).append(s)
    (audit,) = by_name["citation_audit"]
    assert audit["span_kind"] == "GUARDRAIL"
    assert audit["attributes"]["citation.count.misattributed"] == 1
    checks = {c["attributes"]["citation.gate.result"]: c for c in by_name["citation.check"]}
    assert set(checks) == {"found", "misattributed"}
    assert checks["misattributed"]["span_kind"] == "EVALUATOR"
    assert checks["misattributed"]["parent_id"] == audit["context"]["span_id"]
    assert checks["misattributed"]["attributes"]["citation.gate.source_document_ids"] == ["blog"]
    assert checks["found"]["attributes"]["citation.gate.match.start"] == DOCS["paper"].index(
        "improves accuracy")
    provider.shutdown()
