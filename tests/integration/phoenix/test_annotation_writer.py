"""The Phoenix annotation writer against hostile HTTP endpoints (raw sockets on 127.0.0.1).

The rule under test: every annotation is either written or counted as dropped with a reason,
the queue bound holds for everything held, a request has a total deadline, and shutdown never
exceeds its timeout -- whatever the endpoint sends, or does not send.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry.sdk.trace import TracerProvider
from support.hostile_http import Behaviour, HostileServer
from support.phoenix_server import poll

from vcg_otel import audited_citations
from vcg_otel.phoenix import PhoenixAnnotationProcessor

DOCS = {"paper": "The reranker improves accuracy by 4.2% over the baseline.",
        "blog": "Cats sleep for most of the day."}
DIRTY = [{"claim": "helps", "quote": "improves accuracy by 4.2%", "doc_id": "paper"},
         {"claim": "fast", "quote": "halves latency on every benchmark", "doc_id": "paper"},
         {"claim": "cats", "quote": "Cats sleep for most of the day", "doc_id": "paper"}]
PER_CALL = 4  # three citation_verdict + one citation_fabrication (the audit span is the root)
SHUTDOWN_TIMEOUT = 2.0
SLACK = 2.0  # scheduling on two busy cores; the hangs this guards against were 30-40 s


@pytest.fixture
def hostile(request: pytest.FixtureRequest) -> Iterator[HostileServer]:
    behaviour, hostile_requests = request.param
    with HostileServer(behaviour, hostile_requests, trickle_every=0.3) as server:
        yield server


def writer(url: str, **options: Any) -> tuple[TracerProvider, PhoenixAnnotationProcessor]:
    settings: dict[str, Any] = {"send_delay": 0.0, "request_timeout": 1.0, "backoff": 0.05,
                                "max_retries": 1, "shutdown_timeout": SHUTDOWN_TIMEOUT}
    processor = PhoenixAnnotationProcessor(url, **{**settings, **options})
    provider = TracerProvider()
    provider.add_span_processor(processor)
    return provider, processor


def audit(provider: TracerProvider, calls: int) -> int:
    """Run ``calls`` audited requests; the number of annotations they produce."""
    @audited_citations(tracer_provider=provider)
    def answer(documents: dict[str, str]) -> dict[str, Any]:
        return {"citations": DIRTY}

    for _ in range(calls):
        answer(DOCS)
    return calls * PER_CALL


def timed_shutdown(provider: TracerProvider) -> float:
    t0 = time.perf_counter()
    provider.shutdown()
    return time.perf_counter() - t0


def writer_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("vcg-otel-phoenix")]


def accounted(processor: PhoenixAnnotationProcessor) -> int:
    return processor.written + processor.dropped


@pytest.mark.parametrize("hostile", [("bad_status", 1)], indirect=True)
def test_a_status_line_that_is_not_http_is_retried_and_the_writer_keeps_writing(
        hostile: HostileServer) -> None:
    provider, processor = writer(hostile.url)
    produced = audit(provider, 5)
    assert processor.force_flush(10_000)
    assert processor.written == produced and processor.dropped == 0
    produced += audit(provider, 5)  # the writer is alive: later annotations go out too
    assert processor.force_flush(10_000)
    assert processor.written == produced == hostile.annotations
    provider.shutdown()


@pytest.mark.parametrize("hostile", [("many_headers", None)], indirect=True)
def test_a_reply_with_150_headers_counts_as_the_answer_it_is(hostile: HostileServer) -> None:
    provider, processor = writer(hostile.url)
    produced = audit(provider, 5)
    assert processor.force_flush(10_000)
    assert processor.written == produced and processor.dropped == 0
    provider.shutdown()


@pytest.mark.parametrize("hostile", [("silent", None), ("trickle", None)], indirect=True)
def test_an_endpoint_that_never_finishes_answering_costs_at_most_the_shutdown_timeout(
        hostile: HostileServer) -> None:
    before = set(writer_threads())
    provider, processor = writer(hostile.url)
    produced = audit(provider, 200)  # 800 annotations
    elapsed = timed_shutdown(provider)
    assert elapsed < SHUTDOWN_TIMEOUT + SLACK
    assert processor.written == 0 and processor.dropped == produced
    assert set(processor.dropped_by_reason) <= {"timeout", "shutdown"}
    assert processor.pending == 0
    assert not [t for t in writer_threads() if t not in before and t.is_alive()]


@pytest.mark.parametrize("hostile", [("trickle", None)], indirect=True)
def test_a_trickled_reply_is_cut_off_at_the_request_deadline(hostile: HostileServer) -> None:
    provider, processor = writer(hostile.url, max_retries=0, request_timeout=1.0,
                                 shutdown_timeout=60.0)
    produced = audit(provider, 1)
    # a byte every 0.3 s would keep a per-read timeout of 1 s waiting forever
    poll(lambda: processor.dropped, lambda n: n == produced, timeout=15)
    assert processor.dropped_by_reason == {"timeout": produced}
    provider.shutdown()


@pytest.mark.parametrize("hostile", [("not_found", None)], indirect=True)
def test_an_endpoint_answering_404_to_everything_never_holds_more_than_max_queue(
        hostile: HostileServer) -> None:
    provider, processor = writer(hostile.url, max_queue=100, max_span_wait_tries=3,
                                 backoff=0.5)
    held: list[int] = []
    produced = 0
    for _ in range(50):
        produced += audit(provider, 5)
        held.append(processor.pending)
        time.sleep(0.01)
    assert max(held) <= 100
    elapsed = timed_shutdown(provider)
    assert elapsed < SHUTDOWN_TIMEOUT + SLACK
    assert processor.written == 0 and accounted(processor) == produced
    assert processor.dropped_by_reason["queue_full"] > 0
    assert set(processor.dropped_by_reason) <= {"queue_full", "span_missing", "shutdown"}


@pytest.mark.parametrize("behaviour", ["bad_status", "many_headers", "silent", "trickle",
                                       "not_found", "ok"])
def test_every_annotation_is_written_or_counted_whatever_the_endpoint_does(
        behaviour: Behaviour) -> None:
    with HostileServer(behaviour, trickle_every=0.3) as server:
        provider, processor = writer(server.url, max_queue=200)
        produced = audit(provider, 100)
        elapsed = timed_shutdown(provider)
    assert elapsed < SHUTDOWN_TIMEOUT + SLACK
    assert accounted(processor) == produced and processor.pending == 0
    assert processor.written == server.annotations


def test_annotations_after_shutdown_are_counted_not_lost() -> None:
    with HostileServer("ok") as server:
        provider, processor = writer(server.url)
        produced = audit(provider, 2)
        provider.shutdown()
        late = audit(provider, 1)  # stragglers: spans ending after shutdown
    assert processor.written == produced == server.annotations
    assert processor.dropped_by_reason == {"shutdown": late}


def test_a_nan_or_infinite_timeout_falls_back_to_the_default_instead_of_hanging() -> None:
    with HostileServer("ok") as server:
        provider, processor = writer(server.url, shutdown_timeout=float("nan"),
                                     request_timeout=float("inf"))
        produced = audit(provider, 2)
        assert processor.force_flush(10_000)
        provider.shutdown()
    assert processor.written == produced == server.annotations
