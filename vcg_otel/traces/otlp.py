"""An OTLP/JSON export read one line at a time: the OpenTelemetry Collector's file exporter
(one ``ExportTraceServiceRequest`` JSON object per line) or the SDK's OTLP JSON encoding.

The spec's JSON encoding writes trace and span ids as hex; protobuf's own JSON mapping (what
``MessageToJson`` gives) writes them as base64: both are read. Integers may be strings (64-bit
values in JSON). Spans of one trace may be spread over several lines (one per export batch):
a trace is handed on once its root span has arrived and the line that brought it is done;
at most ``max_pending`` traces are held, the oldest handed on (or, without a root, counted
open) beyond that, so memory stays bounded whatever the file's size.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections import OrderedDict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .model import SpanRecord, TraceRecord

__all__ = ["OtlpFileSource", "parse_request", "span_id_hex"]

_HEX = re.compile(r"^[0-9a-fA-F]+$")
_KIND_KEY = "openinference.span.kind"


class OtlpInputError(ValueError):
    """A line that is not OTLP/JSON; the message names the file and line."""


def span_id_hex(value: Any, length: int) -> str | None:
    """An id as lower-case hex (``length`` hex digits), from hex or base64; ``None`` for an
    empty or all-zero id (a root span's parent)."""
    if not isinstance(value, str) or not value:
        return None
    if len(value) == length and _HEX.match(value):
        text = value.lower()
    else:
        try:
            text = base64.b64decode(value, validate=True).hex()
        except (binascii.Error, ValueError):
            return None
        if len(text) != length:
            return None
    return None if set(text) == {"0"} else text


def _value(v: Any) -> Any:
    if not isinstance(v, dict):
        return None
    for key in ("stringValue", "boolValue", "doubleValue"):
        if key in v:
            return v[key]
    if "intValue" in v:
        try:
            return int(v["intValue"])
        except (TypeError, ValueError):
            return None
    if "arrayValue" in v:
        return [_value(x) for x in (v["arrayValue"] or {}).get("values", [])]
    if "kvlistValue" in v:
        return {kv.get("key"): _value(kv.get("value"))
                for kv in (v["kvlistValue"] or {}).get("values", [])}
    if "bytesValue" in v:
        return v["bytesValue"]
    return None


def _attributes(items: Any) -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for kv in items or ():
        if isinstance(kv, dict) and isinstance(kv.get("key"), str):
            flat[kv["key"]] = _value(kv.get("value"))
    return flat


def _nanos(value: Any) -> int | None:
    try:
        n = int(value)
    except (TypeError, ValueError):
        return None
    return n or None


def parse_request(data: Any) -> Iterator[SpanRecord]:
    """The spans of one ``ExportTraceServiceRequest`` (as JSON)."""
    if not isinstance(data, dict):
        raise OtlpInputError("not an OTLP/JSON traces object (no resourceSpans)")
    for rs in data.get("resourceSpans") or data.get("resource_spans") or ():
        for ss in rs.get("scopeSpans") or rs.get("scope_spans") or ():
            for span in ss.get("spans") or ():
                trace_id = span_id_hex(span.get("traceId"), 32)
                span_id = span_id_hex(span.get("spanId"), 16)
                if trace_id is None or span_id is None:
                    continue
                attrs = _attributes(span.get("attributes"))
                yield SpanRecord(
                    trace_id=trace_id, span_id=span_id,
                    parent_id=span_id_hex(span.get("parentSpanId"), 16),
                    name=str(span.get("name") or ""),
                    kind=str(attrs.get(_KIND_KEY) or "UNKNOWN").upper(),
                    start_ns=_nanos(span.get("startTimeUnixNano")) or 0,
                    end_ns=_nanos(span.get("endTimeUnixNano")),
                    attributes=attrs)


class OtlpFileSource:
    """Traces of an OTLP/JSON lines file (see the module docstring)."""

    def __init__(self, path: Path, *, max_pending: int = 10_000) -> None:
        self.path = path
        self.max_pending = max_pending
        self.open_traces = 0  # traces whose root never arrived (still open when exported)

    def traces(self) -> Iterator[TraceRecord]:
        pending: OrderedDict[str, TraceRecord] = OrderedDict()
        rooted: set[str] = set()
        try:
            handle = self.path.open("rb")
        except OSError as exc:
            raise OtlpInputError(f"{self.path}: cannot read ({exc.strerror})") from exc
        with handle:
            for number, raw in enumerate(handle, 1):
                if not raw.strip():
                    continue
                try:
                    data = json.loads(raw)
                except ValueError as exc:
                    raise OtlpInputError(f"{self.path}:{number}: not JSON ({exc})") from exc
                try:
                    spans = list(parse_request(data))
                except OtlpInputError as exc:
                    raise OtlpInputError(f"{self.path}:{number}: {exc}") from exc
                for span in spans:
                    trace = pending.get(span.trace_id)
                    if trace is None:
                        trace = pending[span.trace_id] = TraceRecord(span.trace_id)
                    trace.spans.append(span)
                    if span.parent_id is None and not span.open:
                        rooted.add(span.trace_id)
                # a trace whose root has arrived is complete once this line is done
                for trace_id in [t for t in pending if t in rooted]:
                    rooted.discard(trace_id)
                    yield pending.pop(trace_id)
                while len(pending) > self.max_pending:
                    pending.popitem(last=False)
                    self.open_traces += 1
        self.open_traces += len(pending)
