"""A decorated stream keeps at most what the extraction budget can read (issue 19, item 4).

Before, every chunk was kept until the stream ended: 200,000 chunks of 1 kB held ~200 MB, an
endless stream grew without bound. Memory is measured with tracemalloc (the peak of what was
allocated and still held while the host consumed the stream: deterministic for the same
code), the host's stream is checked chunk by chunk, and the cut is read off the audit span.
"""

from __future__ import annotations

import asyncio
import itertools
import tracemalloc
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan
from support.answers import DOCS
from support.telemetry import Telemetry

from vcg_otel import audited_citations
from vcg_otel._stream import StreamKept
from vcg_otel.extract import MAX_NODES, MAX_TEXT_CHARS
from vcg_otel.otel import semconv

CHUNK = 1_000
HONEST_TEXT = 'The reranker "improves accuracy by 4.2%" [paper]. '


def _audit_span(telemetry: Telemetry) -> ReadableSpan:
    (span,) = telemetry.spans(semconv.SPAN_AUDIT)
    return span


def _peak_while(consume: Callable[[], Any]) -> tuple[Any, int]:
    """What ``consume`` returned, and the peak of memory allocated meanwhile (bytes)."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        out = consume()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return out, peak


def test_a_long_text_stream_keeps_what_extraction_reads_and_passes_every_chunk(
        telemetry: Telemetry) -> None:
    n = 20_000  # 20 MB of text

    @audited_citations(**telemetry.providers)
    def answer(documents: dict[str, str]) -> Iterator[str]:
        yield HONEST_TEXT
        for i in range(n):
            yield f"{i:08d}" + "x" * (CHUNK - 8)  # a new 1 kB string each time

    def consume() -> tuple[int, int]:
        count = size = 0
        for chunk in answer(DOCS):  # the host drops each chunk once read
            count += 1
            size += len(chunk)
        return count, size

    (count, size), peak = _peak_while(consume)
    assert (count, size) == (n + 1, len(HONEST_TEXT) + n * CHUNK)  # the host's stream is whole
    # kept: the 2,000,000 characters extraction reads (2 MB), joined, plus the audit's own
    # reading of them (quotes, then markers: a few copies); before: all 20 MB, twice (41 MB)
    assert peak < 12_000_000
    span = _audit_span(telemetry)
    assert span.attributes[semconv.AUDIT_EXTRACT_LIMIT] == "text_chars"
    kept_chunks = (MAX_TEXT_CHARS - len(HONEST_TEXT)) // CHUNK  # the next one is cut inside
    assert span.attributes[semconv.AUDIT_STREAM_DROPPED] == n - kept_chunks
    # the citation in the kept prefix is audited as usual
    (check,) = telemetry.spans(semconv.SPAN_CHECK)
    assert check.attributes[semconv.GATE_RESULT] == "found"


def test_an_endless_stream_closed_by_the_host_holds_a_bounded_amount(
        telemetry: Telemetry) -> None:
    @audited_citations(**telemetry.providers)
    def answer(documents: dict[str, str]) -> Iterator[str]:
        for i in itertools.count():
            yield f"{i:08d}" + "y" * (CHUNK - 8)

    def consume() -> int:
        stream = answer(DOCS)
        taken = sum(1 for _ in itertools.islice(stream, 30_000))
        stream.close()  # closed early: audited on what was kept
        return taken

    taken, peak = _peak_while(consume)
    assert taken == 30_000
    assert peak < 8_000_000  # before: 30 MB, and growing with every chunk
    span = _audit_span(telemetry)
    assert span.attributes[semconv.AUDIT_STREAM_DROPPED] == 30_000 - MAX_TEXT_CHARS // CHUNK


def test_an_async_stream_of_objects_keeps_at_most_the_items_extraction_reads(
        telemetry: Telemetry) -> None:
    n = MAX_NODES + 5_000

    @audited_citations(**telemetry.providers)
    async def answer(documents: dict[str, str]) -> AsyncIterator[dict[str, int]]:
        for i in range(n):
            yield {"delta": i}

    async def consume() -> list[dict[str, int]]:
        return [chunk async for chunk in answer(DOCS)]

    seen = asyncio.run(consume())
    assert [c["delta"] for c in seen] == list(range(n))
    span = _audit_span(telemetry)
    assert span.attributes[semconv.AUDIT_EXTRACT_LIMIT] == "nodes"
    assert span.attributes[semconv.AUDIT_STREAM_DROPPED] == 5_000


def test_kept_chunks_are_counted_by_the_extraction_limits() -> None:
    objects = StreamKept(nodes=3, text_chars=10)
    for chunk in ({"a": 1}, "abc", {"b": 2}, {"c": 3}, "late"):
        objects.add(chunk)
    assert objects.value() == [{"a": 1}, "abc", {"b": 2}]
    assert (objects.limit, objects.dropped) == ("nodes", 2)

    tokens = StreamKept(nodes=3, text_chars=10)  # text is joined: its count is characters
    for chunk in ["ab"] * 7:
        tokens.add(chunk)
    assert tokens.value() == "ab" * 5
    assert (tokens.limit, tokens.dropped) == ("text_chars", 2)

    short = StreamKept()
    for chunk in ("one ", "two"):
        short.add(chunk)
    assert (short.value(), short.limit, short.dropped) == ("one two", None, 0)
    assert StreamKept().value() == []  # an empty stream reads as before: an empty list


def test_a_background_audit_of_a_cut_stream_says_so_too(telemetry: Telemetry) -> None:
    from vcg_otel.otel.background import runner

    @audited_citations(background=True, **telemetry.providers)
    def answer(documents: dict[str, str]) -> Iterator[str]:
        yield HONEST_TEXT
        yield "z" * (MAX_TEXT_CHARS + 10)  # one chunk past the limit: kept up to it
        yield "never kept"

    assert list(answer(DOCS))[-1] == "never kept"
    assert runner.flush(10)
    span = _audit_span(telemetry)
    assert span.attributes[semconv.AUDIT_EXTRACT_LIMIT] == "text_chars"
    assert span.attributes[semconv.AUDIT_STREAM_DROPPED] == 2
    (check,) = telemetry.spans(semconv.SPAN_CHECK)
    assert check.attributes[semconv.GATE_RESULT] == "found"
