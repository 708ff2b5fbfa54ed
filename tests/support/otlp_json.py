"""OTLP/JSON lines as the OpenTelemetry Collector's file exporter writes them: one
``ExportTraceServiceRequest`` per line in the spec's JSON encoding (ids as hex, the
proto3 JSON mapping otherwise), or protobuf's own JSON mapping (ids as base64), from real
export requests (what a collector received, or the SDK's own OTLP encoding of its spans)."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from google.protobuf.json_format import MessageToDict
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.trace import ReadableSpan

__all__ = ["sdk_request", "write_lines"]

_ID_KEYS = {"traceId", "spanId", "parentSpanId"}


def _hex_ids(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: (base64.b64decode(v).hex() if k in _ID_KEYS and isinstance(v, str) else
                    _hex_ids(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [_hex_ids(v) for v in value]
    return value


def sdk_request(spans: Iterable[ReadableSpan]) -> Any:
    """The SDK's OTLP encoding of ``spans`` (an ``ExportTraceServiceRequest``)."""
    return encode_spans(list(spans))


def write_lines(path: Path, requests: Iterable[Any], *, hex_ids: bool = True) -> Path:
    """Append one JSON line per export request; ``hex_ids``: the spec's (and the collector
    file exporter's) encoding, else protobuf's base64."""
    with path.open("a", encoding="utf-8") as handle:
        for request in requests:
            data = MessageToDict(request)
            handle.write(json.dumps(_hex_ids(data) if hex_ids else data) + "\n")
    return path
