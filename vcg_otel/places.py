"""Where a stretch of a rebuilt file text lies: in which chunks, and where in the file.

:mod:`vcg_otel.stitch` rebuilds the text of a file from chunks proven contiguous (a
:class:`Run`). A quote or a passage found in that text is reported in the terms the app knows:
the chunk keys it lies in, its offset in the first of them and in the last, and, when the
splitter said where its chunks sit, its offsets in the file. This module only maps offsets;
it proves nothing (that is :mod:`vcg_otel.stitch`'s job).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

__all__ = ["Piece", "Places", "Run"]


@dataclass(frozen=True, slots=True)
class Piece:
    """One chunk inside a run: its key, and where its text starts in the run's text.

    ``run.text[at:at + length]`` is the chunk's text, character for character.
    """

    key: str
    at: int
    length: int

    @property
    def end(self) -> int:
        return self.at + self.length


@dataclass(frozen=True, slots=True)
class Places:
    """Where ``[start, end)`` of a run's text lies.

    Attributes:
        chunks: the fewest consecutive chunks that hold it, in file order.
        chunk_start: its start in the first of them (offset in that chunk's text).
        chunk_end: its end in the last of them.
        file_start, file_end: its offsets in the file, when the splitter gave the chunks'
            offsets (``None`` when contiguity was proven by overlap alone).
    """

    chunks: tuple[str, ...]
    chunk_start: int
    chunk_end: int
    file_start: int | None
    file_end: int | None


@dataclass(frozen=True, slots=True)
class Run:
    """Consecutive chunks of one file, each proven to continue the one before, as one text.

    Attributes:
        key: a name for the rebuilt text (``first..last`` chunk keys), unique in its set.
        file: the file's identity the chunks share.
        text: the rebuilt text: the first chunk, then what each next one adds.
        pieces: the chunks in file order (at least two), starts increasing.
        file_start: the file offset of ``text[0]``, when known.
    """

    key: str
    file: str
    text: str
    pieces: tuple[Piece, ...]
    file_start: int | None

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(p.key for p in self.pieces)

    def places(self, start: int, end: int) -> Places:
        """Where ``text[start:end]`` lies (``0 <= start <= end <= len(text)``)."""
        pieces = self.pieces
        # the first chunk: of those that hold ``start``, the one reaching farthest (ends grow
        # with starts along a run, so: the last one starting at or before it)
        i = 0
        for k, p in enumerate(pieces):
            if p.at <= start < p.end or (p.at <= start and start == end == p.end):
                i = k
        cover = [pieces[i]]
        reach = pieces[i].end
        k = i
        while reach < end and k + 1 < len(pieces):
            # of the pieces starting inside what is covered: the first that reaches the end,
            # else the one reaching farthest
            best = k + 1
            for j in range(k + 1, len(pieces)):
                if pieces[j].at > reach:
                    break
                best = j
                if pieces[j].end >= end:
                    break
            k = best
            cover.append(pieces[k])
            reach = pieces[k].end
        first, last = cover[0], cover[-1]
        base = self.file_start
        return Places(tuple(p.key for p in cover), start - first.at, end - last.at,
                      None if base is None else base + start,
                      None if base is None else base + end)

    def segments(self, keys: Collection[str]) -> list[Run]:
        """The parts of this run made only of chunks in ``keys`` (at least two chunks each):
        a citation joins only chunks it named."""
        out: list[Run] = []
        begin = None
        for k, p in enumerate((*self.pieces, None)):
            if p is not None and p.key in keys:
                if begin is None:
                    begin = k
                continue
            if begin is not None and k - begin >= 2:
                out.append(self.part(begin, k))
            begin = None
        return out

    def part(self, i: int, j: int) -> Run:
        """The run of pieces ``i`` to ``j - 1`` (its text is a slice of this one's)."""
        if (i, j) == (0, len(self.pieces)):
            return self
        chosen = self.pieces[i:j]
        lo, hi = chosen[0].at, chosen[-1].end
        return Run(f"{chosen[0].key}..{chosen[-1].key}", self.file, self.text[lo:hi],
                   tuple(Piece(p.key, p.at - lo, p.length) for p in chosen),
                   None if self.file_start is None else self.file_start + lo)
