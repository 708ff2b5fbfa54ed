"""Verdict cache: the same request to the same judge is never paid for twice.

A verdict is reused (from this cache, or from a call of the same audit still in flight) only
for a request that showed the judge exactly the same thing: the key is the judge's model,
the prompt version (which names the prompts' wording) and every text the prompt shows —
the claim, the quote and the source window (for a quote-less citation, the located passages
with their places). Two quotes that share a claim and a window (two inline quotes of one
sentence over a short document) are two keys.
"""

from __future__ import annotations

from .._lru import BoundedLRU
from ..judge.runner import JudgeCall
from ..judge.verdict import Verdict

__all__ = ["CacheKey", "VerdictCache", "verdict_key"]

#: (judge model, prompt version, claim, quote, source window or located passages)
CacheKey = tuple[str, str, str, str, str]


def verdict_key(model: str, call: JudgeCall) -> CacheKey:
    """The key of ``call``'s verdict from judge ``model``: everything the judge is shown."""
    return (model, call.prompt_version, call.claim, call.quote, call.source)


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
