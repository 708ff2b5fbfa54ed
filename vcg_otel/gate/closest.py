"""How a rejected quote differs from its source: the closest passage, a score, the word diffs.

A quote the gate rejects is either a **misquote** (``altered``: a passage of the documents
matches all but a few of its words: ``increased`` where the source says ``decreased``, a
dropped ``not``) or **invented** (nothing close in any document). Users fix the two
differently upstream, so the gate tells them apart; the verdict stays ``not_found`` either way.

Runs only for rejected quotes, after the search has shown the quote absent, and only when the
diagnosis is first read (:class:`~vcg_otel.gate.result.LazyDiagnosis`), so the found path never
pays for it, nor a caller who wants only the verdict. The search is bounded: it votes for the
place a passage would start, from the occurrences of the quote's longer words (each word that
occurs too often is skipped: it tells nothing), then aligns the quote's words with the words of
the best few places (:class:`difflib.SequenceMatcher`). All of it is charged to a budget; when
the budget runs out the search stops with what it has, and a quote not shown close to anything
is not called ``invented`` (see :func:`closest_passage`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from difflib import SequenceMatcher
from itertools import chain

from .normalize import NormalizedText
from .result import ClosestPassage, RejectionKind
from .search import SearchBudget, SearchLimitReached
from .slips import quote_words, tokens

__all__ = ["ALTERED_SCORE", "CLOSEST_STEPS", "closest_passage", "nearest"]

#: A passage this similar (``2 * matched words / (quote words + passage words)``) makes the
#: rejection ``altered``: one word replaced in a ten-word quote scores 0.9, in a five-word
#: quote 0.8; a dropped ``not`` in a ten-word quote 0.95.
ALTERED_SCORE = 0.75
#: Steps the closest-passage search may take from the gate's budget, at most (it never takes
#: the last steps a shared audit budget has left for the next citations).
CLOSEST_STEPS = 4000
_MIN_ANCHOR = 4  # words shorter than this are too common to vote
_MAX_ANCHORS = 12  # distinct quote words that vote
_MAX_OCCURRENCES = 400  # a word occurring more often in one document does not vote there
_BUCKET = 32  # characters per vote bucket
_PLACES = 3  # best-voted places aligned per document
_SAMPLE = 1 << 18  # characters of a document in which anchor words are counted
_VOTERS = 4  # anchor words that vote in a document longer than the sample
_SLACK = 48  # characters of context around a place, for words the quote added or dropped
# In documents other than the cited one, a place is aligned only if it holds this share of
# the anchor words' weight: an altered passage holds nearly all of them.
_CLOSE_VOTES = 0.5


@dataclass(slots=True)
class _Quote:
    words: tuple[str, ...]
    anchors: tuple[tuple[str, int], ...]  # (word, offset in the needle), longest first
    # Aligns passages with ``words``: the index of the quote's words (SequenceMatcher's b2j)
    # is built once per quote, when a first place is aligned (an invented quote often has
    # none), and each passage set as its first sequence.
    _matcher: SequenceMatcher[str] | None = None

    @property
    def matcher(self) -> SequenceMatcher[str]:
        if self._matcher is None:
            self._matcher = SequenceMatcher(None, (), self.words, autojunk=False)
        return self._matcher


def _quote(needle: str) -> _Quote:
    """The quote's words, and its anchors: distinct words of :data:`_MIN_ANCHOR` letters or
    more, longest first (equal lengths in quote order), each at its first offset. The words
    come cut from the slip search (:func:`~vcg_otel.gate.slips.quote_words`), which has just
    cut the same quote for the gate: not cut a second time."""
    words, starts = quote_words(needle)
    first: dict[str, int] = {}  # each long word at its first offset, in quote order
    for word, start in zip(words, starts, strict=True):
        if len(word) >= _MIN_ANCHOR and word not in first:
            first[word] = start
    # a stable sort, reversed, keeps equal lengths in quote order; by the C-level len, not a
    # key of our own called for each word
    longest = sorted(first, key=len, reverse=True)[:_MAX_ANCHORS]
    if not longest and words:
        return _Quote(words, ((words[0], starts[0]),))
    return _Quote(words, tuple([(word, first[word]) for word in longest]))


def _is_word_at(hay: str, pos: int, size: int) -> bool:
    return ((pos == 0 or not hay[pos - 1].isalnum())
            and (pos + size >= len(hay) or not hay[pos + size].isalnum()))


def _voters(hay: str, quote: _Quote, budget: SearchBudget) -> list[tuple[str, int]]:
    """The anchor words that vote in ``hay``: those occurring at most :data:`_MAX_OCCURRENCES`
    times in a sample of it (the whole of a document up to :data:`_SAMPLE` characters), the
    rarest :data:`_VOTERS` of them in a longer one, whose every scan costs milliseconds."""
    # a scan of the sample per word, charged before the counts (which charge nothing)
    budget.charge(0, len(quote.anchors), min(len(hay), _SAMPLE))
    if len(hay) <= _SAMPLE:  # counted whole: the words it holds, but not too often
        return [(w, o) for w, o in quote.anchors if _held_not_too_often(hay, w)]
    counted = []
    most = _MAX_OCCURRENCES * (_SAMPLE / len(hay))  # a share of the sample
    for word, offset in quote.anchors:
        count = hay.count(word, 0, _SAMPLE)
        if count <= most:
            counted.append((count, word, offset))
    counted.sort(key=lambda cwo: (cwo[0] == 0, cwo[0]))  # rare first; unseen in the sample last
    return [(w, o) for _, w, o in counted[:_VOTERS]]


def _held_not_too_often(hay: str, word: str) -> bool:
    """``0 < hay.count(word) <= _MAX_OCCURRENCES`` for a word (not empty), counted only when
    it may occur too often: the count is of occurrences that do not overlap, so at most
    ``len(hay) // len(word)``; a word it cannot be too many, or that is absent, is answered
    by ``in``, which stops at the first occurrence (a count reads the whole text)."""
    if word not in hay:
        return False
    return len(hay) // len(word) <= _MAX_OCCURRENCES or hay.count(word) <= _MAX_OCCURRENCES


def _places(hay: str, quote: _Quote, budget: SearchBudget, least: float = 0.0) -> list[int]:
    """Likely start positions of the quote in ``hay``, best voted first; only those holding
    at least the share ``least`` of the anchor words' weight (their letters)."""
    votes: dict[int, int] = {}
    for word, offset in _voters(hay, quote, budget):
        budget.scan(len(hay))
        pos = hay.find(word)
        seen = 0
        while pos != -1 and seen < _MAX_OCCURRENCES:
            seen += 1
            if _is_word_at(hay, pos, len(word)):
                bucket = max(0, pos - offset) // _BUCKET
                votes[bucket] = votes.get(bucket, 0) + len(word)
            pos = hay.find(word, pos + 1)
        budget.spend(seen)
    if not votes:
        return []
    def weight(b: int) -> int:
        return votes[b] + votes.get(b - 1, 0) + votes.get(b + 1, 0)

    floor = least * sum(len(word) for word, _ in quote.anchors)
    scored = sorted((b for b in votes if weight(b) >= floor), key=lambda b: -weight(b))
    return [b * _BUCKET for b in scored[:_PLACES]]


@dataclass(frozen=True, slots=True)
class _Aligned:
    score: float
    start: int  # normalized offsets
    end: int
    removed: tuple[str, ...]
    added: tuple[str, ...]
    replaced: tuple[tuple[str, str], ...]


def _align(hay: str, start: int, quote: _Quote, needle_len: int,
           budget: SearchBudget) -> _Aligned | None:
    """The passage around ``start`` that best matches the quote, its score and differences.

    The quote's words are aligned with the words of a window around the place
    (:class:`difflib.SequenceMatcher`), and the passage runs from the first word matched to
    the last. Its score and differences are those of aligning the passage with the quote
    again, and they are read from the window's alignment instead, which is the same one moved
    by the passage's start. Why: without junk (no ``isjunk``, ``autojunk`` off) the matcher
    takes, in a range of each sequence, the longest run of equal words, the earliest in the
    first sequence among equally long ones and then the earliest in the second, and goes on
    left and right of it. Every run it took in the window lies in the passage (which spans
    them all, a word wider at most), so each range it searches in the passage is the part of
    the window's range there: a run found in it is a run of the window's range, so none is
    longer than the window's choice, which lies in it too, and none as long comes earlier (the
    window would have taken it); where the window's range held no run, its part holds none.
    So the passage's runs are the window's, and a second alignment, as costly as the first,
    would only find them again.
    """
    lo = max(0, start - _SLACK)
    hi = min(len(hay), start + needle_len + 2 * _SLACK)
    window = tokens(hay[lo:hi])
    budget.spend(1 + (len(window) * len(quote.words)) // 64)
    words = [m.group() for m in window]
    matcher = quote.matcher
    matcher.set_seq1(words)
    blocks = [b for b in matcher.get_matching_blocks() if b.size]
    if not blocks:
        return None
    # The passage: from the first word matched to the last, widened by one word at an end
    # where the quote has words unmatched (the word they likely replace: "fell" quoted as
    # "did not fall").
    qwords = quote.words
    head, tail = blocks[0].b, len(qwords) - blocks[-1].b - blocks[-1].size
    first = max(0, blocks[0].a - min(head, 1))
    last = min(len(words), blocks[-1].a + blocks[-1].size + min(tail, 1))
    passage = words[first:last]
    # The passage's own alignment with the quote is the window's, moved by ``first`` (see the
    # docstring): its matched words and differences are read from the runs at hand, a
    # difference before each run and after the last (the passage's and the quote's ends).
    matched = 0
    removed: list[str] = []
    added: list[str] = []
    replaced: list[tuple[str, str]] = []
    i = j = 0  # the passage's and the quote's words up to here are accounted for
    for a, b, size in [(a - first, b, size) for a, b, size in blocks] + [
            (len(passage), len(qwords), 0)]:
        if i < a and j < b:
            replaced.append((" ".join(passage[i:a]), " ".join(qwords[j:b])))
        elif i < a:
            removed.extend(passage[i:a])
        elif j < b:
            added.extend(qwords[j:b])
        matched += size
        i, j = a + size, b + size
    score = 2 * matched / (len(passage) + len(qwords))
    return _Aligned(score, lo + window[first].start(), lo + window[last - 1].end(),
                    tuple(removed), tuple(added), tuple(replaced))


def closest_passage(doc: NormalizedText, needle: str, budget: SearchBudget,
                    close_only: bool = False, quote: _Quote | None = None) -> _Aligned | None:
    """The passage of one document closest to ``needle`` (normalized offsets), or ``None``.

    With ``close_only`` only places where most of the quote's longer words occur are aligned:
    enough to find a passage that could be ``altered``, at a fraction of the cost (for the
    documents other than the cited one, which are searched only for that).

    ``quote`` is ``_quote(needle)`` when the caller has it already (:func:`nearest` reads the
    quote's words once for every document it searches, not once per document).

    Raises:
        SearchLimitReached: ``budget`` ran out.
    """
    if quote is None:
        quote = _quote(needle)
    if not quote.words:
        return None
    hay = doc.text
    if close_only:
        budget.scan(len(hay))
        if not _holds_most(hay, quote.anchors[:3]):
            return None  # most of its longest words are missing: nothing close here
    return _best_place(hay, quote, len(needle), budget, _CLOSE_VOTES if close_only else 0.0)


def _holds_most(hay: str, top: tuple[tuple[str, int], ...]) -> bool:
    """Whether most of the quote's longest words ``top`` occur in ``hay`` (as substrings);
    stops as soon as the answer is known: this runs for every other document."""
    need = (len(top) + 1) // 2  # most of them: so many more to find
    left = len(top)  # not yet looked for
    for word, _ in top:
        left -= 1
        if word in hay:
            need -= 1
            if not need:
                return True
        elif need > left:
            return False
    return need <= 0


def _best_place(hay: str, quote: _Quote, needle_len: int, budget: SearchBudget,
                least: float) -> _Aligned | None:
    """The best aligned of the places :func:`_places` finds (the first of equal scores)."""
    best: _Aligned | None = None
    for place in _places(hay, quote, budget, least):
        aligned = _align(hay, place, quote, needle_len, budget)
        if aligned is not None and (best is None or aligned.score > best.score):
            best = aligned
    return best


def nearest(needle: str, cited: tuple[str, NormalizedText] | None,
            others: Iterable[tuple[str, NormalizedText]], budget: SearchBudget,
            allowance: int | None = None,
            lacking: Callable[[list[str]], int | None] | None = None,
            ) -> tuple[RejectionKind | None, ClosestPassage | None]:
    """The rejection kind of a quote shown absent, and the closest passage found.

    The cited document is searched first; the others only if it has nothing close. ``budget``
    is charged what is spent, at most ``allowance`` steps (by default :data:`CLOSEST_STEPS`
    of what it has left: a caller that fixed the allowance earlier passes it) and never past
    its limit (it does not raise). ``lacking`` (a corpus' ``others_lacking_most`` for the cited
    document) may show at once that no other document holds most of the quote's longest
    words: it then gives the steps ruling them out one by one would charge, settled at once
    when that is the same (:meth:`~vcg_otel.gate.search.SearchBudget.settle`), and they are
    not read. The kind is ``altered`` when a passage scores at least
    :data:`ALTERED_SCORE`, ``invented`` when every document was searched and none did, and
    ``None`` when the search was cut short before either was shown.
    """
    if allowance is None:
        allowance = max(1, min(CLOSEST_STEPS, budget.limit - budget.used))
    local = SearchBudget(allowance)
    best: tuple[str, NormalizedText, _Aligned] | None = None
    complete = True
    quote = _quote(needle)
    try:
        if not quote.words:  # nothing to look for: each document opened (a step), in vain
            for _ in chain([cited] if cited is not None else [], others):
                local.spend()
        else:
            size = len(needle)
            if cited is not None:
                local.spend()
                aligned = _best_place(cited[1].text, quote, size, local, 0.0)
                if aligned is not None:
                    best = (cited[0], cited[1], aligned)
            # What closest_passage does for each other document, its test (most of the
            # quote's longest words in it) made here: it rules out nearly all of them, at a
            # fraction of a call's cost. Lazily: the others are not even listed when the
            # cited one holds a misquote.
            top = quote.anchors[:3]
            if lacking is not None and (best is None or best[2].score < ALTERED_SCORE):
                steps = lacking([word for word, _ in top])
                if steps is not None and local.settle(steps):
                    others = ()  # each would be opened, scanned and ruled out: charged
            for doc_id, doc in others:
                if best is not None and best[2].score >= ALTERED_SCORE:
                    break
                hay = doc.text
                local.charge(1, 1, len(hay))  # opened, and scanned for the words
                if not _holds_most(hay, top):
                    continue
                aligned = _best_place(hay, quote, size, local, _CLOSE_VOTES)
                if aligned is not None and (best is None or aligned.score > best[2].score):
                    best = (doc_id, doc, aligned)
    except SearchLimitReached:
        complete = False
    budget.used += min(local.used, local.limit)
    if best is None:
        return (RejectionKind.INVENTED if complete else None), None
    doc_id, doc, aligned = best
    start, end = doc.original_span(aligned.start, aligned.end)
    passage = ClosestPassage(doc_id, start, end, round(aligned.score, 4), aligned.removed,
                             aligned.added, aligned.replaced)
    if aligned.score >= ALTERED_SCORE:
        return RejectionKind.ALTERED, passage
    return (RejectionKind.INVENTED if complete else None), passage
