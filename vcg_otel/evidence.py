"""Stage 1 for a citation without a quote: does the source exist, and where is the evidence?

Most answers cite without quoting (``... fell by 30% [3].``). Nothing verbatim can be checked,
but two deterministic questions can still be answered at zero tokens:

* **Does the cited source exist?** :func:`check_source` resolves the cited identifier through
  the document model (:class:`~vcg_otel.documents.DocumentSet`: every id, path, basename, stem
  and position a prompt could have shown). A citation that resolves to nothing while documents
  were retrieved is a *fabricated citation* (``unknown_source``): the model pointed at a source
  it was never given. With no documents at all nothing can be said (``unverifiable``), never a
  fabrication.
* **Where is the evidence?** :class:`EvidenceLocator` ranks the sentences of the cited
  document(s) against the claim with BM25 over the gate's normalization
  (:func:`vcg_otel.gate.normalize`: case, typography, ligatures, look-alike letters, layout), and
  returns the best *passages* (a matched sentence with a neighbour on each side) with their
  offsets in the **original** text, so the judge reads a bounded window whatever the
  document's size, and users can click through.

Scoring (why it looks like this): claims reuse the source's content words in another order,
with words dropped and numbers kept; BM25 over sentences rewards exactly that, independent of
order. Tokens are normalized words; numbers are kept whole (``3.5%``, ``1,200``) and weigh
:data:`NUMBER_WEIGHT` times a word, because a number shared by claim and sentence is strong
evidence; a short stop-word list is ignored; a light suffix stripper lets ``improves`` meet
``improved``. IDF is computed over the sentences of *all* retrieved documents, so scores of
different documents are comparable.

**Misattribution signal.** When a document the answer did not cite matches the claim clearly
better than the cited one (best sentence score at least :data:`SIGNAL_RATIO` times the cited
one's, and covering at least :data:`SIGNAL_MIN_COVERAGE` of the claim's weight), the locator
records it with both scores. It is a *signal*, never a verdict: lexical overlap is not proof
that the answer meant the other document.

Costs: a document is split and indexed once per text (an LRU keyed by content, like the gate's
:class:`~vcg_otel.gate.DocumentCache`); a claim is then scored through posting lists, touching
only sentences that share a word with it.
"""

from __future__ import annotations

import math
import re
import sys
import threading
import time
from array import array
from collections import Counter
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from ._deadline import Deadline, DeadlineReached
from ._executor import DaemonExecutor
from ._lru import BoundedLRU
from .documents import DocumentSet
from .gate.normalize import normalize
from .otel import semconv

__all__ = [
    "DEFAULT_TOP_K",
    "NUMBER_WEIGHT",
    "SIGNAL_MIN_COVERAGE",
    "SIGNAL_RATIO",
    "Evidence",
    "EvidenceLocator",
    "Misattribution",
    "Passage",
    "QuotelessStage",
    "SourceCheck",
    "SourceEvidence",
    "check_source",
    "claim_terms",
    "evidence_attributes",
    "sentence_spans",
]

#: Passages handed to the judge (see :mod:`vcg_otel.judge.evidence_prompt` for why three).
DEFAULT_TOP_K = 3
#: A number shared by claim and sentence counts this many times a word.
NUMBER_WEIGHT = 2.0
#: Another document must score at least this many times the cited one ...
SIGNAL_RATIO = 1.5
#: ... and cover at least this fraction of the claim's term weight, to raise the signal.
SIGNAL_MIN_COVERAGE = 0.5
#: A sentence longer than this is cut at whitespace (lists, tables and PDFs without periods):
#: passages stay bounded whatever the layout.
MAX_SENTENCE_CHARS = 600
#: Characters of one passage (a sentence plus neighbours) at most.
MAX_PASSAGE_CHARS = 1_200
_K1 = 1.2
_B = 0.75

# A sentence ends after . ! ? (and closing quotes/brackets) before whitespace and a capital,
# digit or opening mark; at a blank line; or before a list item on a new line.
_SENTENCE_END = re.compile(
    r"(?<=[.!?])[\"'\u201d\u2019)\]]*\s+(?=[\"'\u201c\u2018(\[]?[A-Z0-9\u00c0-\u024f])"
    r"|\n[ \t]*\n\s*|\n(?=[ \t]*(?:[-*\u2022#>]|\d{1,3}[.)])\s)"
)
_ABBREVIATION = re.compile(r"(?:\b(?:e\.g|i\.e|et al|etc|vs|cf|fig|eq|no|dr|mr|ms|mrs|st)\.|"
                           r"\b[A-Z]\.)$", re.IGNORECASE)
_TOKEN = re.compile(r"\w+(?:[.,]\d+)*%?")
_STOP_WORDS = (
    "a an and are as at be been being but by can could did do does for from had has have he her "
    "his i if in into is it its itself me more most my of on or our over she so such than that "
    "the their them then there these they this those through to too under up very was we were "
    "what when where which while who whom why will with would you your also both each"
)
_STOP = frozenset(_STOP_WORDS.split())
_SUFFIXES = ("ingly", "ities", "ation", "ings", "ness", "ment", "ies", "ing", "ity", "ed",
             "es", "ly", "s")

Resolution = Literal["id", "path", "basename", "stem", "position", "case_insensitive",
                     "unresolved"]


# --- does the source exist? -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SourceCheck:
    """Where a cited identifier leads.

    Attributes:
        cited: the identifier as cited (``None`` when the citation names none).
        group: keys of the chunks it names (empty when unresolved).
        resolution: the level that matched (as in :mod:`vcg_otel.documents`) or ``unresolved``.
        documents: how many chunks were retrieved in all.
    """

    cited: str | None
    group: tuple[str, ...]
    resolution: str
    documents: int

    @property
    def unknown(self) -> bool:
        """A fabricated citation: an identifier that names none of the retrieved documents.

        ``False`` when nothing was retrieved (nothing can be said) or nothing was cited.
        """
        return self.documents > 0 and self.cited is not None and not self.group


def check_source(documents: DocumentSet, cited: str | None,
                 position_base: int | None = None) -> SourceCheck:
    """Resolve a cited identifier; :attr:`SourceCheck.unknown` says it names no document.

    Identifiers resolve as :meth:`DocumentSet.resolve` does (an explicit id wins over a
    position). ``position_base`` (``0`` or ``1``) makes a cited number a strict position under
    that convention (``[5]`` of five sources is the fifth under ``1``, unknown under ``0``);
    ``None`` keeps the set's own rule. Positions count in the order the chunks were retrieved;
    documents given as a mapping (no positions) count in the mapping's order.
    """
    if position_base not in (None, 0, 1):
        raise ValueError("position_base must be None, 0 or 1")
    if cited is None:
        return SourceCheck(None, (), "unresolved", len(documents.chunks))
    group, how = documents.resolve(cited)
    if how in ("position", "case_insensitive", "unresolved"):
        positional = _position(documents, cited, position_base)
        if positional is not None and (position_base is not None or how == "unresolved"):
            group, how = positional, ("position" if positional else "unresolved")
    return SourceCheck(cited, group, how, len(documents.chunks))


def _position(documents: DocumentSet, cited: str,
              base: int | None) -> tuple[str, ...] | None:
    """The chunks at a cited number's position (``None``: not a number). Base ``None``
    accepts 0- and 1-based, as :class:`DocumentSet` does."""
    ident = cited.strip().strip("[]").strip()
    if not ident.isdigit() or len(ident) > 9:
        return None
    wanted = [int(ident) - b for b in ((0, 1) if base is None else (base,))]
    chunks = documents.chunks
    if any(c.position is not None for c in chunks):
        return tuple(c.key for n in wanted for c in chunks if c.position == n)
    return tuple(chunks[n].key for n in wanted if 0 <= n < len(chunks))


# --- where is the evidence? -----------------------------------------------------------------


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Half-open ``(start, end)`` spans of the sentences of ``text``, whitespace trimmed.

    Sentences end at ``. ! ?`` before a capital letter, digit or opening mark (not after a
    common abbreviation or an initial), at blank lines and before list items; a sentence
    longer than :data:`MAX_SENTENCE_CHARS` is cut at whitespace.
    """
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _SENTENCE_END.finditer(text):
        if m.group().strip() == "" and not m.group().count("\n") and _ABBREVIATION.search(
                text, max(start, m.start() - 8), m.start()):
            continue
        _add_span(text, start, m.start(), spans)
        start = m.end()
    _add_span(text, start, len(text), spans)
    return spans


def _add_span(text: str, start: int, end: int, spans: list[tuple[int, int]]) -> None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    while end - start > MAX_SENTENCE_CHARS:
        cut = text.rfind(" ", start + MAX_SENTENCE_CHARS // 2, start + MAX_SENTENCE_CHARS)
        cut = cut if cut != -1 else start + MAX_SENTENCE_CHARS
        spans.append((start, cut))
        start = cut
        while start < end and text[start].isspace():
            start += 1
    if end > start:
        spans.append((start, end))


@lru_cache(maxsize=65_536)
def _stem(word: str) -> str:
    if len(word) <= 4 or word[-1].isdigit():
        return word
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def _is_number(term: str) -> bool:
    return term[0].isdigit() or term[-1] == "%"


def claim_terms(text: str) -> Counter[str]:
    """The terms BM25 counts in ``text``: normalized, stop words dropped, lightly stemmed."""
    return Counter(_stem(t) for t in _TOKEN.findall(normalize(text)) if t not in _STOP)


# --- the sentence index of one document, and the cache of them -------------------------------
#
# Memory and the host's thread (issue 19, items 7 and 8). An index of tuples (a (sentence, tf)
# tuple per posting) held about 13 bytes per character of text, and building it for a 20 MB
# document left the collector millions of new objects to traverse: gen-2 collections that held
# the GIL for 0.3 s at a time, a freeze of every other thread, the host's included. The index
# is made of arrays instead (machine integers, 4 bytes each, no objects for the collector to
# walk), and it is built in slices of :data:`INDEX_SLICE_CHARS` characters, with the GIL
# released between two slices (:func:`_pause`).

#: Characters of text indexed between two pauses of the builder (some 10 ms of work).
INDEX_SLICE_CHARS = 16_384
#: The evidence-index cache holds at most this many bytes (estimated: ``sys.getsizeof`` of
#: each index's arrays, terms and table, plus the text it indexes, which the cache keeps
#: alive as its key); an entry larger than this alone is not kept ...
INDEX_CACHE_BYTES = 128 * 2**20
#: ... and at most this many documents.
INDEX_CACHE_ENTRIES = 256


def _pause() -> None:
    """Between two slices of a build: release the GIL, so other threads (the host's) run.

    ``time.sleep(0)`` gives the GIL up and takes it back; a thread waiting for it gets it.
    """
    time.sleep(0)


class _Spans:
    """Sentence spans as two arrays of offsets, read as ``(start, end)`` pairs."""

    __slots__ = ("ends", "starts")

    def __init__(self, starts: array[int], ends: array[int]) -> None:
        self.starts, self.ends = starts, ends

    def __len__(self) -> int:
        return len(self.starts)

    def __getitem__(self, i: int) -> tuple[int, int]:
        return self.starts[i], self.ends[i]


@dataclass(frozen=True, slots=True)
class _DocIndex:
    """One document's sentences: spans in the original text, term counts, posting lists.

    The posting list of a term is ``flat[offsets[slot]:offsets[slot + 1]]`` for its slot in
    ``slots``: ``sentence, tf, sentence, tf, ...`` (:meth:`pairs`). A handful of objects in
    all, whatever the size (an array per term would be one more object per term for every
    collection to walk). ``nbytes`` estimates the memory the index holds (the cache's
    measure).
    """

    spans: _Spans
    lengths: array[int]
    slots: Mapping[str, int]
    offsets: array[int]
    flat: array[int]
    total: int  # sum of lengths
    nbytes: int

    def pairs(self, term: str) -> Iterable[tuple[int, int]]:
        """``(sentence, tf)`` for each sentence holding ``term``."""
        slot = self.slots.get(term)
        if slot is None:
            return ()
        flat = iter(self.flat[self.offsets[slot]:self.offsets[slot + 1]])
        return zip(flat, flat, strict=False)  # one iterator read two at a time

    def df(self, term: str) -> int:
        """How many sentences hold ``term``."""
        slot = self.slots.get(term)
        return 0 if slot is None else (self.offsets[slot + 1] - self.offsets[slot]) // 2


def _sentences(text: str) -> Iterator[tuple[int, int]]:
    """:func:`sentence_spans` of ``text``, found a window of 4 slices at a time: no list of
    every sentence of a 50 MB text at once (a million tuples for the collector to walk).

    Where a sentence ends depends only on the few characters around the end (and on where
    the sentence began, for the abbreviation and length rules), so each window's spans but
    its last are final, and the next window starts where that last one starts.
    """
    window = 4 * INDEX_SLICE_CHARS
    pos = 0
    while True:
        spans = sentence_spans(text[pos:pos + window])
        if pos + window >= len(text):
            yield from ((pos + a, pos + b) for a, b in spans)
            return
        step = spans[-1][0] if spans else window
        if step <= 0:  # one span filling the window: impossible (spans are short), but safe
            step = window
            spans.append((0, 0))
        yield from ((pos + a, pos + b) for a, b in spans[:-1])
        pos += step


def _build(text: str, deadline: Deadline | None = None) -> _DocIndex:
    """Index ``text`` sentence by sentence, pausing after each :data:`INDEX_SLICE_CHARS`;
    then lay the posting lists end to end in one array (pausing as well). At each pause the
    ``deadline`` is looked at: :class:`~vcg_otel._deadline.DeadlineReached` once it passed
    (half an index is no index: nothing is kept)."""
    code = "I" if len(text) < 2**32 else "q"
    starts, ends, lengths = array(code), array(code), array("I")
    growing: dict[str, array[int]] = {}
    since = 0
    for i, (start, end) in enumerate(_sentences(text)):
        terms = claim_terms(text[start:end])
        starts.append(start)
        ends.append(end)
        lengths.append(sum(terms.values()))
        for term, tf in terms.items():
            postings = growing.get(term)
            if postings is None:
                growing[term] = postings = array("I")
            postings.append(i)
            postings.append(tf)
        since += end - start
        if since >= INDEX_SLICE_CHARS:
            since = 0
            _pause()
            if deadline is not None:
                deadline.check()
    slots: dict[str, int] = {}
    flat, offsets = array("I"), array("Q", [0])
    for slot, (term, postings) in enumerate(growing.items()):
        slots[term] = slot
        flat.extend(postings)
        offsets.append(len(flat))
        since += len(postings)
        if since >= INDEX_SLICE_CHARS:
            since = 0
            _pause()
            if deadline is not None:
                deadline.check()
    growing.clear()
    nbytes = (sum(sys.getsizeof(part) for part in (starts, ends, lengths, slots, offsets, flat))
              + sum(sys.getsizeof(term) + sys.getsizeof(slot) for term, slot in slots.items()))
    return _DocIndex(_Spans(starts, ends), lengths, slots, offsets, flat, sum(lengths), nbytes)


_INDEXES: BoundedLRU[str, _DocIndex] = BoundedLRU(INDEX_CACHE_ENTRIES, INDEX_CACHE_BYTES, len)


def _index(text: str, deadline: Deadline | None = None) -> _DocIndex:
    """``text``'s index, from the cache when it was built recently. Only a plain ``str`` is
    cached (a subclass may compare equal to another text); an entry's size is the index's
    estimated bytes plus the text's own (the key keeps the text alive). A build cut by the
    ``deadline`` raises and caches nothing."""
    if type(text) is not str:
        return _build(text, deadline)
    hit = _INDEXES.get(text)
    if hit is None:
        hit = _build(text, deadline)
        _INDEXES.put(text, hit, hit.nbytes + sys.getsizeof(text))
    return hit


# --- builds the foreground deadline cut, finished off the host's wait --------------------------
#
# A build the deadline cuts is thrown away; the next call over the same documents would be cut
# the same way, for ever. The texts of the cut locator are indexed instead on one daemon
# thread (in slices that let the host run, as every build), so that a later call finds them
# in the cache. Only when they all fit in the cache; a few texts at a time.

#: Texts waiting to be indexed after a cut, at most (more are not queued).
FINISH_QUEUE = 8
_FINISHING: dict[int, str] = {}  # id -> text, queued or being indexed
_FINISH_LOCK = threading.Lock()
_FINISHER: list[DaemonExecutor] = []  # made on first use


def _finish_later(texts: Collection[str]) -> Future[None] | None:
    """Index ``texts`` on the finisher thread (those not cached nor queued already); the
    future of that work, or ``None`` when nothing was queued (all cached, or too many)."""
    if len(texts) > INDEX_CACHE_ENTRIES:  # they could never all be cached at once
        return None
    with _FINISH_LOCK:
        todo = [t for t in texts if type(t) is str and id(t) not in _FINISHING
                and _cacheable(t) and _INDEXES.get(t) is None]
        if not todo or len(_FINISHING) + len(todo) > FINISH_QUEUE:
            return None
        for text in todo:
            _FINISHING[id(text)] = text
        if not _FINISHER:
            _FINISHER.append(DaemonExecutor(1, "vcg-otel-evidence"))
        return _FINISHER[0].submit(_finish, todo)


#: An index alone costs about this many bytes per character of English prose (measured: 63 MB
#: for a 20 MB text, the text's own 20 MB included): the cache's entry is that plus the text.
_BYTES_PER_CHAR = 2


def _cacheable(text: str) -> bool:
    """Whether ``text``'s index would fit in the cache (else building it later is waste)."""
    return len(text) * _BYTES_PER_CHAR + sys.getsizeof(text) <= INDEX_CACHE_BYTES


def _finish(texts: list[str]) -> None:
    try:
        for text in texts:
            _index(text)
    finally:
        with _FINISH_LOCK:
            for text in texts:
                _FINISHING.pop(id(text), None)


@dataclass(frozen=True, slots=True)
class Passage:
    """A stretch of a document that matches the claim.

    Attributes:
        document_id: the chunk key (:attr:`vcg_otel.documents.Chunk.key`) whose text the
            offsets index.
        start, end: half-open offsets of the passage in that chunk's original text (the
            matched sentence with up to one neighbour on each side).
        sentence_start, sentence_end: the matched sentence itself.
        score: the BM25 score of the matched sentence.
        text: the passage's original text.
    """

    document_id: str
    start: int
    end: int
    sentence_start: int
    sentence_end: int
    score: float
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {"document_id": self.document_id, "start": self.start, "end": self.end,
                "sentence_start": self.sentence_start, "sentence_end": self.sentence_end,
                "score": round(self.score, 4)}


@dataclass(frozen=True, slots=True)
class Misattribution:
    """Another retrieved document matches the claim clearly better than the cited one.

    A signal for telemetry and review, never a verdict on its own.
    """

    document_id: str
    score: float
    cited_score: float
    coverage: float

    def to_dict(self) -> dict[str, Any]:
        return {"document_id": self.document_id, "score": round(self.score, 4),
                "cited_score": round(self.cited_score, 4), "coverage": round(self.coverage, 4)}


@dataclass(frozen=True, slots=True)
class Evidence:
    """The located evidence for one claim in the cited document(s).

    Attributes:
        passages: best first, at most ``top_k``; empty when no sentence shares a term with
            the claim (the judge then has nothing to read: see the evidence prompt).
        score: the best cited sentence's score (0.0 when nothing matched).
        coverage: the fraction of the claim's term weight that sentence contains.
        signal: the misattribution signal, or ``None``.
    """

    passages: tuple[Passage, ...]
    score: float
    coverage: float
    signal: Misattribution | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"passages": [p.to_dict() for p in self.passages], "score": round(self.score, 4),
                "coverage": round(self.coverage, 4),
                "signal": None if self.signal is None else self.signal.to_dict()}


@dataclass(frozen=True, slots=True)
class _Hit:
    key: str
    sentence: int
    score: float
    coverage: float


class EvidenceLocator:
    """Ranks the sentences of retrieved documents against claims, for one request.

    Build one per request (its statistics cover that request's documents); each document's
    sentence index is shared across requests by content. Accepts a
    :class:`~vcg_otel.documents.DocumentSet` or a mapping of id to text.

    ``deadline`` (a foreground call's): looked at between documents and inside every index
    build and scoring loop; once it has passed, building or :meth:`locate` raises
    :class:`~vcg_otel._deadline.DeadlineReached` (the citation is cut, never judged on part
    of the evidence).
    """

    def __init__(self, documents: DocumentSet | Mapping[str, str],
                 deadline: Deadline | None = None) -> None:
        self._texts: dict[str, str] = (
            {c.key: c.text for c in documents.chunks} if isinstance(documents, DocumentSet)
            else {str(k): v for k, v in documents.items()})
        self._deadline = deadline
        self._indexes: dict[str, _DocIndex] = {}
        try:
            for key, text in self._texts.items():
                if deadline is not None:
                    deadline.check()
                self._indexes[key] = _index(text, deadline)
        except DeadlineReached:
            _finish_later(self._texts.values())  # for the next call (see _finish_later)
            raise
        count = sum(len(idx.lengths) for idx in self._indexes.values())
        self._n = max(count, 1)
        self._avg = sum(idx.total for idx in self._indexes.values()) / count if count else 1.0

    def _idf(self, term: str) -> float:
        """IDF over the sentences of every document of the request, computed per claim term
        (a request's locator costs nothing per vocabulary word)."""
        df = sum(idx.df(term) for idx in self._indexes.values())
        return math.log(1.0 + (self._n - df + 0.5) / (df + 0.5))

    def _scores(self, terms: Mapping[str, float], keys: Iterable[str]) -> list[_Hit]:
        total = sum(terms.values()) or 1.0
        hits: list[_Hit] = []
        deadline = self._deadline
        for key in keys:
            idx = self._indexes.get(key)
            if idx is None:
                continue
            score: dict[int, float] = {}
            covered: dict[int, float] = {}
            for term, weight in terms.items():
                if deadline is not None:
                    deadline.check()
                for sentence, tf in idx.pairs(term):
                    norm = _K1 * (1 - _B + _B * idx.lengths[sentence] / self._avg)
                    score[sentence] = score.get(sentence, 0.0) + (
                        weight * tf * (_K1 + 1) / (tf + norm))
                    covered[sentence] = covered.get(sentence, 0.0) + weight
            hits.extend(_Hit(key, s, v, covered[s] / total) for s, v in score.items())
        hits.sort(key=lambda h: (-h.score, h.key, h.sentence))
        return hits

    def _weights(self, claim: str) -> dict[str, float]:
        return {t: self._idf(t) * (NUMBER_WEIGHT if _is_number(t) else 1.0)
                for t in claim_terms(claim)}

    def locate(self, claim: str, cited: Sequence[str], *, top_k: int = DEFAULT_TOP_K,
               signal: bool = True) -> Evidence:
        """The ``top_k`` best passages for ``claim`` in the chunks ``cited`` (keys).

        With ``signal``, the other retrieved documents are scored too and a
        :class:`Misattribution` is recorded when one matches clearly better.
        """
        weights = self._weights(claim)
        hits = self._scores(weights, cited)
        passages: list[Passage] = []
        taken: dict[str, list[tuple[int, int]]] = {}
        for hit in hits:
            if len(passages) >= top_k:
                break
            lo, hi = self._neighbours(hit)
            spans = taken.setdefault(hit.key, [])
            if any(lo <= b and a <= hi for a, b in spans):  # overlaps a passage already taken
                continue
            spans.append((lo, hi))
            passages.append(self._passage(hit, lo, hi))
        best = hits[0] if hits else None
        found = Evidence(tuple(passages), best.score if best else 0.0,
                         best.coverage if best else 0.0)
        if not signal:
            return found
        cited_set = set(cited)
        others = [k for k in self._texts if k not in cited_set]
        rival = next(iter(self._scores(weights, others)), None)
        if (rival is not None and rival.coverage >= SIGNAL_MIN_COVERAGE
                and rival.score >= SIGNAL_RATIO * found.score):
            return Evidence(found.passages, found.score, found.coverage,
                            Misattribution(rival.key, rival.score, found.score, rival.coverage))
        return found

    def _neighbours(self, hit: _Hit) -> tuple[int, int]:
        """Sentence range (inclusive) of a passage: the hit plus one neighbour each side,
        within :data:`MAX_PASSAGE_CHARS`."""
        spans = self._indexes[hit.key].spans
        lo = hi = hit.sentence
        if lo > 0 and spans[hi][1] - spans[lo - 1][0] <= MAX_PASSAGE_CHARS:
            lo -= 1
        if hi + 1 < len(spans) and spans[hi + 1][1] - spans[lo][0] <= MAX_PASSAGE_CHARS:
            hi += 1
        return lo, hi

    def _passage(self, hit: _Hit, lo: int, hi: int) -> Passage:
        spans = self._indexes[hit.key].spans
        text = self._texts[hit.key]
        start, end = spans[lo][0], spans[hi][1]
        s_start, s_end = spans[hit.sentence]
        return Passage(hit.key, start, end, s_start, s_end, hit.score, text[start:end])


# --- one audit's quote-less citations ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SourceEvidence:
    """Stage 1 of one quote-less citation: where its source identifier led, and the evidence.

    Attributes:
        source: the identifier's resolution (:attr:`SourceCheck.unknown`: a fabricated
            citation, never judged).
        evidence: the located passages and signal (``None`` when the source is unknown).
    """

    source: SourceCheck
    evidence: Evidence | None

    @property
    def unknown(self) -> bool:
        return self.source.unknown

    def to_dict(self) -> dict[str, Any]:
        return {"cited": self.source.cited, "resolution": self.source.resolution,
                "group": list(self.source.group), "unknown": self.source.unknown,
                "evidence": None if self.evidence is None else self.evidence.to_dict()}


class QuotelessStage:
    """Stage 1 for the quote-less citations of one audit, built on first use.

    Takes the audit's documents as a :class:`~vcg_otel.documents.DocumentSet` (as the
    decorator and integrations pass them) or any :class:`~vcg_otel.gate.Corpus` / mapping,
    whose ids then are the only identifiers (and their order the positions). The document
    set and the locator are made once, on the first quote-less citation, so audits without
    one pay nothing.
    """

    def __init__(self, documents: Any, position_base: int | None = None,
                 top_k: int = DEFAULT_TOP_K, deadline: Deadline | None = None) -> None:
        self._documents = documents
        self._set: DocumentSet | None = None
        self._locator: EvidenceLocator | None = None
        self.position_base = position_base
        self.top_k = top_k
        self.deadline = deadline

    def _docs(self) -> DocumentSet:
        if self._set is None:
            docs = self._documents
            if isinstance(docs, DocumentSet):
                self._set = docs
            else:
                texts = ({str(k): v for k, v in docs.items()} if isinstance(docs, Mapping)
                         else {k: docs.text(k) for k in docs})
                made = DocumentSet()
                for key, text in texts.items():
                    made.add_chunk(text, [(key, "id")])
                self._set = made
        return self._set

    def check(self, cited: str | None, claim: str) -> SourceEvidence | None:
        """Resolve the cited source and locate the claim's evidence in it.

        ``None`` when nothing can be checked: no identifier cited, or no documents at all
        (the citation stays ``unverifiable``, never a fabrication).

        Raises:
            DeadlineReached: the stage's ``deadline`` passed while locating the evidence.
        """
        docs = self._docs()
        if cited is None or not docs.chunks:
            return None
        source = check_source(docs, cited, self.position_base)
        if source.unknown:
            return SourceEvidence(source, None)
        if self._locator is None:
            self._locator = EvidenceLocator(docs, self.deadline)
        return SourceEvidence(source, self._locator.locate(claim, source.group, top_k=self.top_k))


def evidence_attributes(found: SourceEvidence | None) -> dict[str, str | int | float]:
    """The ``citation.check`` span attributes of a quote-less citation's stage 1 (names in
    :mod:`vcg_otel.otel.semconv`); empty for a citation with a quote."""
    if found is None:
        return {}
    attrs: dict[str, str | int | float] = {
        semconv.CITATION_DOCUMENT_RESOLUTION: found.source.resolution,
        semconv.CITATION_DOCUMENT_GROUP_SIZE: len(found.source.group)}
    ev = found.evidence
    if ev is None:
        return attrs
    attrs[semconv.EVIDENCE_PASSAGES] = len(ev.passages)
    attrs[semconv.EVIDENCE_SCORE] = round(ev.score, 4)
    attrs[semconv.EVIDENCE_COVERAGE] = round(ev.coverage, 4)
    if ev.passages:
        top = ev.passages[0]
        attrs[semconv.EVIDENCE_DOCUMENT_ID] = top.document_id
        attrs[semconv.EVIDENCE_START] = top.start
        attrs[semconv.EVIDENCE_END] = top.end
    if ev.signal is not None:
        attrs[semconv.EVIDENCE_SIGNAL_DOCUMENT_ID] = ev.signal.document_id
        attrs[semconv.EVIDENCE_SIGNAL_SCORE] = round(ev.signal.score, 4)
        attrs[semconv.EVIDENCE_SIGNAL_CITED_SCORE] = round(ev.signal.cited_score, 4)
    return attrs
