"""A dict that makes a missing value from its key, once: for tables over small, finite sets
of keys (enum members and their combinations) read on every audited call, where a hit must
cost one dict look-up and nothing more (no method call, no lock)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

__all__ = ["Memo"]

K = TypeVar("K")
V = TypeVar("V")


class Memo(dict[K, V]):
    """``memo[key]``: ``make(key)``, made on the first read of ``key`` and kept.

    Unbounded: only for key sets that are finite and small. Two threads reading a new key at
    once may both make it; the last one made is kept, which is why ``make`` must be a pure
    function of the key."""

    def __init__(self, make: Callable[[K], V]) -> None:
        super().__init__()
        self.make = make

    def __missing__(self, key: K) -> V:
        value = self[key] = self.make(key)
        return value
