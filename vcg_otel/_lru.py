"""One bounded, thread-safe LRU map, shared by the document and verdict caches."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

__all__ = ["BoundedLRU"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class BoundedLRU(Generic[K, V]):
    """Least-recently-used map bounded by entries and by a size measure of its keys.

    A key whose size alone exceeds ``max_size`` is never stored. :meth:`put` may be given an
    entry's size instead (when what an entry holds is not measured by its key: the memory of
    the value, say).
    """

    def __init__(self, max_entries: int, max_size: int, size: Callable[[K], int]) -> None:
        if max_entries < 1 or max_size < 1:
            raise ValueError("max_entries and max_chars must be positive")
        self.max_entries = max_entries
        self.max_size = max_size
        self._size_of = size
        self._items: OrderedDict[K, V] = OrderedDict()
        self._sizes: dict[K, int] = {}
        self._size = 0
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        with self._lock:
            hit = self._items.get(key)
            if hit is not None:
                self._items.move_to_end(key)
            return hit

    def put(self, key: K, value: V, size: int | None = None) -> None:
        """Store ``value`` (unless ``key`` is already held); ``size`` defaults to the size
        measure of ``key``."""
        size = self._size_of(key) if size is None else size
        if size > self.max_size:
            return
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return
            self._items[key] = value
            self._sizes[key] = size
            self._size += size
            self._evict()

    def resize(self, max_entries: int | None = None, max_size: int | None = None) -> None:
        """Change either bound; entries are evicted, least recently used first, to fit."""
        for value in (max_entries, max_size):
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int) or value < 1
            ):
                raise ValueError("max_entries and max_chars must be positive integers")
        with self._lock:
            if max_entries is not None:
                self.max_entries = max_entries
            if max_size is not None:
                self.max_size = max_size
            self._evict()

    def _evict(self) -> None:
        while len(self._items) > self.max_entries or self._size > self.max_size:
            old, _ = self._items.popitem(last=False)
            self._size -= self._sizes.pop(old)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._sizes.clear()
            self._size = 0

    def __len__(self) -> int:
        return len(self._items)

    @property
    def size(self) -> int:
        """Total size of the entries held."""
        return self._size
