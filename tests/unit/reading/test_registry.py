"""The registry asks a plain dict with a few keys only the readers whose keys it has, found
from its keys at once: the same readers, in the same order, as asking each reader."""

from __future__ import annotations

import itertools

from vcg_otel.reading.registry import FORMATS, _readers_of


def test_the_readers_of_a_few_keys_are_those_whose_keys_they_meet_in_order() -> None:
    keys = sorted({k for reader in FORMATS for k in reader.keys} | {"answer", "other"})
    for size in range(4):
        for chosen in itertools.combinations(keys, size):
            expected = tuple(r for r in FORMATS if not r.keys.isdisjoint(chosen))
            assert _readers_of(dict.fromkeys(chosen).keys()) == expected, chosen
