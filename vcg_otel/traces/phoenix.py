"""A Phoenix project's traces, read and annotated through Phoenix's public API
(``arize-phoenix-client``: ``spans.get_spans``, ``spans.get_span_annotations``,
``spans.log_span_annotations``; never its database).

Paging with bounded memory: root spans are listed a time window at a time, each window
holding at most ``page`` of them (a fuller window is split in two and read again, earliest
half first), then the spans of those traces only (``trace_ids=``). Memory holds one page of
traces whatever the project's size. The client's ``get_spans`` returns spans newest-inserted
first and keeps its cursor to itself, hence the windows.

Needs the ``phoenix`` extra. Importing ``phoenix.client`` beside the Phoenix *server* package
loads the server too (seconds); the client-only install imports in a fraction of a second.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import datetime, timezone
from typing import Any

from .model import SpanRecord, TraceRecord

__all__ = ["PhoenixSource", "SourceUnavailable"]

_MIN_WINDOW_NS = 1_000  # a microsecond: Phoenix stores times to the microsecond
_SPANS_PER_REQUEST = 100_000


class SourceUnavailable(Exception):
    """Phoenix cannot be reached or refused the request; the message says which and where."""


class SourceInputError(Exception):
    """A request Phoenix understood and refused (an unknown project ...)."""


def _dt(ns: int) -> datetime:
    return datetime.fromtimestamp(ns / 1e9, tz=timezone.utc)


def _ns(value: Any) -> int | None:
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, str) and value:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    else:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return int(moment.timestamp() * 1_000_000) * 1_000


def span_record(span: Any) -> SpanRecord:
    """A Phoenix REST span (``v1.Span``: attributes already flattened) as a record."""
    context = span.get("context") or {}
    return SpanRecord(
        trace_id=str(context.get("trace_id") or ""), span_id=str(context.get("span_id") or ""),
        parent_id=span.get("parent_id") or None, name=str(span.get("name") or ""),
        kind=str(span.get("span_kind") or "UNKNOWN").upper(),
        start_ns=_ns(span.get("start_time")) or 0, end_ns=_ns(span.get("end_time")),
        attributes=dict(span.get("attributes") or {}))


class PhoenixSource:
    """One Phoenix project, read and annotated (see the module docstring)."""

    def __init__(self, url: str, project: str, *, api_key: str | None = None,
                 page: int = 200, timeout: int = 30) -> None:
        try:
            import httpx
            from phoenix.client import Client
        except ImportError as exc:  # pragma: no cover - the extra is missing
            raise SourceInputError("--from-phoenix needs the phoenix extra: "
                                   "pip install 'vcg-otel[phoenix]'") from exc
        self._httpx = httpx
        self.url, self.project, self.page, self.timeout = url.rstrip("/"), project, page, timeout
        self.client = Client(base_url=self.url, api_key=api_key)
        self.requests = 0

    # -- errors --------------------------------------------------------------------------

    def _call(self, what: str, fn: Any, **kwargs: Any) -> Any:
        httpx = self._httpx
        self.requests += 1
        try:
            return fn(**kwargs)
        except httpx.HTTPStatusError as exc:
            status = exc.response.status_code
            if status == 404:
                raise SourceInputError(f"Phoenix at {self.url}: no project {self.project!r} "
                                       f"({what})") from exc
            if status in (401, 403):
                raise SourceUnavailable(f"Phoenix at {self.url} refused {what} (HTTP {status}:"
                                        " set PHOENIX_API_KEY)") from exc
            raise SourceUnavailable(f"Phoenix at {self.url} failed {what} (HTTP {status})"
                                    ) from exc
        except httpx.HTTPError as exc:
            raise SourceUnavailable(f"Phoenix at {self.url} is unreachable ({what}: "
                                    f"{type(exc).__name__}: {exc})") from exc

    def _get_spans(self, **kwargs: Any) -> list[Any]:
        return list(self._call("listing spans", self.client.spans.get_spans,
                               project_identifier=self.project, timeout=self.timeout, **kwargs))

    # -- reading -------------------------------------------------------------------------

    def _windows(self, start_ns: int, end_ns: int) -> Iterator[list[Any]]:
        """Root spans in [start, end), in windows of at most ``page``, earliest first."""
        stack = [(start_ns, end_ns)]
        while stack:
            lo, hi = stack.pop()
            roots = self._get_spans(parent_id="null", start_time=_dt(lo), end_time=_dt(hi),
                                    limit=self.page + 1)
            if len(roots) > self.page and hi - lo > _MIN_WINDOW_NS:
                mid = lo + (hi - lo) // 2
                stack += [(mid, hi), (lo, mid)]  # the earlier half is read first
                continue
            if roots:
                yield sorted(roots, key=lambda s: _ns(s.get("start_time")) or 0)

    def traces(self, start_ns: int, end_ns: int) -> Iterator[list[TraceRecord]]:
        """Pages of whole traces whose root started in [start, end), earliest first."""
        for roots in self._windows(start_ns, end_ns):
            order = [str(r["context"]["trace_id"]) for r in roots]
            by_trace: dict[str, TraceRecord] = {t: TraceRecord(t) for t in order}
            for span in self._get_spans(trace_ids=order, limit=_SPANS_PER_REQUEST):
                record = span_record(span)
                if record.trace_id in by_trace:
                    by_trace[record.trace_id].spans.append(record)
            yield [by_trace[t] for t in order]

    def check(self) -> None:
        """Fail now, with the reason, when Phoenix or the project is not there."""
        self._get_spans(limit=1)

    # -- annotations ---------------------------------------------------------------------

    def annotations(self, span_ids: Iterable[str], names: list[str]) -> list[Any]:
        ids = list(span_ids)
        if not ids:
            return []
        return list(self._call("reading annotations", self.client.spans.get_span_annotations,
                               span_ids=ids, project_identifier=self.project,
                               include_annotation_names=names, timeout=self.timeout))

    def write(self, annotations: list[dict[str, Any]]) -> int:
        """Write (or, same span, name and identifier: replace) ``annotations``."""
        written = 0
        for i in range(0, len(annotations), 500):
            batch = annotations[i:i + 500]
            self._call("writing annotations", self.client.spans.log_span_annotations,
                       span_annotations=batch, sync=True)
            written += len(batch)
        return written
