"""Files written by people, cut into chunks by the real splitters, and the oracle of where
each chunk lies in its file (for the tests of joining chunks of one file, vcg_otel.stitch).

The files are arXiv abstracts (benchmarks/data): prose, with sentences long enough that a
splitter cuts them. Each splitter is configured with an overlap of a few dozen characters or
more, as apps configure them; :func:`without_offsets` returns the same chunks with the
splitter's offsets stripped (contiguity then rests on the overlap alone).
"""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from support.paths import ROOT
from vcg_otel.documents import DocumentSet

SPLITTERS = ("llamaindex", "haystack", "langchain")


def abstracts() -> dict[str, str]:
    with open(ROOT / "benchmarks" / "data" / "arxiv_abstracts_295.json", encoding="utf-8") as f:
        data: dict[str, str] = json.load(f)
    return data


def files(count: int = 2) -> list[str]:
    """The ``count`` longest abstracts (about 1.9 kB each): several chunks per file."""
    return sorted(abstracts().values(), key=len, reverse=True)[:count]


@dataclass(frozen=True)
class Split:
    """One file cut by one splitter: its framework chunks, and where each lies in the file
    (the splitter's own offsets, checked against the file's text)."""

    splitter: str
    path: str
    file: str
    chunks: list[Any]
    spans: list[tuple[int, int]]

    def across_two(self) -> int | None:
        """An index ``i`` where chunks ``i``, ``i + 1``, ``i + 2`` overlap in a chain and
        chunk ``i + 2`` starts after chunk ``i`` ends (a quote from chunk ``i`` past chunk
        ``i + 1`` needs all three), if any."""
        joinable = self.joinable()
        return next((i for i in joinable if i + 1 in joinable
                     and self.spans[i + 2][0] >= self.spans[i][1]), None)

    def apart(self) -> tuple[int, int]:
        """Two chunks with a gap between them: ``i`` and the first chunk starting after it
        ends, with chunks between (they overlap ``i``, and are left out)."""
        for i, (_, end) in enumerate(self.spans):
            j = next((j for j in range(i + 2, len(self.spans)) if self.spans[j][0] > end),
                     None)
            if j is not None:
                return i, j
        raise AssertionError("no gap")

    def joinable(self) -> list[int]:
        """Indexes ``i`` whose next chunk starts inside chunk ``i`` (they overlap): the
        boundaries a quote may cross."""
        return [i for i in range(len(self.spans) - 1)
                if self.spans[i][0] < self.spans[i + 1][0] < self.spans[i][1]
                < self.spans[i + 1][1]]


def split(splitter: str, text: str, path: str) -> Split:
    """``text`` (a file named ``path``) cut by ``splitter`` (one of :data:`SPLITTERS`)."""
    if splitter == "llamaindex":
        from llama_index.core import Document
        from llama_index.core.node_parser import SentenceSplitter

        nodes = SentenceSplitter(chunk_size=96, chunk_overlap=32).get_nodes_from_documents(
            [Document(text=text, metadata={"file_name": path})])
        spans = [(n.start_char_idx, n.end_char_idx) for n in nodes]
        chunks: list[Any] = list(nodes)
    elif splitter == "haystack":
        from haystack import Document
        from haystack.components.preprocessors import DocumentSplitter

        docs = DocumentSplitter(split_by="word", split_length=50, split_overlap=12).run(
            [Document(content=text, meta={"file_path": path})])["documents"]
        spans = [(d.meta["split_idx_start"], d.meta["split_idx_start"] + len(d.content))
                 for d in docs]
        chunks = list(docs)
    elif splitter == "langchain":
        from langchain_core.documents import Document as LCDocument
        from langchain_text_splitters import RecursiveCharacterTextSplitter

        lc = RecursiveCharacterTextSplitter(
            chunk_size=320, chunk_overlap=96, add_start_index=True).split_documents(
            [LCDocument(page_content=text, metadata={"source": f"corpus/{path}"})])
        spans = [(d.metadata["start_index"], d.metadata["start_index"] + len(d.page_content))
                 for d in lc]
        chunks = list(lc)
    else:
        raise ValueError(splitter)
    for chunk, (start, end) in zip(chunks, spans, strict=True):
        assert text[start:end] == _text(chunk), (splitter, start)
    return Split(splitter, path, text, chunks, spans)


def _text(chunk: Any) -> str:
    for attr in ("page_content", "content", "text"):
        value = getattr(chunk, attr, None)
        if isinstance(value, str):
            return value
    raise TypeError(type(chunk))


def without_offsets(s: Split) -> list[Any]:
    """The same chunks, with every offset the splitter recorded removed."""
    if s.splitter == "llamaindex":
        return [n.model_copy(update={"start_char_idx": None, "end_char_idx": None})
                for n in s.chunks]
    if s.splitter == "haystack":
        from haystack import Document

        drop = {"split_idx_start", "_split_overlap"}
        return [Document(content=d.content, meta={k: v for k, v in d.meta.items()
                                                  if k not in drop}) for d in s.chunks]
    from langchain_core.documents import Document as LCDocument

    return [LCDocument(page_content=d.page_content,
                       metadata={k: v for k, v in d.metadata.items() if k != "start_index"})
            for d in s.chunks]


def _word_start(text: str, pos: int) -> int:
    """The start of the word at or after ``pos``... moved back to the word holding ``pos``."""
    space = text.rfind(" ", 0, pos)
    return space + 1


def _word_end(text: str, pos: int) -> int:
    space = text.find(" ", pos)
    return len(text) if space == -1 else space


def crossing(s: Split, i: int, boundaries: int = 1) -> tuple[str, int, int]:
    """A quote of the file as a model writes it (whole words) that starts in chunk ``i`` only
    and ends past chunk ``i + boundaries - 1``: in no ``boundaries`` consecutive chunks but
    in ``boundaries + 1``. Returns ``(quote, file start, file end)``."""
    start = _word_start(s.file, s.spans[i + 1][0] - 12)
    end = _word_end(s.file, s.spans[i + boundaries - 1][1] + 12)
    quote = s.file[start:end].rstrip(".,;:?!")
    end = start + len(quote)
    assert start < s.spans[i + 1][0] and end > s.spans[i + boundaries - 1][1]
    return quote, start, end


@contextmanager
def collector_paused() -> Iterator[None]:
    """No garbage collection inside: building many framework objects leaves the collector
    work, and a collection falling inside one attribute read of the document walk can exceed
    its slow-read cut and end the walk early (a flaky test, not a behaviour)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def documents(*sources: Any) -> DocumentSet:
    """The document set an audit builds from ``sources``, read with the collector paused."""
    with collector_paused():
        return DocumentSet.from_sources(*sources)
