"""Against a real Phoenix server: spans, annotations, label fractions, and Phoenix going away."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
import uuid
from typing import Any

import pytest
from opentelemetry.sdk.trace import TracerProvider
from support.hostile_http import Behaviour, HostileServer
from support.phoenix_server import PhoenixServer, free_port, poll

from vcg_otel import audited_citations
from vcg_otel.phoenix import PhoenixAnnotationProcessor, register

DOCS = {
    "paper": "The reranker improves accuracy by 4.2% over the baseline. Gains shrink on long "
    "documents.",
    "blog": "Cats sleep for most of the day.",
}
CLEAN = [{"claim": "helps", "quote": "improves accuracy by 4.2%", "doc_id": "paper"},
         {"claim": "shrinks", "quote": "Gains shrink on long documents", "doc_id": "paper"}]
DIRTY = [{"claim": "helps", "quote": "improves accuracy by 4.2%", "doc_id": "paper"},
         {"claim": "fast", "quote": "halves latency on every benchmark", "doc_id": "paper"},
         {"claim": "cats", "quote": "Cats sleep for most of the day", "doc_id": "paper"}]


def project() -> str:
    return f"test-{uuid.uuid4().hex[:8]}"


def flush(provider: TracerProvider) -> None:
    provider.force_flush()


def test_audits_arrive_with_kinds_attributes_and_annotations(phoenix: PhoenixServer) -> None:
    name = project()
    notes = PhoenixAnnotationProcessor(phoenix.url)
    provider = register(project_name=name, endpoint=phoenix.url, annotations=notes)
    tracer = provider.get_tracer("app")

    @audited_citations(tracer_provider=provider)
    def answer(citations: list[dict[str, str]], documents: dict[str, str]) -> dict[str, Any]:
        return {"citations": citations}

    with tracer.start_as_current_span("request"):  # the app's own root span
        answer(DIRTY, DOCS)
    answer(CLEAN, DOCS)  # here the audit span is the root
    flush(provider)

    spans = poll(lambda: phoenix.spans(name), lambda s: len(s) == 1 + 2 + 3 + 2)
    kinds = sorted(s["span_kind"] for s in spans if s["name"] != "request")
    assert kinds == ["EVALUATOR"] * 5 + ["GUARDRAIL"] * 2
    checks = {s["attributes"]["citation.quote"]: s for s in spans if s["name"] == "citation.check"}
    fabricated = checks["halves latency on every benchmark"]["attributes"]
    assert fabricated["citation.gate.result"] == "not_found"
    misattributed = checks["Cats sleep for most of the day"]["attributes"]
    assert misattributed["citation.gate.result"] == "misattributed"
    assert misattributed["citation.gate.source_document_ids"] == ["blog"]
    honest = checks["Gains shrink on long documents"]["attributes"]
    start = DOCS["paper"].index("Gains shrink on long documents")
    assert (honest["citation.gate.match.start"], honest["citation.gate.match.end"]) == (
        start, start + len("Gains shrink on long documents"))

    ids = [s["context"]["span_id"] for s in spans]
    annotations = poll(lambda: phoenix.annotations(name, ids), lambda a: len(a) >= 5 + 3)
    by_span = {}
    for a in annotations:
        by_span.setdefault(a["span_id"], {})[a["name"]] = a
    labels = sorted(by_span[s["context"]["span_id"]]["citation_verdict"]["result"]["label"]
                    for s in spans if s["name"] == "citation.check")
    assert labels == ["found", "found", "found", "misattributed", "not_found"]
    root = next(s for s in spans if s["name"] == "request")
    root_note = by_span[root["context"]["span_id"]]["citation_fabrication"]["result"]
    assert root_note["label"] == "fabricated" and root_note["score"] == pytest.approx(2 / 3)
    assert by_span[checks["Cats sleep for most of the day"]["context"]["span_id"]][
        "citation_verdict"]["annotator_kind"] == "CODE"

    fractions = phoenix.label_fractions(name)
    # three annotated spans: the dirty request's root and audit span, the clean audit span
    assert fractions == {"fabricated": pytest.approx(2 / 3), "clean": pytest.approx(1 / 3)}
    provider.shutdown()
    assert (notes.written, notes.dropped, notes.pending) == (5 + 3, 0, 0)
    assert phoenix.stored(name) == (8, {"citation_verdict": 5, "citation_fabrication": 3})


def test_check_events_mode_annotates_every_citation_on_its_audit_span(
        phoenix: PhoenixServer) -> None:
    name = project()
    provider = register(project_name=name, endpoint=phoenix.url,  # bulk, as under load
                        annotations=PhoenixAnnotationProcessor(phoenix.url, sync=False))
    tracer = provider.get_tracer("app")

    @audited_citations(tracer_provider=provider, check_spans=False)
    def answer(citations: list[dict[str, str]], documents: dict[str, str]) -> dict[str, Any]:
        return {"citations": citations}

    with tracer.start_as_current_span("request"):
        answer(DIRTY, DOCS)
    answer(CLEAN, DOCS)
    flush(provider)

    spans = poll(lambda: phoenix.spans(name), lambda s: len(s) == 3)
    assert sorted(s["name"] for s in spans) == ["citation_audit", "citation_audit", "request"]
    # Phoenix writes queued annotations in bulk and retries those of late spans every 10 s.
    stored = poll(lambda: phoenix.stored(name),
                  lambda s: s[1] == {"citation_verdict": 5, "citation_fabrication": 3},
                  timeout=45)
    assert stored == (3, {"citation_verdict": 5, "citation_fabrication": 3})
    dirty = next(s for s in spans if s["name"] == "citation_audit"
                 and s["attributes"]["citation.count.total"] == 3)
    notes = phoenix.annotations(name, [dirty["context"]["span_id"]])
    verdicts = {a["identifier"]: a["result"]["label"] for a in notes
                if a["name"] == "citation_verdict"}
    assert verdicts == {"citation-0": "found", "citation-1": "not_found",
                        "citation-2": "misattributed"}
    # Phoenix weighs spans, not annotations: each audit span counts once, with the shares of
    # its own citations (dirty: 1/3 each; clean: all found).
    assert phoenix.label_fractions(name, "citation_verdict") == {
        "found": pytest.approx((1 / 3 + 1) / 2), "not_found": pytest.approx(1 / 6),
        "misattributed": pytest.approx(1 / 6)}
    provider.shutdown()


def test_annotations_of_spans_not_stored_yet_are_held_back_until_they_are(
        phoenix: PhoenixServer) -> None:
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    name = project()
    provider = TracerProvider(resource=Resource.create({"openinference.project.name": name}))
    spans_out = BatchSpanProcessor(OTLPSpanExporter(endpoint=phoenix.url + "/v1/traces"),
                                   schedule_delay_millis=600_000)  # only on force_flush
    notes_out = PhoenixAnnotationProcessor(phoenix.url, sync=True)
    provider.add_span_processor(spans_out)
    provider.add_span_processor(notes_out)

    @audited_citations(tracer_provider=provider)
    def answer(documents: dict[str, str]) -> dict[str, Any]:
        return {"citations": CLEAN}

    answer(DOCS)  # annotations go out at once; the spans are still in the batch queue
    poll(lambda: notes_out.held_back, lambda n: n >= 3, timeout=10)
    assert notes_out.held_back >= 3 and notes_out.written == 0
    spans_out.force_flush()
    assert notes_out.force_flush(60_000)
    assert phoenix.stored(name) == (3, {"citation_verdict": 2, "citation_fabrication": 1})
    assert notes_out.written == 3 and notes_out.dropped == 0
    provider.shutdown()


def test_phoenix_down_at_start_never_blocks_the_app() -> None:
    dead = f"http://127.0.0.1:{free_port()}"
    provider = register(project_name=project(), endpoint=dead)

    @audited_citations(tracer_provider=provider)
    def answer(documents: dict[str, str]) -> dict[str, Any]:
        return {"citations": DIRTY}

    worst = 0.0
    for _ in range(50):
        t0 = time.perf_counter()
        assert answer(DOCS) == {"citations": DIRTY}
        worst = max(worst, time.perf_counter() - t0)
    assert worst < 1.0  # a blocking export would take the 2 s timeout (up to 7.5 s unbatched)
    t0 = time.perf_counter()
    provider.shutdown()
    assert time.perf_counter() - t0 < 15  # shutdown is bounded even with Phoenix gone


def test_phoenix_going_down_mid_run_and_coming_back(phoenix: PhoenixServer) -> None:
    name = project()
    notes = PhoenixAnnotationProcessor(phoenix.url)
    provider = register(project_name=name, endpoint=phoenix.url, annotations=notes)

    @audited_citations(tracer_provider=provider)
    def answer(tag: str, documents: dict[str, str]) -> dict[str, Any]:
        return {"citations": [{**CLEAN[0], "claim": tag}]}  # 2 annotations per call

    answer("before", DOCS)
    flush(provider)
    poll(lambda: phoenix.spans(name), lambda s: len(s) == 2)
    phoenix.stop()
    try:
        worst = 0.0
        for _ in range(30):
            t0 = time.perf_counter()
            answer("while down", DOCS)
            worst = max(worst, time.perf_counter() - t0)
        assert worst < 1.0  # a blocking export would take the 2 s timeout
    finally:
        phoenix.start()
    answer("after", DOCS)
    flush(provider)
    spans = poll(lambda: phoenix.spans(name),
                 lambda s: any(x["attributes"].get("citation.claim") == "after" for x in s))
    claims = {s["attributes"].get("citation.claim") for s in spans}
    assert "after" in claims and "before" in claims
    provider.shutdown()
    assert notes.written + notes.dropped == 2 * (1 + 30 + 1) and notes.pending == 0
    assert set(notes.dropped_by_reason) <= {"unreachable", "span_missing", "shutdown"}


def test_annotation_queue_is_bounded_and_drops_are_counted() -> None:
    processor = PhoenixAnnotationProcessor(f"http://127.0.0.1:{free_port()}", max_queue=5,
                                           max_retries=0, request_timeout=0.2)
    provider = TracerProvider()
    provider.add_span_processor(processor)

    @audited_citations(tracer_provider=provider)
    def answer(documents: dict[str, str]) -> dict[str, Any]:
        return {"citations": DIRTY}

    for _ in range(20):
        answer(DOCS)  # 20 x (3 verdicts + 1 request annotation) into a queue of 5
    t0 = time.perf_counter()
    provider.shutdown()
    assert time.perf_counter() - t0 < 10
    assert processor.written == 0 and processor.dropped == 80


def test_batch_processor_drops_are_counted_in_a_metric() -> None:
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader

    reader = InMemoryMetricReader()
    provider = register(project_name=project(), endpoint=f"http://127.0.0.1:{free_port()}",
                        max_queue_size=4,
                        max_export_batch_size=4,
                        annotations=False, schedule_delay=60,
                        meter_provider=MeterProvider(metric_readers=[reader]))

    @audited_citations(tracer_provider=provider)
    def answer(documents: dict[str, str]) -> dict[str, Any]:
        return {"citations": DIRTY}

    for _ in range(5):
        answer(DOCS)  # 20 spans into a queue of 4
    dropped = 0
    for rm in reader.get_metrics_data().resource_metrics:  # type: ignore[union-attr]
        for sm in rm.scope_metrics:
            for metric in sm.metrics:
                if metric.name == "otel.sdk.processor.span.processed":
                    dropped += sum(p.value for p in metric.data.data_points
                                   if p.attributes.get("error.type") == "queue_full")
    assert dropped >= 10
    provider.shutdown()


def test_a_phoenix_otel_register_user_adds_our_annotations_in_two_lines(
        phoenix: PhoenixServer, monkeypatch: pytest.MonkeyPatch) -> None:
    from phoenix.otel import register as phoenix_register

    name = project()
    monkeypatch.setenv("PHOENIX_COLLECTOR_ENDPOINT", phoenix.url)  # as Phoenix's docs set up
    tracer_provider = phoenix_register(project_name=name, batch=True, protocol="http/protobuf",
                                       set_global_tracer_provider=False, verbose=False)
    # the README's two lines
    from vcg_otel.phoenix import PhoenixAnnotationProcessor
    tracer_provider.add_span_processor(PhoenixAnnotationProcessor(), replace_default_processor=False)  # noqa: E501
    notes = tracer_provider._active_span_processor._span_processors[-1]
    assert isinstance(notes, PhoenixAnnotationProcessor)

    @audited_citations(tracer_provider=tracer_provider)
    def answer(documents: dict[str, str]) -> dict[str, Any]:
        return {"citations": DIRTY}

    answer(DOCS)
    tracer_provider.force_flush()
    stored = poll(lambda: phoenix.stored(name), lambda s: s[0] == 4 and sum(s[1].values()) == 4)
    assert stored == (4, {"citation_verdict": 3, "citation_fabrication": 1})
    tracer_provider.shutdown()
    assert (notes.written, notes.dropped) == (4, 0)


def test_register_reads_phoenix_environment_variables_as_phoenix_does(
        phoenix: PhoenixServer, monkeypatch: pytest.MonkeyPatch) -> None:
    name = project()
    monkeypatch.setenv("PHOENIX_COLLECTOR_ENDPOINT", phoenix.url)
    monkeypatch.setenv("PHOENIX_PROJECT_NAME", name)
    before = dict(os.environ)
    provider = register()
    assert dict(os.environ) == before  # nothing set for the process, not even briefly kept

    @audited_citations(tracer_provider=provider)
    def answer(documents: dict[str, str]) -> dict[str, Any]:
        return {"citations": CLEAN}

    answer(DOCS)
    provider.force_flush()
    stored = poll(lambda: phoenix.stored(name), lambda s: s[0] == 3 and sum(s[1].values()) == 3)
    assert stored == (3, {"citation_verdict": 2, "citation_fabrication": 1})
    provider.shutdown()


def test_phoenix_api_key_goes_to_both_spans_and_annotations(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PHOENIX_API_KEY", "k-123")
    with HostileServer("ok") as server:
        provider = register(project_name=project(), endpoint=server.url + "/v1/traces")

        @audited_citations(tracer_provider=provider)
        def answer(documents: dict[str, str]) -> dict[str, Any]:
            return {"citations": CLEAN}

        answer(DOCS)
        provider.force_flush()
        provider.shutdown()
    auth = {path.split("?")[0]: headers.get("authorization")
            for _, path, headers in server.requests}
    assert auth == {"/v1/traces": "Bearer k-123", "/v1/span_annotations": "Bearer k-123"}
    assert server.annotations == 3


def test_a_trickling_endpoint_cannot_stretch_the_providers_shutdown() -> None:
    # Spans and annotations both point at a peer that answers one byte every 0.3 s: the OTLP
    # exporter's per-read timeout never fires, and the SDK's own shutdown waits 30 s for it.
    with HostileServer("trickle", trickle_every=0.3) as server:
        provider = register(project_name=project(), endpoint=server.url, export_timeout=1.0,
                            shutdown_timeout=2.0,
                            annotations=PhoenixAnnotationProcessor(
                                server.url, send_delay=0, shutdown_timeout=2.0))

        @audited_citations(tracer_provider=provider)
        def answer(documents: dict[str, str]) -> dict[str, Any]:
            return {"citations": DIRTY}

        for _ in range(20):
            answer(DOCS)
        time.sleep(1.0)  # the first export is under way, stuck on the trickle
        t0 = time.perf_counter()
        provider.shutdown()
        elapsed = time.perf_counter() - t0
    assert elapsed < 2.0 + 2.0 + 2.0  # spans' bound + annotations' bound + scheduling


EXIT_SCRIPT = textwrap.dedent("""
    import sys, time
    from vcg_otel import audited_citations
    from vcg_otel.phoenix import PhoenixAnnotationProcessor, register
    url = sys.argv[1]
    provider = register(project_name="exit", endpoint=url, export_timeout=1.0,
                        shutdown_timeout=2.0, annotations=PhoenixAnnotationProcessor(
                            url, send_delay=0, shutdown_timeout=2.0))
    @audited_citations(tracer_provider=provider)
    def answer(documents):
        return {"citations": [{"claim": "c", "quote": "improves accuracy", "doc_id": "d"}]}
    for _ in range(20):
        answer({"d": "The reranker improves accuracy by 4.2%."})
    time.sleep(1.0)  # exports are under way
    print("done", flush=True)  # no explicit shutdown: the SDK's exit hook runs it
""")


def exit_seconds(behaviour: Behaviour) -> float:
    """Seconds from the end of EXIT_SCRIPT's work to its process exit, against an endpoint."""
    with HostileServer(behaviour, trickle_every=0.3) as server:
        child = subprocess.Popen([sys.executable, "-c", EXIT_SCRIPT, server.url],
                                 stdout=subprocess.PIPE, text=True)
        try:
            assert child.stdout is not None and child.stdout.readline() == "done\n"
            t0 = time.perf_counter()
            child.wait(120)
            return time.perf_counter() - t0
        finally:
            child.kill()


def test_process_exit_against_a_trickling_endpoint_is_bounded() -> None:
    # Against a well-behaved endpoint, exit takes what tearing down the interpreter takes
    # (seconds when phoenix.otel has loaded the Phoenix server package beside it).
    baseline = exit_seconds("ok")
    trickled = exit_seconds("trickle")
    assert trickled < baseline + 2.0 + 2.0 + 2.0  # spans' + annotations' bound + scheduling
