"""Verdict cache: the same claim against the same passage is never paid for twice."""

from __future__ import annotations

from .._lru import BoundedLRU
from ..judge.verdict import Verdict

__all__ = ["CacheKey", "VerdictCache"]

# (judge model, prompt version, claim, source window)
CacheKey = tuple[str, str, str, str]


class VerdictCache:
    """Thread-safe LRU of successful verdicts, bounded by entries and by characters of keys.

    Fail-closed verdicts are never stored: a judge that timed out gets another chance.
    """

    def __init__(self, max_entries: int = 10_000, max_chars: int = 50_000_000) -> None:
        self._lru: BoundedLRU[CacheKey, Verdict] = BoundedLRU(
            max_entries, max_chars, lambda key: sum(len(part) for part in key))
        self.hits = 0
        self.misses = 0

    def get(self, key: CacheKey) -> Verdict | None:
        hit = self._lru.get(key)
        if hit is None:
            self.misses += 1
        else:
            self.hits += 1
        return hit

    def put(self, key: CacheKey, verdict: Verdict) -> None:
        if not verdict.fail_closed:
            self._lru.put(key, verdict)

    def clear(self) -> None:
        self._lru.clear()

    def __len__(self) -> int:
        return len(self._lru)
