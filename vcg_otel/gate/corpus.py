"""Documents normalized once, and an index so "is it anywhere else?" costs no full scan.

The original gate re-normalized every document on every quote it could not find where cited.
Here a :class:`DocumentCache` keyed by document *content* normalizes each text once (a changed
document is simply a new key), and a :class:`Corpus` groups the documents a request cites.

When a quote is not in its cited document, the corpus must answer "which other documents
contain it?". With few documents a scan is cheapest. With many, a word index answers: every
whole word of the quote must occur in a document that contains the quote, so the rarest of
those words yields a short candidate list, and only candidates are searched.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from .._lru import BoundedLRU
from .normalize import NormalizedText, normalize_with_map
from .quote import ParsedQuote
from .search import DEFAULT_MAX_GAP, Span, find_quote, is_spaced_word_char

__all__ = ["Corpus", "DocumentCache", "default_cache"]

# A word: a run of word characters of scripts that separate words with spaces (the same
# characters search.is_spaced_word_char accepts), so quote words and document words split alike.
_WORD = re.compile(
    "[^\\W\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u2e80-\ua4cf\uac00-\ud7af"
    "\uf900-\ufaff\uff66-\uff9f\U00020000-\U0010ffff]+"
)
# Below this many documents a scan beats building and consulting the index.
_SCAN_LIMIT = 32
# Candidate lists at most this long are verified directly instead of intersected further.
_VERIFY_LIMIT = 48


class DocumentCache:
    """Thread-safe LRU of normalized documents, keyed by text, bounded by entries and characters.

    Args:
        max_entries: most documents kept.
        max_chars: most original characters kept in all (normalized text and maps come on top,
            roughly the same again for mostly-ASCII text).
    """

    def __init__(self, max_entries: int = 50_000, max_chars: int = 200_000_000) -> None:
        self._lru: BoundedLRU[str, NormalizedText] = BoundedLRU(max_entries, max_chars, len)

    def get(self, text: str) -> NormalizedText:
        """The normalized form of ``text``, computed at most once while it stays cached."""
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


default_cache = DocumentCache()


def _index_words(text: str) -> set[str]:
    return set(_WORD.findall(text))


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
        self._lock = threading.Lock()
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
            if self._texts.get(key) is text or self._texts.get(key) == text:
                return
            self._texts[key] = text
            self._normalized.pop(key, None)
            self._index = None

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

    # -- search ------------------------------------------------------------------------------

    def find_in(
        self, doc_id: Any, quote: ParsedQuote, max_gap: int = DEFAULT_MAX_GAP
    ) -> Span | None:
        """Where the quote occurs in one document (``None`` if absent or unknown)."""
        if str(doc_id) not in self._texts:
            return None
        return find_quote(self.normalized(doc_id), quote, max_gap)

    def find_elsewhere(
        self, quote: ParsedQuote, exclude: Any = None, max_gap: int = DEFAULT_MAX_GAP
    ) -> list[tuple[str, Span]]:
        """Every document other than ``exclude`` that contains the quote, in corpus order."""
        skip = None if exclude is None else str(exclude)
        found = []
        for doc_id in self._candidates(quote):
            if doc_id == skip:
                continue
            span = find_quote(self.normalized(doc_id), quote, max_gap)
            if span is not None:
                found.append((doc_id, span))
        return found

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

    def _candidates(self, quote: ParsedQuote) -> list[str]:
        if len(self._texts) <= _SCAN_LIMIT:
            return list(self._texts)
        self.build_index()
        index, order = self._index, self._order
        assert index is not None
        words = _quote_words(quote)
        if not words:
            return order
        lists = []
        for word in words:
            postings = index.get(word)
            if postings is None:
                return []
            lists.append(postings)
        lists.sort(key=len)
        candidates: set[int] | list[int] = lists[0]
        for more in lists[1:4]:
            if len(candidates) <= _VERIFY_LIMIT:
                break
            smaller = set(candidates)
            candidates = [i for i in more if i in smaller]
        return [order[i] for i in sorted(candidates)]


def _quote_words(quote: ParsedQuote) -> set[str]:
    """Words that any document containing the quote must contain as whole words.

    The edges of the whole quote are checked to be word boundaries, so all of its words count.
    Inside an elided quote a piece may begin or end mid-word next to a mark, so those edge words
    are left out. Words of scripts without spaces are never indexed.
    """
    if quote.needle and not quote.elided:
        return _index_words(quote.needle)
    words: set[str] = set()
    last = len(quote.pieces) - 1
    for k, piece in enumerate(quote.pieces):
        found = _WORD.findall(piece)
        if k > 0 and found and is_spaced_word_char(piece[0]):
            found = found[1:]
        if k < last and found and is_spaced_word_char(piece[-1]):
            found = found[:-1]
        words.update(found)
    return words
