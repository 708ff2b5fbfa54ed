"""Span annotations that show fabrication rates in Phoenix, written from finished audit spans.

What OTLP cannot carry is *annotations*, which are what Phoenix aggregates into label
fractions. :class:`PhoenixAnnotationProcessor` writes them through Phoenix's REST API, in the
background (the writer's rules: :mod:`vcg_otel.phoenix.writer`):

* ``citation_verdict`` on every ``citation.check`` span (with ``check_spans=False``: one per
  citation on the ``citation_audit`` span, told apart by identifier ``citation-<index>``):
  label = final verdict, score = 1 when the quote was fabricated (``not_found``) or
  misattributed, else 0; explanation = the judge's reasoning (when content capture allows it);
  annotator kind ``CODE`` for a gate outcome, ``LLM`` for a judge verdict.
* ``citation_fabrication`` on every ``citation_audit`` span *and on the request's root span*
  (when the audit is not the root itself): label ``fabricated`` when any citation of the
  request was not found or misattributed, else ``clean``; score = the fraction of the
  request's citations that were. Phoenix's project view lists root spans, so the fabrication
  rate is visible there without changing any filter.

It is a plain ``SpanProcessor``: add it to any SDK provider, ``phoenix.otel.register``'s
included (pass ``replace_default_processor=False`` there, or Phoenix's provider drops its own
exporter).
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from opentelemetry import metrics
from opentelemetry.context import Context
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor

from .._version import __version__
from ..audit.models import Outcome
from ..otel import semconv
from .writer import AnnotationWriter

__all__ = ["DEFAULT_ENDPOINT", "REQUEST_ANNOTATION", "VERDICT_ANNOTATION",
           "PhoenixAnnotationProcessor", "base_url"]

DEFAULT_ENDPOINT = "http://localhost:6006"
VERDICT_ANNOTATION = "citation_verdict"
REQUEST_ANNOTATION = "citation_fabrication"
_TRACES_PATH = "/v1/traces"
_MAX_ROOTS = 50_000


def base_url(endpoint: str | None) -> str:
    """Phoenix's base URL from ``endpoint`` (with or without ``/v1/traces``), else from
    ``PHOENIX_COLLECTOR_ENDPOINT``, else ``http://localhost:6006`` (Phoenix's own default)."""
    base = (endpoint or os.environ.get("PHOENIX_COLLECTOR_ENDPOINT") or DEFAULT_ENDPOINT)
    base = base.strip().rstrip("/")
    return base[: -len(_TRACES_PATH)] if base.endswith(_TRACES_PATH) else base


def _headers(headers: Mapping[str, str] | None, api_key: str | None) -> dict[str, str]:
    merged = {k.lower(): v for k, v in (headers or {}).items()}
    merged.update({"content-type": "application/json", "user-agent": f"vcg-otel/{__version__}"})
    key = api_key or (None if "authorization" in merged else os.environ.get("PHOENIX_API_KEY"))
    if key:
        merged["authorization"] = f"Bearer {key}"
    return merged


def _hex(span_id: int) -> str:
    return format(span_id, "016x")


class PhoenixAnnotationProcessor(SpanProcessor):
    """Writes Phoenix span annotations for finished audit spans (see the module docstring).

    Args:
        endpoint: Phoenix base URL (``/v1/traces`` at its end is ignored; default
            ``PHOENIX_COLLECTOR_ENDPOINT`` or ``http://localhost:6006``).
        api_key: sent as a bearer token (default ``PHOENIX_API_KEY`` unless ``headers`` has an
            ``authorization``); never logged.
        headers: extra request headers (e.g. the ones given to ``phoenix.otel.register``).
        max_queue: annotations held at most -- queued, in flight and held back together;
            beyond it they are dropped and counted (``citation.annotations.dropped``).
        batch_size: annotations per request.
        max_retries: retries per batch, with exponential backoff from ``backoff`` seconds.
        max_span_wait_tries: how often an annotation whose span Phoenix has not stored yet
            (HTTP 404; spans lag under load) is tried again, backing off up to 8 s (about a
            minute in all) before it is dropped.
        request_timeout: total seconds per HTTP request (a deadline, not a per-read timeout).
        shutdown_timeout: the most ``shutdown`` takes; what is still held then is dropped and
            counted (reason ``shutdown``).
        meter_provider: where the dropped-annotations counter lives (default: global).
        sync: ``True``: Phoenix writes each batch before it answers, so ``written`` counts
            stored annotations, and annotations of spans not stored yet come back as 404 and
            are held back here. ``False``: Phoenix queues the batch and writes annotations in
            bulk, several times cheaper for it under load; it retries annotations of late
            spans itself (every 10 s, for 10 minutes), and ``written`` counts accepted ones.
        send_delay: seconds an annotation waits after its span ended before it is sent, so
            that the span has been exported and stored first (the batch span processor sends
            every 0.5 s by default). Annotations that arrive before their span cost Phoenix a
            retry loop which, under sustained load, slows its ingestion of everything else.
        per_citation: write ``citation_verdict`` for every citation; ``False`` writes only
            the per-request ``citation_fabrication`` (the verdicts stay on the spans or
            events): a sixth of the annotations with five citations, for high volume.

    ``written``, ``dropped``, ``dropped_by_reason``, ``held_back`` and ``pending`` tell where
    the annotations went; after ``shutdown`` ``written + dropped`` is every one produced.
    """

    def __init__(
        self,
        endpoint: str | None = None,
        *,
        api_key: str | None = None,
        headers: Mapping[str, str] | None = None,
        max_queue: int = 10_000,
        batch_size: int = 100,
        max_retries: int = 5,
        backoff: float = 0.25,
        request_timeout: float = 3.0,
        shutdown_timeout: float = 5.0,
        max_span_wait_tries: int = 12,
        meter_provider: metrics.MeterProvider | None = None,
        sync: bool = True,
        send_delay: float = 2.0,
        per_citation: bool = True,
    ) -> None:
        self.url = base_url(endpoint) + f"/v1/span_annotations?sync={str(sync).lower()}"
        self.shutdown_timeout = shutdown_timeout
        self.per_citation = per_citation
        self._roots: OrderedDict[int, int] = OrderedDict()
        self._roots_lock = threading.Lock()
        meter = metrics.get_meter("vcg_otel", __version__, meter_provider)
        counter = meter.create_counter(
            semconv.METRIC_ANNOTATIONS_DROPPED, "{annotation}",
            "Phoenix annotations dropped (queue full or Phoenix unreachable), by reason")
        self._writer = AnnotationWriter(
            self.url, _headers(headers, api_key), max_queue=max_queue, batch_size=batch_size,
            max_retries=max_retries, backoff=backoff, request_timeout=request_timeout,
            max_span_wait_tries=max_span_wait_tries, send_delay=send_delay,
            on_drop=lambda n, reason: counter.add(n, {semconv.ATTR_REASON: reason}))

    # -- where the annotations went --------------------------------------------------------

    @property
    def written(self) -> int:
        """Annotations Phoenix accepted (``sync=True``: stored)."""
        return self._writer.written

    @property
    def dropped(self) -> int:
        """Annotations dropped, all reasons together."""
        return self._writer.dropped

    @property
    def dropped_by_reason(self) -> dict[str, int]:
        """Dropped annotations by reason (see :mod:`vcg_otel.phoenix.writer`)."""
        return self._writer.dropped_by_reason

    @property
    def held_back(self) -> int:
        """Times an annotation was sent again because Phoenix had not stored its span yet."""
        return self._writer.held_back

    @property
    def pending(self) -> int:
        """Annotations held right now (never more than ``max_queue``)."""
        return self._writer.pending

    # -- SpanProcessor ---------------------------------------------------------------------

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        if span.parent is None:  # a root span: remember it for its trace
            with self._roots_lock:
                self._roots[span.context.trace_id] = span.context.span_id
                while len(self._roots) > _MAX_ROOTS:
                    self._roots.popitem(last=False)

    def on_end(self, span: ReadableSpan) -> None:
        attrs = span.attributes or {}
        if span.name == semconv.SPAN_CHECK and semconv.VERDICT in attrs:
            if self.per_citation:
                self._writer.submit(self._verdict(span.context.span_id, attrs))
        elif span.name == semconv.SPAN_AUDIT and attrs.get(semconv.COUNT_TOTAL):
            if self.per_citation:  # check_spans=False: the verdicts are events of this span
                for event in span.events:
                    if event.name == semconv.EVENT_CHECK and event.attributes:
                        index = event.attributes.get(semconv.CITATION_INDEX, 0)
                        self._writer.submit(self._verdict(
                            span.context.span_id, event.attributes,
                            identifier=f"citation-{index}"))
            for target in self._request_targets(span):
                self._writer.submit(self._request(target, attrs))

    def shutdown(self) -> None:
        """Send what can be sent within ``shutdown_timeout``; count the rest dropped."""
        self._writer.close(self.shutdown_timeout)

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        """Send everything queued now; True once nothing is held."""
        return self._writer.flush(timeout_millis / 1000)

    # -- annotations -----------------------------------------------------------------------

    @staticmethod
    def _verdict(span_id: int, attrs: Mapping[str, Any],
                 identifier: str | None = None) -> dict[str, Any]:
        """A ``citation_verdict`` annotation; several on one audit span are told apart by
        Phoenix's ``identifier``."""
        result: dict[str, Any] = {"label": attrs[semconv.VERDICT],
                                  "score": float(attrs.get(semconv.EVAL_SCORE, 0.0))}
        explanation = attrs.get(semconv.EVAL_EXPLANATION)
        if explanation:
            result["explanation"] = explanation
        metadata = {k: attrs[k] for k in (semconv.GATE_RESULT, semconv.CITATION_DOCUMENT_ID,
                                          semconv.JUDGE_FAIL_REASON) if k in attrs}
        note = {"span_id": _hex(span_id), "name": VERDICT_ANNOTATION,
                "annotator_kind": attrs.get(semconv.EVAL_ANNOTATOR_KIND, "CODE"),
                "result": result, "metadata": metadata}
        if identifier is not None:
            note["identifier"] = identifier
        return note

    def _request_targets(self, span: ReadableSpan) -> list[int]:
        targets = [span.context.span_id]
        if span.parent is not None:
            with self._roots_lock:
                root = self._roots.get(span.context.trace_id)
            if root is not None and root != span.context.span_id:
                targets.append(root)
        return targets

    @staticmethod
    def _request(span_id: int, attrs: Mapping[str, Any]) -> dict[str, Any]:
        total = int(attrs.get(semconv.COUNT_TOTAL, 0))
        bad = sum(int(attrs.get(semconv.COUNT_PREFIX + v, 0)) for v in Outcome.fabricated())
        return {"span_id": _hex(span_id), "name": REQUEST_ANNOTATION, "annotator_kind": "CODE",
                "result": {"label": "fabricated" if bad else "clean",
                           "score": bad / total if total else 0.0,
                           "explanation": f"{bad} of {total} citations fabricated or "
                                          "misattributed"},
                "metadata": {"citations": total, "fabricated_or_misattributed": bad}}
