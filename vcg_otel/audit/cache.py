"""Verdict cache: the same claim against the same passage is never paid for twice."""

from __future__ import annotations

import threading
from collections import OrderedDict

from ..judge.verdict import Verdict

__all__ = ["CacheKey", "VerdictCache"]

# (judge model, prompt version, claim, source window)
CacheKey = tuple[str, str, str, str]


class VerdictCache:
    """Thread-safe LRU of successful verdicts, bounded by entries and by characters of keys.

    Fail-closed verdicts are never stored: a judge that timed out gets another chance.
    """

    def __init__(self, max_entries: int = 10_000, max_chars: int = 50_000_000) -> None:
        if max_entries < 1 or max_chars < 1:
            raise ValueError("max_entries and max_chars must be positive")
        self.max_entries = max_entries
        self.max_chars = max_chars
        self._items: OrderedDict[CacheKey, Verdict] = OrderedDict()
        self._chars = 0
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    @staticmethod
    def _size(key: CacheKey) -> int:
        return sum(len(part) for part in key)

    def get(self, key: CacheKey) -> Verdict | None:
        with self._lock:
            hit = self._items.get(key)
            if hit is None:
                self.misses += 1
                return None
            self._items.move_to_end(key)
            self.hits += 1
            return hit

    def put(self, key: CacheKey, verdict: Verdict) -> None:
        if verdict.fail_closed or self._size(key) > self.max_chars:
            return
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return
            self._items[key] = verdict
            self._chars += self._size(key)
            while len(self._items) > self.max_entries or self._chars > self.max_chars:
                old, _ = self._items.popitem(last=False)
                self._chars -= self._size(old)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._chars = 0

    def __len__(self) -> int:
        return len(self._items)
