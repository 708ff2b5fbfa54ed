"""Which traces a run audits: ``--since`` (a time or a duration), the cursor a scheduled run
keeps, and ``--shard K/N`` (traces split by a hash of their id, as a collector's
load-balancing exporter routes them: N workers cover a project with no coordination and no
double work)."""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

__all__ = ["LOOKBACK_NS", "Cursor", "Shard", "parse_shard", "parse_since"]

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|m|h|d|w)\s*$")
_UNIT_S = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
#: How far before the cursor a scheduled run reads again: a trace is stored only when its
#: root span ends, so a request still running at the last run shows up with an earlier start
#: time. Traces audited already are skipped (their annotations carry the audit version).
LOOKBACK_NS = 15 * 60 * 1_000_000_000


def parse_since(text: str, now_ns: int | None = None) -> int:
    """``1h``, ``30m``, ``2d``, ``90s``, ``1w`` before now, or an ISO 8601 time (UTC unless
    it says otherwise), as nanoseconds since the epoch."""
    now_ns = time.time_ns() if now_ns is None else now_ns
    m = _DURATION.match(text)
    if m:
        return now_ns - int(float(m.group(1)) * _UNIT_S[m.group(2)] * 1_000_000_000)
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"bad --since {text!r}: use a duration (30m, 1h, 2d) or an ISO "
                         "time (2026-12-01T08:00:00Z)") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return int(moment.timestamp() * 1_000_000) * 1_000


@dataclass(frozen=True)
class Shard:
    index: int
    count: int

    def has(self, trace_id: str) -> bool:
        """Whether the trace (hex id) is this shard's: SHA-256 of the id's bytes, modulo N
        (stable across runs, machines and Python versions, unlike ``hash()``)."""
        if self.count == 1:
            return True
        try:
            raw = bytes.fromhex(trace_id)
        except ValueError:
            raw = trace_id.encode()
        return int.from_bytes(hashlib.sha256(raw).digest()[:8], "big") % self.count == self.index

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


ALL = Shard(0, 1)


def parse_shard(text: str) -> Shard:
    m = re.match(r"^\s*(\d+)\s*/\s*(\d+)\s*$", text)
    if not m or int(m.group(2)) < 1 or int(m.group(1)) >= int(m.group(2)):
        raise ValueError(f"bad --shard {text!r}: use K/N with 0 <= K < N, e.g. 0/4")
    return Shard(int(m.group(1)), int(m.group(2)))


class Cursor:
    """Where the last run stopped listing (``--cursor FILE``, JSON), per source and shard, so
    that a scheduled run reads only what arrived since. Written atomically (a temporary file
    renamed over it): a run killed mid-write leaves the previous cursor."""

    def __init__(self, path: Path | None, key: str) -> None:
        self.path, self.key = path, key
        self.value: int | None = None
        if path is not None and path.exists():
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise ValueError(f"--cursor {path}: unreadable ({exc})") from exc
            entry = data.get(key) if isinstance(data, dict) else None
            if isinstance(entry, dict) and isinstance(entry.get("listed_until_ns"), int):
                self.value = entry["listed_until_ns"]

    def start(self) -> int | None:
        """Where this run starts listing: the cursor less :data:`LOOKBACK_NS`."""
        return None if self.value is None else self.value - LOOKBACK_NS

    def save(self, listed_until_ns: int) -> None:
        self.value = listed_until_ns
        if self.path is None:
            return
        data: dict[str, object] = {}
        if self.path.exists():
            try:
                loaded = json.loads(self.path.read_text(encoding="utf-8"))
                data = loaded if isinstance(loaded, dict) else {}
            except (OSError, ValueError):
                data = {}
        moment = datetime.fromtimestamp(listed_until_ns / 1e9, tz=timezone.utc)
        data[self.key] = {"listed_until_ns": listed_until_ns, "listed_until": moment.isoformat()}
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=f".{self.path.name}.")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=1)
        os.replace(tmp, self.path)
