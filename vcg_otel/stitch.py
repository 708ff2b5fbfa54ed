"""Chunks of one file are one text: rebuild it where, and only where, contiguity is proven.

Splitters (LlamaIndex's ``SentenceSplitter``, Haystack's ``DocumentSplitter``, LangChain's
``RecursiveCharacterTextSplitter``) cut a file into overlapping chunks, sentences included. A
model shown two consecutive chunks quotes the sentence the splitter cut; searched chunk by
chunk the quote is in neither, and an honest quote would read as a fabrication. Searched in
the file's text rebuilt from the chunks, it is one passage, as it is in the file.

Rebuilding must never invent text: a quote that joins two places of a file that are not
adjacent (a *frankenquote across chunks*) must stay ``not_found``. So chunk ``b`` is taken to
continue chunk ``a`` (same file) only when that is proven:

* **by the splitter's offsets**, when both chunks carry them (:class:`Locus.start`: LlamaIndex
  ``start_char_idx``, Haystack ``split_idx_start``, LangChain ``start_index`` with
  ``add_start_index=True``): ``b`` starts inside ``a`` or exactly at its end, reaches past
  its end, and the two texts agree character for character where they overlap. A chunk
  starting at most :data:`MAX_BRIDGED_GAP` characters after ``a``'s end is adjacent too:
  splitters strip the whitespace at chunk edges (LlamaIndex's ``SentenceSplitter`` the space
  where it starts a chunk without overlap, LangChain's the blank line where it cuts at a
  paragraph), so the offsets leave a gap that held whitespace; it is rebuilt as spaces (a
  quote crossing it must have whitespace there too). A wider gap is never bridged: what it
  held is not known;
* **by an exact overlap**, when either lacks offsets: ``a`` ends with the first
  :data:`MIN_OVERLAP` or more characters of ``b``, at exactly one place (a repeated
  passage, where the alignment would be a guess, links nothing).

A chunk with several candidate successors takes the nearest (the offsets or the overlap say
which); a chunk claimed as successor by several is linked to none. Chains of links become
:class:`~vcg_otel.places.Run` s; chunks of different files are never compared, and a chunk
retrieved alone (chunk 3 and chunk 7) stays a text of its own.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .places import Piece, Run

__all__ = ["MAX_BRIDGED_GAP", "MIN_OVERLAP", "Locus", "runs"]

#: The shortest exact overlap that proves two chunks without offsets consecutive: a few dozen
#: characters of prose do not recur by chance, and splitters overlap by far more (LangChain's
#: and Haystack's overlaps are typically 50-200 characters, LlamaIndex's 20-200 tokens).
MIN_OVERLAP = 40

#: The widest gap between two chunks' offsets taken for the whitespace a splitter stripped at
#: the boundary (a space, or a paragraph's blank line), and rebuilt as spaces.
MAX_BRIDGED_GAP = 2


@dataclass(frozen=True, slots=True)
class Locus:
    """Where a chunk says it comes from.

    Attributes:
        file: the identity of the file it was split from (LlamaIndex ``ref_doc_id``, the
            metadata ``file_path``/``source``/``file_name``, Haystack's ``source_id``).
        start: the offset of its first character in the file, from the splitter (``None``
            when not given or not consistent with its text).
    """

    file: str
    start: int | None = None


Item = tuple[str, str, Locus]  # (chunk key, text, locus)


def _follows(a: Item, b: Item) -> int | None:
    """Where ``b``'s text starts in ``a``'s coordinates, if ``b`` is proven to continue ``a``
    (and reaches past its end); else ``None``."""
    _, ta, la = a
    _, tb, lb = b
    if la.start is not None and lb.start is not None:
        shift = lb.start - la.start
        if 0 < shift <= len(ta) < shift + len(tb) and ta[shift:] == tb[:len(ta) - shift]:
            return shift
        if (len(ta) < shift <= len(ta) + MAX_BRIDGED_GAP and tb and ta
                and not ta[-1].isspace() and not tb[0].isspace()):
            return shift  # adjacent: the splitter stripped the whitespace between them
        return None
    if len(tb) <= MIN_OVERLAP or len(ta) < MIN_OVERLAP:
        return None
    probe = tb[:MIN_OVERLAP]
    found = None
    # an overlap shorter than b: b must add something; longer than MIN_OVERLAP: proven
    pos = ta.find(probe, max(1, len(ta) - len(tb) + 1))
    while pos != -1 and pos <= len(ta) - MIN_OVERLAP:
        if ta.endswith(tb[:len(ta) - pos]):
            if found is not None:
                return None  # two alignments: which one is true is a guess
            found = pos
        pos = ta.find(probe, pos + 1)
    return found


def runs(items: Iterable[Item], reserved: Iterable[str] = ()) -> tuple[Run, ...]:
    """The runs of at least two chunks proven consecutive (module doc), file by file. Chunks
    are compared only with chunks of the same file. Run keys avoid ``reserved`` (the chunk
    keys)."""
    by_file: dict[str, list[Item]] = {}
    for item in items:
        by_file.setdefault(item[2].file, []).append(item)
    out: list[Run] = []
    taken: set[str] = set(reserved)
    for file, members in by_file.items():
        if len(members) < 2:
            continue
        nearest: dict[int, tuple[int, int]] = {}  # a -> (shift, b)
        for i, a in enumerate(members):
            for j, b in enumerate(members):
                if i == j:
                    continue
                shift = _follows(a, b)
                if shift is not None and (i not in nearest or shift < nearest[i][0]):
                    nearest[i] = (shift, j)
        claimed: dict[int, list[int]] = {}
        for i, (_, j) in nearest.items():
            claimed.setdefault(j, []).append(i)
        succ = {i: (s, j) for i, (s, j) in nearest.items() if len(claimed[j]) == 1}
        has_pred = {j for _, j in succ.values()}
        for i in range(len(members)):
            if i in has_pred or i not in succ:
                continue
            chain, shifts, seen = [i], [0], {i}
            while chain[-1] in succ and succ[chain[-1]][1] not in seen:
                s, j = succ[chain[-1]]
                chain.append(j)
                shifts.append(shifts[-1] + s)
                seen.add(j)
            out.append(_run(file, [members[k] for k in chain], shifts, taken))
    return tuple(out)


def _run(file: str, chain: list[Item], ats: list[int], taken: set[str]) -> Run:
    parts = [chain[0][1]]
    end = len(chain[0][1])
    for (_, text, _), at in zip(chain[1:], ats[1:], strict=True):
        if at > end:  # a bridged gap (MAX_BRIDGED_GAP): the whitespace the splitter stripped
            parts.append(" " * (at - end))
        parts.append(text[max(0, end - at):])
        end = at + len(text)
    text = "".join(parts)
    pieces = tuple(Piece(key, at, len(t)) for (key, t, _), at in zip(chain, ats, strict=True))
    # the file offset of text[0], if every chunk that states its offset agrees with it
    starts = {loc.start - at for (_, _, loc), at in zip(chain, ats, strict=True)
              if loc.start is not None}
    base = starts.pop() if len(starts) == 1 else None
    key = f"{pieces[0].key}..{pieces[-1].key}"
    while key in taken:
        key += "'"
    taken.add(key)
    return Run(key, file, text, pieces, base)
