"""Joining chunks of one file (vcg_otel.stitch) over random cut points (hypothesis,
derandomized: the same examples on every run).

1. No frankenquote across chunks is accepted: whatever the cut points, overlaps, offsets (given
   or stripped), chunks retrieved (gaps) and their order, a quote that the whole file rejects
   is never ``found`` (nor ``misattributed``) in its chunks.
2. Every passage of the file is found in its chunks when all of them are retrieved and each
   overlaps the next (by the splitter's offsets, or by at least ``MIN_OVERLAP`` characters),
   with its file offsets when the offsets were given. (Chunks here are longer than their
   overlaps, as splitters make them: a chunk inside its neighbours' overlap can leave two
   chunks claiming one successor, and such a link is dropped, never guessed.)
"""

from __future__ import annotations

import itertools

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from support.splits import files

from vcg_otel import quote_gate
from vcg_otel.audit.models import Citation
from vcg_otel.documents import DocumentSet
from vcg_otel.stitch import MIN_OVERLAP, Locus

FILES = files(4)
_SETTINGS = settings(derandomize=True, max_examples=300, deadline=None)


def _words(text: str) -> list[tuple[int, int]]:
    spans, pos = [], 0
    for word in text.split(" "):
        if word:
            spans.append((pos, pos + len(word)))
        pos += len(word) + 1
    return spans


@st.composite
def chunked(draw: st.DrawFn, min_overlap: int = 0,
            min_size: int = 0) -> tuple[str, list[tuple[int, int]]]:
    """A file and its chunks ``(start, end)``: random cut points (at least ``min_size``
    apart), random overlaps."""
    text = draw(st.sampled_from(FILES))
    n = draw(st.integers(2, 8))
    cuts = sorted(draw(st.lists(st.integers(150, len(text) - 150), min_size=n - 1,
                                max_size=n - 1, unique=True)))
    bounds = [0, *cuts, len(text)]
    assume(all(b - a >= min_size for a, b in itertools.pairwise(bounds)))
    chunks = []
    for k in range(n):
        overlap = draw(st.integers(min_overlap, 160)) if k else 0
        chunks.append((max(0, bounds[k] - overlap), bounds[k + 1]))
    return text, chunks


def _set(text: str, chunks: list[tuple[int, int]], offsets: bool) -> DocumentSet:
    docs = DocumentSet()
    for pos, (start, end) in enumerate(chunks):
        docs.add_chunk(text[start:end], [("paper.txt", "path")], pos,
                       Locus("paper.txt", start if offsets else None))
    return docs


@_SETTINGS
@given(chunked(), st.booleans(), st.data())
def test_no_frankenquote_across_chunks_is_accepted(
        case: tuple[str, list[tuple[int, int]]], offsets: bool, data: st.DataObject) -> None:
    text, chunks = case
    retrieved = data.draw(st.lists(st.sampled_from(chunks), min_size=1, unique=True))
    words = _words(text)
    i = data.draw(st.integers(0, len(words) - 8))
    j = data.draw(st.integers(i + 1, min(i + 12, len(words) - 7)))
    k = data.draw(st.integers(j + 2, len(words) - 2))  # at least one word left out
    m = data.draw(st.integers(k, min(k + 12, len(words) - 1)))
    quote = text[words[i][0]:words[j][1]] + " " + text[words[k][0]:words[m][1]]
    assume(quote_gate(quote, "f", {"f": text}) == "not_found")  # the whole file rejects it
    docs = _set(text, retrieved, offsets)
    assert docs.gate(Citation("c", "paper.txt", quote)) == "not_found"
    assert docs.gate(Citation("c", None, quote)) == "not_found"


@_SETTINGS
@given(chunked(min_overlap=MIN_OVERLAP + 1, min_size=170), st.booleans(), st.data())
def test_every_passage_is_found_when_all_overlapping_chunks_are_retrieved(
        case: tuple[str, list[tuple[int, int]]], offsets: bool, data: st.DataObject) -> None:
    text, chunks = case
    order = data.draw(st.permutations(chunks))
    words = _words(text)
    i = data.draw(st.integers(0, len(words) - 1))
    j = data.draw(st.integers(i, min(i + 80, len(words) - 1)))
    quote = text[words[i][0]:words[j][1]]
    assume(quote_gate(quote, "f", {"f": text}) == "found")  # (markup: "$K$" reads as "K")
    match = _set(text, list(order), offsets).gate(Citation("c", "paper.txt", quote))
    assert match == "found"
    if offsets:  # the file's own text at the reported offsets
        m = match
        assert m.file_start is not None and m.file_end is not None  # type: ignore[union-attr]
        assert text[m.file_start:m.file_end] == m.text  # type: ignore[union-attr]
