"""Spans and traces as the trace audit reads them, whatever the source (Phoenix's REST spans,
OTLP/JSON lines): flat attribute keys (``retrieval.documents.0.document.content``), hex ids,
nanosecond times, ``end_ns`` ``None`` for a span that is still open."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["SpanRecord", "TraceRecord"]


@dataclass(frozen=True, slots=True)
class SpanRecord:
    trace_id: str
    span_id: str
    parent_id: str | None
    name: str
    kind: str  # openinference.span.kind, upper case ("LLM", "RETRIEVER", "CHAIN", ...)
    start_ns: int
    end_ns: int | None
    attributes: Mapping[str, Any]

    @property
    def open(self) -> bool:
        return self.end_ns is None


@dataclass(slots=True)
class TraceRecord:
    trace_id: str
    spans: list[SpanRecord] = field(default_factory=list)

    @property
    def root(self) -> SpanRecord | None:
        """The span without a parent (``None`` while the root has not ended: it is exported,
        and so stored, only then)."""
        roots = [s for s in self.spans if s.parent_id is None]
        if roots:
            return min(roots, key=lambda s: s.start_ns)
        return None

    @property
    def start_ns(self) -> int:
        root = self.root
        return root.start_ns if root is not None else min(s.start_ns for s in self.spans)
