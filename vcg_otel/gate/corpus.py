"""Documents normalized once, and an index so "is it anywhere else?" costs no full scan.

The original gate re-normalized every document on every quote it could not find where cited.
Here a :class:`DocumentCache` keyed by document *content* normalizes each text once (a changed
document is simply a new key), and a :class:`Corpus` groups the documents a request cites.

When a quote is not in its cited document, the corpus must answer "which other documents
contain it?". With few documents, or until it has paid for itself, a scan is cheapest. Then a
word index answers: every whole word of the quote must occur in a document that contains the
quote, so the rarest of those words yields a short candidate list, and only candidates are
searched. The index is built once the documents scanned by misses outweigh its cost, so a
corpus used for one or two quotes never pays for it.

The seed-compatible call ``quote_gate(quote, doc_id, {id: text})`` passes a fresh mapping each
time. :func:`corpus_for` keeps the corpora of recent mappings keyed by their ids and texts
(compared by value, so the same texts in a new dict hit), so such calls reuse normalization and
index like a kept :class:`Corpus`.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import reduce
from operator import or_
from typing import TYPE_CHECKING, Any, cast

from .._lru import BoundedLRU
from .grams import GramIndex
from .normalize import NormalizedText, normalize_with_map
from .quote import ParsedQuote
from .search import (
    DEFAULT_MAX_GAP,
    SearchBudget,
    SearchLimitReached,
    Span,
    find_quote,
    is_spaced_word_char,
    scan_steps,
)
from .slips import MAX_SLIP_CHARS, quote_skeleton, skeleton

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["Corpus", "DocumentCache", "corpus_for", "default_cache", "last_corpus_holding"]

# A word: a run of word characters of scripts that separate words with spaces (the same
# characters search.is_spaced_word_char accepts), so quote words and document words split alike.
_WORD = re.compile(
    "[^\\W\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u2e80-\ua4cf\uac00-\ud7af"
    "\uf900-\ufaff\uff66-\uff9f\U00020000-\U0010ffff]+"
)
# The same words of an ASCII text (the excluded scripts are all beyond it), read twice as fast
# with the plain class: most quotes and documents are ASCII.
_ASCII_WORD = re.compile(r"[A-Za-z0-9_]+")
# Below this many documents a scan beats building and consulting the index.
_SCAN_LIMIT = 32
# The index is built once misses have scanned this many times the corpus' documents: indexing
# a document costs about as much as scanning it this many times for a quote.
_INDEX_PAYOFF = 8
# A set of documents gets a gram index (:class:`_SetGrams`) once it has been searched for this
# many rejected quotes (its users together). Building one costs about what 150 such searches
# save (3.7 ms against ~21 us each, 10 documents of 2 kB): built after this many, a set never
# pays much more than the best choice would have, and one retrieved for a few answers never
# pays for it at all.
_GRAMS_AFTER = 128
# Only small sets get one (it takes about 50 bytes per character: 1 MB for 20 k characters),
# so each cache of 16 sets (the document sets of vcg_otel.documents, the dict call's corpora:
# corpus_for) holds 26 MB of them at the very most: most retrievals are a few dozen chunks of
# a few kB.
_GRAMS_MAX_DOCS = 64
_GRAMS_MAX_CHARS = 32_768
# Candidate lists at most this long are verified directly instead of intersected further.
_VERIFY_LIMIT = 48


class DocumentCache:
    """Thread-safe LRU of normalized documents, keyed by text, bounded by entries and characters.

    Memory: about 2.5 bytes per cached character for mostly-ASCII text (measured: the original
    it keeps alive, the normalized copy, offset maps and bookkeeping), about twice that for
    texts CPython stores with 2 bytes per character (most non-Latin scripts) and four times for
    4 (emoji, rare CJK). A document searched for a quote the gate did not find where it cites
    it (the cited one, or a candidate source) keeps about 0.9 byte more per character (ASCII
    prose; about 2 for most other scripts, 3 for CJK): its skeleton, which rules out such a
    quote in one substring test, the text without spaces and soft punctuation in UTF-8
    (:meth:`~vcg_otel.gate.normalize.NormalizedText.slip_skeleton`); one with hyphens in which
    a quote passed that test, up to 1 byte more (ASCII): the text without its hyphens
    (:meth:`~vcg_otel.gate.normalize.NormalizedText.without_hyphens`).
    Size it to the documents your app retrieves again and again: a hit saves normalizing the
    text again (about 10-20 µs per kB).

    Args:
        max_entries: most documents kept.
        max_chars: most original characters kept in all.
    """

    def __init__(self, max_entries: int = 10_000, max_chars: int = 16_000_000) -> None:
        self._lru: BoundedLRU[str, NormalizedText] = BoundedLRU(max_entries, max_chars, len)

    def resize(self, max_entries: int | None = None, max_chars: int | None = None) -> None:
        """Change the bounds (evicting least recently used documents to fit), e.g. of
        :data:`default_cache` at start-up: ``default_cache.resize(max_chars=64_000_000)``."""
        self._lru.resize(max_entries, max_chars)

    def get(self, text: str) -> NormalizedText:
        """The normalized form of ``text``, computed at most once while it stays cached.

        Only a plain ``str`` is looked up: a subclass may compare equal to (and hash like)
        another text, and would get that text's normalized form.
        """
        if type(text) is not str:
            return normalize_with_map(text)
        hit = self._lru.get(text)
        if hit is None:
            hit = normalize_with_map(text)  # outside any lock: other threads keep going
            self._lru.put(text, hit)
        return hit

    def clear(self) -> None:
        """Drop every cached document."""
        self._lru.clear()

    def __len__(self) -> int:
        return len(self._lru)

    @property
    def chars(self) -> int:
        """Original characters currently held."""
        return self._lru.size

    @property
    def max_chars(self) -> int:
        """The bound on :attr:`chars`."""
        return self._lru.max_size


#: The process-wide cache every :class:`Corpus` uses unless given its own: at most 10,000
#: documents and 16 M characters (about 40 MiB for mostly-ASCII text). Resize it with
#: :meth:`DocumentCache.resize`.
default_cache = DocumentCache()


# A comma between two digits (``\d,\d`` is found), written to start with its literal comma:
# the regex engine then skips to the commas at C speed instead of trying ``\d`` at every
# position, ten times faster on a quote of prose.
_DIGIT_COMMA = re.compile(r",(?=\d)(?<=\d,)")
# A quote word may join at most this many parts of a compound (``stateoftheart`` joins four).
_MAX_JOINED = 8


def _words(text: str) -> list[str]:
    """The words (:data:`_WORD`) of a text, in order."""
    return (_ASCII_WORD if text.isascii() else _WORD).findall(text)


def _index_words(text: str) -> set[str]:
    """The words the index holds for a document: its words, and every word the slip search
    (:mod:`vcg_otel.gate.slips`) may match a run of them with: the parts of a hyphenated
    compound joined (a quote's ``finetuning`` is the document's ``fine-tuning``) and a number
    without its thousands separators (``1204`` is ``1,204``), so a slipped quote finds its
    document through the index as it does in a scan.

    The compounds and numbers are found from the hyphens and commas (a ``find`` loop): a
    pattern for them over this word class costs five times the word scan itself."""
    words = set(_words(text))
    n = len(text)
    pos = text.find("-")
    while pos != -1:
        lo, hi = pos, pos + 1
        while lo and (text[lo - 1].isalnum() or text[lo - 1] in "_-"):
            lo -= 1
        while hi < n and (text[hi].isalnum() or text[hi] in "_-"):
            hi += 1
        parts = text[lo:hi].split("-")
        for i in range(len(parts) - 1):
            for j in range(i + 2, min(len(parts), i + _MAX_JOINED) + 1):
                words.add("".join(parts[i:j]))
        pos = text.find("-", hi)
    pos = text.find(",")
    while pos != -1:
        if 0 < pos < n - 1 and text[pos - 1].isdigit() and text[pos + 1].isdigit():
            lo, hi = pos, pos
            while lo and (text[lo - 1].isdigit() or text[lo - 1] == ","):
                lo -= 1
            while hi < n and (text[hi].isdigit() or text[hi] == ","):
                hi += 1
            words.add(text[lo:hi].replace(",", ""))
            pos = text.find(",", hi)
        else:
            pos = text.find(",", pos + 1)
    return words


def _whole_words(text: str) -> tuple[list[str], set[str]]:
    """The words of quote text in order, and those of them a document holding the quote may
    not hold as whole words: those of a stretch (between spaces) with a hyphen, which may glue
    two of them into a compound the document writes joined (``non-fatal`` as ``nonfatal``), or
    with a comma between digits (``1,204`` may be written ``1204``). Leaving a few more words
    out than needed only looks up fewer; most quotes have few such stretches."""
    words = _words(text)
    unsafe: set[str] = set()
    if "-" in text or "," in text:
        for stretch in text.split():
            if "-" in stretch or ("," in stretch and _DIGIT_COMMA.search(stretch)):
                unsafe.update(_words(stretch))
    return words, unsafe


class Corpus:
    """A set of documents by id, normalized lazily and searchable as a whole.

    Build one per request over the retrieved documents, or keep one for the life of an app and
    :meth:`add` to it: normalization is shared through a :class:`DocumentCache` (by default the
    process-wide one), so the same text is never normalized twice.

    Args:
        documents: a mapping of document id to text, or ``(id, text)`` pairs.
        cache: where normalized documents live; ``None`` for the shared default.
    """

    def __init__(
        self,
        documents: Mapping[Any, str] | Iterable[tuple[Any, str]] | None = None,
        *,
        cache: DocumentCache | None = None,
    ) -> None:
        self._cache = cache if cache is not None else default_cache
        self._texts: dict[str, str] = {}
        self._normalized: dict[str, NormalizedText] = {}
        self._index: dict[str, list[int]] | None = None
        self._order: list[str] = []
        self._scanned = 0  # documents scanned by misses since the index was last dropped
        self._grams = _SetGrams()  # shared with forks: it changes no result, no budget
        self._lock = threading.Lock()
        self._shared = False  # texts and normalized forms shared with a cached original
        if documents is not None:
            items = documents.items() if isinstance(documents, Mapping) else documents
            for doc_id, text in items:
                self.add(doc_id, text)

    # -- documents ---------------------------------------------------------------------------

    def add(self, doc_id: Any, text: str) -> None:
        """Add or replace a document. A changed text is re-normalized; an unchanged one is not."""
        if not isinstance(text, str):
            raise TypeError(f"document {doc_id!r} text must be str, not {type(text).__name__}")
        key = str(doc_id)
        with self._lock:
            if self._shared:
                self._unshare()
            if self._texts.get(key) is text or self._texts.get(key) == text:
                return
            self._texts[key] = text
            self._normalized.pop(key, None)
            self._index = None
            self._scanned = 0
            self._grams = _SetGrams()

    def _fork(self) -> Self:
        """A corpus with the same documents that shares their texts and normalized forms with
        this one (copied on its first :meth:`add`), and starts its own search state: no index,
        nothing scanned, so its searches spend exactly what a newly built corpus' would.

        For caches of built corpora: a recurring set of documents is normalized once, while
        each user gets an object of its own that may be changed without touching the original.
        """
        made = object.__new__(type(self))
        state = self.__dict__.copy()  # one copy, then its own search state: one object per call
        state["_index"] = None
        state["_order"] = []
        state["_scanned"] = 0
        state["_lock"] = threading.Lock()
        state["_shared"] = True
        made.__dict__ = state
        return made

    def _unshare(self) -> None:
        """Own the shared state before changing it (subclasses copy theirs as well)."""
        self._texts = dict(self._texts)
        self._normalized = dict(self._normalized)
        self._shared = False

    def __contains__(self, doc_id: object) -> bool:
        return str(doc_id) in self._texts

    def __len__(self) -> int:
        return len(self._texts)

    def __iter__(self) -> Iterator[str]:
        return iter(self._texts)

    def text(self, doc_id: Any) -> str:
        """The original text of a document (``KeyError`` if unknown)."""
        return self._texts[str(doc_id)]

    def normalized(self, doc_id: Any) -> NormalizedText:
        """The normalized form of a document, computed on first use."""
        key = str(doc_id)
        hit = self._normalized.get(key)
        if hit is None:
            hit = self._cache.get(self._texts[key])
            self._normalized[key] = hit
        return hit

    def normalized_if_known(self, doc_id: str) -> NormalizedText | None:
        """:meth:`normalized` of ``doc_id`` (a ``str``), ``None`` when the corpus has no such
        document: ``doc_id in corpus`` and :meth:`normalized` in one look-up, for the gate's
        fast path, which asks both of every quote's cited document."""
        hit = self._normalized.get(doc_id)
        if hit is None and doc_id in self._texts:
            hit = self.normalized(doc_id)
        return hit

    # -- search ------------------------------------------------------------------------------

    def find_in(
        self, doc_id: Any, quote: ParsedQuote, max_gap: int = DEFAULT_MAX_GAP,
        budget: SearchBudget | None = None,
    ) -> Span | None:
        """Where the quote occurs in one document (``None`` if absent or unknown).

        Raises:
            SearchLimitReached: ``budget`` (by default a fresh one) ran out first.
        """
        key = str(doc_id)
        if key not in self._texts:
            return None
        doc = self._normalized.get(key) or self.normalized(key)
        plain = _plain_skeleton(quote)
        if plain is not None and plain not in doc.slip_skeleton():
            # absent as written and with slips: what find_quote would charge, no more
            _charge_absent(SearchBudget() if budget is None else budget, len(doc.text),
                           len(quote.needle))
            return None
        return find_quote(doc, quote, max_gap, budget)

    def find_elsewhere(
        self, quote: ParsedQuote, exclude: Any = None, max_gap: int = DEFAULT_MAX_GAP,
        budget: SearchBudget | None = None,
    ) -> list[tuple[str, Span]]:
        """Every document other than ``exclude`` that contains the quote, in corpus order.

        Raises:
            SearchLimitReached: ``budget`` (by default a fresh one) ran out first.
        """
        found, complete = self.search_elsewhere(quote, exclude, max_gap, budget)
        if not complete:
            raise SearchLimitReached("search budget exhausted")
        return found

    def search_elsewhere(
        self, quote: ParsedQuote, exclude: Any = None, max_gap: int = DEFAULT_MAX_GAP,
        budget: SearchBudget | None = None,
    ) -> tuple[list[tuple[str, Span]], bool]:
        """Like :meth:`find_elsewhere`, but a budget that runs out ends the search: returns
        ``(documents found so far, whether the search was complete)``."""
        if budget is None:
            budget = SearchBudget()
        skip = None if exclude is None else str(exclude)
        found: list[tuple[str, Span]] = []
        plain = _plain_skeleton(quote)
        probes = _probes(quote) if plain is None else ()
        absent_scans = _absent_scans(len(quote.needle))
        normalized = self._normalized
        try:
            candidates = self._candidates(quote, budget)
            self._scanned += len(candidates)
            if plain is not None and self._index is None and self._absent_from_others(
                    plain, skip, absent_scans, budget):
                return found, True
            for doc_id in candidates:
                if doc_id == skip:
                    continue
                doc = normalized.get(doc_id) or self.normalized(doc_id)
                if plain is not None and plain not in doc.slip_skeleton():
                    # the document opened (a step) and searched in vain, charged at once
                    budget.charge(1, absent_scans, len(doc.text))
                    continue
                budget.spend()
                if probes and not _holds(doc.text, probes, budget):
                    continue  # C-speed substring tests rule out most documents
                span = find_quote(doc, quote, max_gap, budget)
                if span is not None:
                    found.append((doc_id, span))
        except SearchLimitReached:
            return found, False
        return found, True

    def documents_near(self, words: Iterable[str], exclude: Any = None
                       ) -> Iterator[tuple[str, NormalizedText]]:
        """Documents other than ``exclude`` that may hold a passage close to a quote with
        these ``words`` (its longest first), normalized lazily, in corpus order: with a word
        index, those holding one of its three longest indexed words; else all of them.

        For the closest-passage search of a rejected quote (:mod:`vcg_otel.gate.closest`),
        which bounds how many it reads."""
        skip = None if exclude is None else str(exclude)
        index = self._index
        if index is None:
            keys: Iterable[str] = list(self._texts)
        else:
            chosen = [w for w in words if _WORD.fullmatch(w)][:3]
            hits: set[int] = set()
            for word in chosen:
                hits.update(index.get(word, ()))
            keys = [self._order[i] for i in sorted(hits)]
        for key in keys:  # each a document's (none is ever removed)
            if key != skip:
                yield key, self._normalized.get(key) or self.normalized(key)

    def others_lacking_most(self, words: Sequence[str], exclude: str) -> int | None:
        """The steps the closest-passage search charges for ruling out every document but
        ``exclude`` one by one (:func:`~vcg_otel.gate.closest.nearest`: each opened, and
        scanned for ``words``), when the set's gram index shows that none of them holds most
        of ``words`` (at least half, rounded up, as substrings); else ``None``.

        Only from an index the set's rejected quotes have built already
        (:meth:`search_elsewhere`), and only while :meth:`documents_near` lists every
        document (no word index)."""
        grams = self._grams
        if grams.index is None or self._index is not None:
            return None
        index = grams.index
        masks = [index.holders(skeleton(word)) for word in words]
        others, count, units = grams.others.get(exclude, grams.everyone)
        if _held_by_most(masks, index.everyone) & others:
            return None
        return count + units

    def _absent_from_others(self, plain: bytes, skip: str | None, absent_scans: int,
                            budget: SearchBudget) -> bool:
        """Whether the set's gram index shows that no document but ``skip`` holds ``plain``
        (a quote's skeleton), the charges the scan of each would make (opened, searched in
        vain) settled at once: all of them, or nothing and ``False`` (the scan then charges
        them one by one, and stops where they run out). Counts a search for the index, which
        is built once enough searches have asked for it."""
        grams = self._grams.ready(self)
        if grams is None:
            return False
        assert grams.index is not None
        others, count, units = grams.others.get(skip, grams.everyone)
        if grams.index.holders(plain) & others:
            return False
        return budget.settle(count + absent_scans * units)

    def build_index(self) -> None:
        """Normalize every document and index its words (done lazily when first needed)."""
        if self._index is not None:
            return
        with self._lock:
            if self._index is not None:
                return
            order = list(self._texts)
            index: dict[str, list[int]] = {}
            for i, doc_id in enumerate(order):
                for word in _index_words(self.normalized(doc_id).text):
                    postings = index.get(word)
                    if postings is None:
                        index[word] = [i]
                    else:
                        postings.append(i)
            self._order = order
            self._index = index

    def _candidates(self, quote: ParsedQuote, budget: SearchBudget) -> list[str]:
        """Documents that may hold the quote: all of them (a scan) until the index pays off.

        A corpus used again (it has scanned before) whose scan would not fit in what is left of
        the budget builds the index at once; a fresh one scans within the budget, so a corpus
        built for one call never pays for an index it would not reuse.
        """
        n = len(self._texts)
        if self._index is None and (
            n <= _SCAN_LIMIT
            or (self._scanned < _INDEX_PAYOFF * n
                and (n < budget.limit - budget.used or not self._scanned))
        ):
            return list(self._texts)
        index = self._index
        if index is None:
            self.build_index()
            index = self._index
            assert index is not None
        order = self._order
        rarest = _rarest_stretch(index, quote, budget)
        if rarest is not None:
            return [order[i] for i in rarest]  # a postings list is in corpus order
        words = _lookup_words(quote)
        if not words:
            return order
        # A step per word looked up, up to the first the index lacks (then no document holds
        # the quote): looked up at C speed, charged at once. In sorted order: a set's order
        # follows the process's string hashes, and the steps charged (and which of equally
        # short lists is taken) must not differ from one process to the next.
        found = list(map(index.get, sorted(words)))
        if None in found:
            _charge(budget, found.index(None) + 1)
            return []
        _charge(budget, len(found))
        lists = cast("list[list[int]]", found)  # no None in it
        # The shortest list, the first of equal ones (as the stable sort below puts first): most
        # quotes need no other, and min is one C call where a sort of twenty lists is not.
        candidates: set[int] | list[int] = min(lists, key=len)
        if len(candidates) <= _VERIFY_LIMIT:
            return [order[i] for i in candidates]  # a postings list is in corpus order
        lists.sort(key=len)
        for more in lists[1:4]:
            if len(candidates) <= _VERIFY_LIMIT:
                break
            budget.scan(len(more) * 64)  # a C-speed pass over the postings
            smaller = set(candidates)
            candidates = [i for i in more if i in smaller]
        return [order[i] for i in sorted(candidates)]


class _SetGrams:
    """The gram index of a corpus' documents (:class:`~vcg_otel.gate.grams.GramIndex`), built
    once they have been searched for enough rejected quotes, with what a search ruled out by it
    would have charged. Shared by the forks of a cached set (they hold the same documents; it
    changes no result and no charge), replaced when a document is added.

    Threads may race to build it: each builds a complete one and the last is kept."""

    __slots__ = ("everyone", "index", "misses", "others")

    def __init__(self) -> None:
        self.misses = 0  # rejected-quote searches so far (-1: too large ever to be indexed)
        self.index: GramIndex | None = None
        #: For each document: the other documents' bits, how many they are, and their scan
        #: steps in all (search.scan_steps), what a search of all of them charges (told once,
        #: when the index is built: a rejected quote asks twice). ``others.get(exclude,
        #: everyone)`` for any ``exclude``, ``None`` or an id the set lacks included.
        self.others: dict[str | None, tuple[int, int, int]] = {}
        #: The same for every document.
        self.everyone = (0, 0, 0)

    def ready(self, corpus: Corpus) -> _SetGrams | None:
        """This, with its index, once ``corpus`` has been searched :data:`_GRAMS_AFTER` times
        (this search counted) and is small enough; else ``None``."""
        if self.index is not None:
            return self
        if self.misses < 0:
            return None
        self.misses += 1
        if self.misses < _GRAMS_AFTER:
            return None
        order = list(corpus)
        if (len(order) > _GRAMS_MAX_DOCS
                or sum(map(len, map(corpus.text, order))) > _GRAMS_MAX_CHARS):
            self.misses = -1
            return None
        docs = [corpus.normalized(key) for key in order]
        index = GramIndex([doc.slip_skeleton() for doc in docs])
        units = [scan_steps(len(doc.text)) for doc in docs]
        total = sum(units)
        self.everyone = (index.everyone, len(order), total)
        self.others = {key: (index.everyone & ~(1 << i), len(order) - 1, total - units[i])
                       for i, key in enumerate(order)}
        self.index = index
        return self


def _held_by_most(masks: Sequence[int], everyone: int) -> int:
    """The bits set in most of ``masks`` (at least half, rounded up; all bits for none): the
    documents that may hold most of a quote's longest words, its three at most
    (:func:`~vcg_otel.gate.closest.nearest`), told by bit operations on the three."""
    if len(masks) == 3:
        a, b, c = masks
        return (a & b) | (c & (a | b))
    if len(masks) < 3:
        return reduce(or_, masks, 0) if masks else everyone
    need = (len(masks) + 1) // 2
    reach = [everyone] + [0] * need  # reach[k]: bits set in at least k of the masks so far
    for mask in masks:
        for k in range(need, 0, -1):
            reach[k] |= reach[k - 1] & mask
    return reach[need]


def _charge(budget: SearchBudget, steps: int) -> None:
    """``steps`` one-step charges to ``budget`` in one call when that is provably the same: no
    deadline to look at, and no charge among them that would pass the limit. Else one at a
    time, so a search cut short stops with the very count it would have reached (a budget
    shared across an audit hands what is left to the next citations)."""
    if budget.deadline is None and budget.used + steps <= budget.limit:
        budget.spend(steps)
        return
    for _ in range(steps):
        budget.spend()


def _plain_skeleton(quote: ParsedQuote) -> bytes | None:
    """The :func:`~vcg_otel.gate.slips.skeleton` of a quote without editorial marks, which a
    document must hold for :func:`~vcg_otel.gate.search.find_quote` to find the quote in it;
    ``None`` for a quote with marks (its pieces are searched apart: :func:`_probes`).

    Why it is exact. Such a quote is searched two ways, both for its one needle: as one
    contiguous string, and with transcription slips forgiven
    (:func:`~vcg_otel.gate.slips.find_slipped`). A needle that occurs in the text occurs in it
    with its soft characters too, and deleting those bytes from the text's UTF-8 deletes them
    from the needle's occurrence alike (the encoding of a concatenation is the concatenation of
    the encodings): the needle's skeleton is in the text's. A slipped match has the needle's
    skeleton as well (the argument is :func:`~vcg_otel.gate.slips.find_slipped`'s own, which
    makes this very test first). So a document whose skeleton lacks the quote's holds it
    neither way, and one substring test at C speed answers for the whole search.

    Memory: nothing new per document. The skeleton is the one the slip search keeps
    (:meth:`~vcg_otel.gate.normalize.NormalizedText.slip_skeleton`, about 0.9 byte per
    character of ASCII prose, counted in :class:`DocumentCache`'s note); it is now made as well
    for a document that holds, as written, a quote cited to another."""
    if quote.elided or quote.literal or not quote.needle:
        return None
    return quote_skeleton(quote.needle)


def _charge_absent(budget: SearchBudget, chars: int, needle: int) -> None:
    """What :func:`~vcg_otel.gate.search.find_quote` charges for a document of ``chars``
    characters whose skeleton lacks a quote without marks (needle of ``needle``
    characters): :func:`_absent_scans` scans of it, in one call
    (:meth:`~vcg_otel.gate.search.SearchBudget.charge`), which ends with the very count,
    and stops at the very charge, that the full search would reach."""
    budget.charge(0, _absent_scans(needle), chars)


def _absent_scans(needle: int) -> int:
    """The scans :func:`~vcg_otel.gate.search.find_quote` charges for a document whose
    skeleton lacks a quote without marks (needle of ``needle`` characters), in this order:
    one for the contiguous search (which finds no occurrence, so examines none) and one for
    the slip search's skeleton test (which it skips for a needle too long to search for
    slips)."""
    return 2 if needle <= MAX_SLIP_CHARS else 1


def _probes(quote: ParsedQuote) -> tuple[str, ...]:
    """Strings every reading of an elided quote needs in a document that contains it, longest
    (likely rarest) first: its pieces that the whole quote, and the literal reading if any, hold
    as well.
    """
    if not quote.elided:
        return ()
    return tuple(
        piece for piece in sorted(set(quote.pieces), key=len, reverse=True)
        if piece in quote.needle
        and (not quote.literal or any(piece in literal for literal in quote.literal))
    )


def _holds(text: str, probes: tuple[str, ...], budget: SearchBudget) -> bool:
    budget.scan(len(text))
    return all(probe in text for probe in probes)


def _rarest_stretch(index: dict[str, list[int]], quote: ParsedQuote,
                    budget: SearchBudget) -> list[int] | None:
    """For a plain ASCII quote without an underscore, the shortest postings list of its clean
    stretches (see :func:`_lookup_words`) when it is short enough to verify, found by looking
    its stretches up in quote order and stopping at a list of one document (none is
    shorter); ``[]`` when the index lacks a clean stretch (then no document holds the quote).
    ``None`` when the caller must look further: another quote, no clean stretch, or every
    list too long. A step is charged per stretch looked up.

    The stretches are cut by ``str.split`` and looked up as they come, without testing each
    for being clean: a stretch the index holds is made of word characters only (every index
    word is), so in an ASCII quote without ``_`` it is letters and digits, a clean stretch;
    a stretch the index lacks counts only if it is clean (``scale,`` is no index word). Any
    clean stretch's list holds every document holding the quote (see :func:`_lookup_words`),
    so the one found is an exact candidate list, as the shortest of them all would be."""
    needle = quote.needle
    if quote.elided or quote.literal or "_" in needle or not needle.isascii():
        return None
    get = index.get
    best: list[int] | None = None
    looked = 0
    for stretch in needle.split():
        looked += 1
        postings = get(stretch)
        if postings is None:
            if stretch.isalnum():
                _charge(budget, looked)
                return []
        elif best is None or len(postings) < len(best):
            best = postings
            if len(best) == 1:
                break
    _charge(budget, looked)
    return best if best is not None and len(best) <= _VERIFY_LIMIT else None


def _lookup_words(quote: ParsedQuote) -> set[str]:
    """The words :meth:`Corpus._candidates` looks up: those of :func:`_quote_words`, or, for a
    quote without marks written in ASCII, its *clean stretches*: the runs between spaces made
    of letters and digits only, found by one split and a C-level filter where cutting the
    quote into words costs ten times that (most of a rejected quote's search of the index).

    Any set of words that every document holding the quote holds as index words makes an
    exact candidate list (each candidate is then searched); a clean stretch ``c`` is one.
    Found as written, the quote's edges are word boundaries
    (:func:`~vcg_otel.gate.search.find_contiguous`: the characters it tests are this index's
    word characters) and ``c`` lies between spaces, so ``c`` is a whole word of the document.
    Found with slips forgiven (:func:`~vcg_otel.gate.slips.find_slipped`), ``c`` is one token
    of the slip pattern (no space, apostrophe or point in it), matched as written, as a
    number with thousands separators, or with hyphens between its letters; what the pattern
    puts next to it, from the separators around it (each holds a space), is a space or soft
    punctuation, never a word character. So the document holds ``c`` as a word, or ``c`` is
    one of the index's joined compounds or numbers without separators (:func:`_index_words`),
    given the bound the index has always assumed of every quote word: one joins at most
    :data:`_MAX_JOINED` parts of a compound. Stretches with punctuation (``scale,``) are left
    out, not cut: a subset of the quote's words is still an exact filter, only a looser one.
    A quote with none, or outside ASCII (where ``str.isalnum`` accepts the letters of scripts
    the index leaves out), is cut into words as before.
    """
    if not quote.elided and not quote.literal and quote.needle.isascii():
        clean = set(filter(str.isalnum, quote.needle.split()))
        if clean:
            return clean
    return _quote_words(quote)


def _quote_words(quote: ParsedQuote) -> set[str]:
    """Words that any document containing the quote must contain as whole words (index
    words: see :func:`_index_words`), with its slips forgiven (see :func:`_whole_words`).

    A document may hold the quote in any of the readings :func:`~vcg_otel.gate.search.find_quote`
    tries (the whole quote as written, its pieces around the editorial marks, its brackets read
    literally), so only the words every reading needs count. The edges of the whole quote are
    checked to be word boundaries, so all of its words count; inside an elided quote a piece
    may begin or end mid-word next to a mark, so those edge words are left out. Words of
    scripts without spaces are never indexed.
    """
    if not quote.elided and not quote.literal:
        return _needle_words(quote.needle)
    readings: list[set[str]] = []
    if quote.needle:
        readings.append(_needle_words(quote.needle))
    if quote.elided:
        readings.append(_inner_words(quote.pieces))
    if quote.literal:
        readings.append(_inner_words(quote.literal))
    return set.intersection(*readings) if readings else set()


def _needle_words(needle: str) -> set[str]:
    """The words of a whole quote that a document holding it must hold as whole words: all of
    its words but those :func:`_whole_words` calls unsafe, which only a stretch with a hyphen
    or a comma between digits has (most quotes have neither: their words are all of them,
    without cutting the quote into stretches)."""
    words = set(_words(needle))
    # A stretch holds a comma between digits only if the needle does (no space in the match).
    numbers = "," in needle and _DIGIT_COMMA.search(needle) is not None
    if not numbers:
        if "-" not in needle:
            return words
        stretches = [s for s in needle.split() if "-" in s]
    else:
        stretches = [s for s in needle.split()
                     if "-" in s or ("," in s and _DIGIT_COMMA.search(s) is not None)]
    # the words of the stretches, read at once: a space between two is no word character
    return words - set(_words(" ".join(stretches)))


def _inner_words(pieces: tuple[str, ...]) -> set[str]:
    """The whole words of a quote's pieces, without a piece's edge word next to a mark."""
    words: set[str] = set()
    last = len(pieces) - 1
    for k, piece in enumerate(pieces):
        found, unsafe = _whole_words(piece)
        if k > 0 and found and is_spaced_word_char(piece[0]):
            found = found[1:]
        if k < last and found and is_spaced_word_char(piece[-1]):
            found = found[:-1]
        words.update(w for w in found if w not in unsafe)
    return words


class ContentKey:
    """Ids and texts as one cache key, hashed once (an LRU lookup hashes its key more than
    once), compared by value; its :meth:`size` is the texts' total length. Package-internal:
    the corpora of mappings here, the built document sets of :mod:`vcg_otel.documents`.

    Hashable parts only (``TypeError`` otherwise). Equal keys must mean equal content: a
    caller keys only values whose equality is exact (``str`` texts and ids, ``int`` numbers),
    since ``True == 1`` and a ``str`` subclass may define equality as it likes.
    """

    __slots__ = ("chars", "hash", "ids", "texts")

    def __init__(self, ids: tuple[Any, ...], texts: tuple[str, ...]) -> None:
        self.ids, self.texts = ids, texts
        self.hash = hash((ids, texts))
        self.chars = -1  # counted when stored

    def __hash__(self) -> int:
        return self.hash

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, ContentKey) and self.hash == other.hash
                and self.ids == other.ids and self.texts == other.texts)

    def size(self) -> int:
        """Characters of text the key holds (keeps alive)."""
        if self.chars < 0:
            self.chars = sum(map(len, self.texts))
        return self.chars


class _CorpusCache:
    """Corpora of recently seen mappings, keyed by their ids and texts (compared by value).

    The key keeps the texts alive, so it is bounded by their total length as well as by count.
    Only mappings with ``str`` ids are stored, so a hit needs no type check: no other id equals
    a ``str`` (whereas ``True == 1 == 1.0`` would map ``{True: t}`` to the corpus of ``{1: t}``).
    A text that is not a string never makes a key equal to a stored one, and the
    :class:`Corpus` built on a miss rejects it.
    """

    def __init__(self, max_entries: int = 16, max_chars: int = 4_000_000) -> None:
        self._lru: BoundedLRU[ContentKey, Corpus] = BoundedLRU(max_entries, max_chars,
                                                                 ContentKey.size)
        # The mapping asked for last, as one list of its ids then its texts, its corpus, and
        # the mapping itself when it is a dict (for holding()): an app that gates every quote
        # of an answer against the same dict finds it here, compared as ContentKey compares
        # (the same ids and texts, each compared by identity first) but with one list made
        # instead of two tuples, no hashing and no lock.
        self._last: tuple[list[Any], Corpus, object] | None = None

    def get(self, mapping: Mapping[Any, str]) -> Corpus:
        flat = [*mapping, *mapping.values()]
        last = self._last
        if last is not None and last[0] == flat:
            if last[2] is not mapping:
                self._last = (flat, last[1], _remembered(mapping))
            return last[1]
        half = len(flat) // 2
        ids, texts = tuple(flat[:half]), tuple(flat[half:])
        try:
            key = ContentKey(ids, texts)
        except TypeError:  # an unhashable text: Corpus names it
            return Corpus(mapping)
        corpus = self._lru.get(key)
        if corpus is None:
            corpus = Corpus(zip(ids, key.texts, strict=True))
            if set(map(type, ids)) == {str}:
                self._lru.put(key, corpus)
                if self._lru.get(key) is corpus:  # kept (one too large for the bound is not)
                    self._last = (flat, corpus, _remembered(mapping))
        else:
            self._last = (flat, corpus, _remembered(mapping))
        return corpus

    def holding(self, mapping: object, doc_id: str | None) -> Corpus | None:
        """The corpus of the last mapping :meth:`get` read, if ``mapping`` is that same dict
        and its text for ``doc_id`` is still the one that corpus holds; else ``None``.

        An answer that reads ``doc_id``'s document alone (a quote found in its cited
        document) is the same from this corpus as from the mapping read again, which passes
        over every entry; only a quote not found there needs the whole mapping checked.
        """
        last = self._last
        if last is None or last[2] is not mapping or doc_id is None:
            return None
        text = mapping.get(doc_id)  # type: ignore[attr-defined]  # a dict: _remembered
        held = last[1]._texts.get(doc_id)
        if type(text) is str and (text is held or text == held):
            return last[1]
        return None

    def clear(self) -> None:
        self._last = None
        self._lru.clear()


def _remembered(mapping: Mapping[Any, str]) -> object:
    """What the cache keeps of a mapping for :meth:`_CorpusCache.holding`: a ``dict`` itself
    (whose ``get`` is known), nothing of any other mapping."""
    return mapping if type(mapping) is dict else None


_corpora = _CorpusCache()


def corpus_for(mapping: Mapping[Any, str]) -> Corpus:
    """The :class:`Corpus` of a mapping of id to text, shared with earlier calls over the same
    ids and texts (mappings with string ids; at most 16 corpora, 4 M characters in all, least
    recently used dropped).

    Used by :func:`~vcg_otel.gate.quote_gate` and :func:`~vcg_otel.gate.span_gate` when they
    are given a mapping; do not :meth:`Corpus.add` to the corpus it returns.
    """
    return _corpora.get(mapping)


def last_corpus_holding(mapping: object, doc_id: str | None) -> Corpus | None:
    """The corpus :func:`corpus_for` returned last, if ``mapping`` is the dict it was given
    and that dict's text for ``doc_id`` is unchanged: enough for the gate's answer on a
    quote found in document ``doc_id``, without passing over the other entries (which a
    quote not found there still needs checked, by :func:`corpus_for`). ``None`` otherwise."""
    return _corpora.holding(mapping, doc_id)
