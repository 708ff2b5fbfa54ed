"""Issue 19, item 8: the evidence-index cache is bounded by the memory it holds. Its measure
is an estimate of each entry's bytes (the index's arrays, terms and table, and the text it
keeps alive as its key); the estimate is checked against what tracemalloc sees, and after
the issue's sequence (documents indexed, then dropped by the app) the memory still held is
within the bound. benchmarks/evidence_memory.py measures the same sequence in RSS at 20 MB."""

from __future__ import annotations

import gc
import json
import sys
import tracemalloc
from collections.abc import Iterator

import pytest
from support.paths import ROOT

from vcg_otel import evidence
from vcg_otel.evidence import EvidenceLocator

ABSTRACTS: list[str] = list(json.loads(
    (ROOT / "benchmarks/data/arxiv_abstracts_295.json").read_text(encoding="utf-8")).values())


def report(n: int, size: int = 600_000) -> str:
    """A document of about ``size`` characters of real prose, distinct for each ``n``."""
    parts, total, i = [], 0, 0
    while total < size:
        part = f"Section {n}.{i}. {ABSTRACTS[(7 * n + i) % len(ABSTRACTS)]}\n\n"
        parts.append(part)
        total, i = total + len(part), i + 1
    return "".join(parts)


@pytest.fixture
def bound() -> Iterator[int]:
    """The cache emptied and bounded at 3 MB for the test (restored after)."""
    cache = evidence._INDEXES
    old = cache.max_size
    cache.clear()
    cache.resize(max_size=3_000_000)
    try:
        yield 3_000_000
    finally:
        cache.clear()
        cache.resize(max_size=old)


def held() -> int:
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


def test_the_estimate_of_an_entry_is_close_to_the_memory_it_holds(bound: int) -> None:
    text = report(1)
    evidence._build(text)  # the stemmer's cache warmed: what follows is the index alone
    tracemalloc.start()
    try:
        before = held()
        index = evidence._build(text)
        measured = held() - before
    finally:
        tracemalloc.stop()
    # The estimate counts the term strings as well, which the stemmer's cache shares while
    # it holds them (measured here: allocated before), and the index keeps alive after.
    terms = sum(sys.getsizeof(term) for term in index.slots)
    assert 0.95 * measured <= index.nbytes - terms <= 1.05 * measured
    assert index.nbytes < 4 * len(text)  # was about 13 bytes per character


def test_documents_indexed_then_dropped_leave_at_most_the_bound_held(bound: int) -> None:
    texts = [report(n) for n in range(2, 6)]
    for text in texts:  # warm the stemmer's cache, outside the measure
        evidence.claim_terms(text[:50_000])
    tracemalloc.start()
    try:
        before = held()
        for n in range(len(texts)):
            EvidenceLocator({"report": texts[n]}).locate("accuracy on benchmarks", ["report"])
        texts.clear()  # the app lets its documents go; only the cache may still hold them
        kept = held() - before
    finally:
        tracemalloc.stop()
    cache = evidence._INDEXES
    assert 0 < len(cache) < 4 and cache.size <= bound
    assert kept <= 1.1 * bound + 200_000  # the stemmer's few new words aside


def test_an_entry_larger_than_the_bound_is_not_kept(bound: int) -> None:
    EvidenceLocator({"report": report(9, 1_600_000)}).locate("accuracy", ["report"])
    assert len(evidence._INDEXES) == 0
