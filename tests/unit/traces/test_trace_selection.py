"""--since, --shard and the cursor: which traces a run audits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vcg_otel.traces.select import LOOKBACK_NS, Cursor, Shard, parse_shard, parse_since

NOW = 1_780_000_000 * 1_000_000_000


@pytest.mark.parametrize("text, seconds", [("90s", 90), ("30m", 1800), ("1h", 3600),
                                           ("2d", 172800), ("1w", 604800), ("1.5h", 5400)])
def test_a_duration_counts_back_from_now(text: str, seconds: int) -> None:
    assert parse_since(text, NOW) == NOW - seconds * 1_000_000_000


def test_an_iso_time_without_a_zone_is_utc() -> None:
    assert parse_since("2026-12-01T08:00:00", NOW) == parse_since("2026-12-01T08:00:00Z", NOW)
    assert parse_since("2026-12-01T09:00:00+01:00", NOW) == parse_since(
        "2026-12-01T08:00:00Z", NOW)


@pytest.mark.parametrize("text", ["yesterday", "1y", "-1h", ""])
def test_anything_else_is_refused_with_the_forms_it_takes(text: str) -> None:
    with pytest.raises(ValueError, match="duration"):
        parse_since(text, NOW)


@pytest.mark.parametrize("text", ["2/2", "1/0", "a/b", "1", "-1/2"])
def test_a_shard_outside_its_count_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="K/N"):
        parse_shard(text)


def test_shards_split_trace_ids_into_disjoint_parts_that_cover_them_all() -> None:
    ids = [format(i * 0x9E3779B97F4A7C15 % (1 << 128), "032x") for i in range(1, 2001)]
    shards = [parse_shard(f"{k}/4") for k in range(4)]
    owners = [[s for s in shards if s.has(t)] for t in ids]
    assert all(len(o) == 1 for o in owners)
    sizes = [sum(1 for o in owners if o[0] == s) for s in shards]
    assert min(sizes) > 400  # roughly even: a hash, not the id's low bits


def test_a_shard_is_the_same_for_an_id_in_either_case() -> None:
    trace = "0AF7651916CD43DD8448EB211C80319C"
    assert Shard(1, 3).has(trace) == Shard(1, 3).has(trace.lower())


def test_the_cursor_starts_the_next_run_a_look_back_before_where_this_one_stopped(
        tmp_path: Path) -> None:
    path = tmp_path / "cursor.json"
    assert Cursor(path, "a").start() is None
    Cursor(path, "a").save(NOW)
    Cursor(path, "b").save(NOW + 1)  # another source or shard keeps its own entry
    assert Cursor(path, "a").start() == NOW - LOOKBACK_NS
    assert Cursor(path, "b").value == NOW + 1
    assert set(json.loads(path.read_text())) == {"a", "b"}


def test_an_unreadable_cursor_is_an_error_not_a_fresh_start(tmp_path: Path) -> None:
    path = tmp_path / "cursor.json"
    path.write_text("{half")
    with pytest.raises(ValueError, match="unreadable"):
        Cursor(path, "a")
