"""Issue 19, item 7: building the evidence index of a big document must not freeze the
host's thread. The builder indexes in slices and gives the GIL up between two slices, and
what it builds is arrays, not millions of tuples for the collector to walk (a gen-2
collection over them held the GIL for 0.3 s at a time). Proved by counting, not by timing;
the stalls themselves are measured by benchmarks/host_stall.py."""

from __future__ import annotations

import gc
import json
from types import SimpleNamespace

import pytest
from support.paths import ROOT

from vcg_otel import evidence
from vcg_otel.evidence import MAX_SENTENCE_CHARS, EvidenceLocator, sentence_spans

ABSTRACTS: dict[str, str] = json.loads(
    (ROOT / "benchmarks/data/arxiv_abstracts_295.json").read_text(encoding="utf-8"))
REPORT = "\n\n".join(ABSTRACTS.values())  # 430 kB of real prose


def test_the_builder_pauses_after_each_slice_of_text(monkeypatch: pytest.MonkeyPatch) -> None:
    slice_chars = 4_000
    monkeypatch.setattr(evidence, "INDEX_SLICE_CHARS", slice_chars)
    read = [0]  # characters handed to the term counter since the last pause
    between: list[int] = []
    count_terms = evidence.claim_terms

    def counting(text: str) -> object:
        read[0] += len(text)
        return count_terms(text)

    def pause() -> None:
        between.append(read[0])
        read[0] = 0

    monkeypatch.setattr(evidence, "claim_terms", counting)
    monkeypatch.setattr(evidence, "_pause", pause)
    evidence._build(REPORT)
    assert len(between) >= len(REPORT) // (slice_chars + MAX_SENTENCE_CHARS) - 1
    assert max(between) < slice_chars + MAX_SENTENCE_CHARS  # never more than a slice at once
    assert read[0] < slice_chars + MAX_SENTENCE_CHARS  # the tail after the last pause


def test_the_pause_between_slices_gives_the_gil_up(monkeypatch: pytest.MonkeyPatch) -> None:
    slept: list[float] = []
    monkeypatch.setattr(evidence, "time", SimpleNamespace(sleep=slept.append))
    evidence._pause()
    assert slept == [0]  # time.sleep releases the GIL, even for 0 s


def test_an_index_gives_the_collector_a_handful_of_objects_whatever_its_size() -> None:
    index = evidence._build(REPORT)
    tracked, stack, seen = 0, [index], set()
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, type):  # an instance refers to its class
            continue
        seen.add(id(obj))
        if gc.is_tracked(obj):
            tracked += 1
            stack.extend(gc.get_referents(obj))
    postings = sum(index.df(term) for term in index.slots)
    assert postings > 30_000
    assert tracked < 10  # the index, its spans, its table: the arrays are not tracked


@pytest.mark.parametrize("slice_chars", [250, 1_000, 16_384])
@pytest.mark.parametrize("layout", ["paragraphs", "one paragraph", "list items"])
def test_sentences_found_window_by_window_are_those_of_the_whole_text(
        monkeypatch: pytest.MonkeyPatch, slice_chars: int, layout: str) -> None:
    texts = list(ABSTRACTS.values())[:120]
    text = {"paragraphs": "\n\n".join(texts), "one paragraph": " ".join(texts),
            "list items": "\n".join(f"- {t}" for t in texts)}[layout]
    monkeypatch.setattr(evidence, "INDEX_SLICE_CHARS", slice_chars)
    assert list(evidence._sentences(text)) == sentence_spans(text)


def test_the_sliced_index_locates_what_the_whole_text_holds() -> None:
    key = list(ABSTRACTS)[200]
    sentence = ABSTRACTS[key].split(". ")[1]
    found = EvidenceLocator({"report": REPORT}).locate(sentence, ["report"])
    top = found.passages[0]
    assert sentence in REPORT[top.start:top.end] and found.coverage == 1.0
