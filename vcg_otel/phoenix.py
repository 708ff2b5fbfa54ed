"""Arize Phoenix: a safe ``register`` and span annotations that show fabrication rates.

Spans reach Phoenix over plain OTLP/HTTP (nothing here is needed for that: any OTLP path
works, a collector in between included). What OTLP cannot carry is *annotations*, which are
what Phoenix aggregates into label fractions. :class:`PhoenixAnnotationProcessor` writes them
through Phoenix's REST API, in the background:

* ``citation_verdict`` on every ``citation.check`` span (with ``check_spans=False``: one per
  citation on the ``citation_audit`` span, told apart by identifier ``citation-<index>``):
  label = final verdict, score = 1 when
  the quote was fabricated (``not_found``) or misattributed, else 0; explanation = the
  judge's reasoning (when content capture allows it); annotator kind ``CODE`` for a gate
  outcome, ``LLM`` for a judge verdict.
* ``citation_fabrication`` on every ``citation_audit`` span *and on the request's root span*
  (when the audit is not the root itself): label ``fabricated`` when any citation of the
  request was not found or misattributed, else ``clean``; score = the fraction of the
  request's citations that were. Phoenix's project view lists root spans, so the fabrication
  rate is visible there without changing any filter.

The writer is bounded (a queue of ``max_queue`` annotations; beyond it they are dropped and
counted in ``citation.annotations.dropped``), batches requests, retries with exponential
backoff (a span Phoenix has not stored yet answers 404 and is retried too), and
``shutdown`` gives it ``shutdown_timeout`` seconds at most.

Needs the ``phoenix`` extra only for :func:`register` (the OTLP exporter); the annotation
writer itself uses the standard library.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import re
import threading
import time
import urllib.error
import urllib.request
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from opentelemetry import metrics
from opentelemetry.context import Context
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor, TracerProvider

from ._version import __version__
from .otel import semconv

__all__ = ["DEFAULT_ENDPOINT", "LocalPhoenix", "PhoenixAnnotationProcessor", "free_port",
           "register"]

logger = logging.getLogger(__name__)

DEFAULT_ENDPOINT = "http://127.0.0.1:6006"
VERDICT_ANNOTATION = "citation_verdict"
REQUEST_ANNOTATION = "citation_fabrication"
_FABRICATED = ("not_found", "misattributed")
_RETRYABLE = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
_SPAN_ID = re.compile(r"\b[0-9a-f]{16}\b")


def _endpoint(endpoint: str | None) -> str:
    base = endpoint or os.environ.get("PHOENIX_COLLECTOR_ENDPOINT") or DEFAULT_ENDPOINT
    base = base.rstrip("/")
    return base[: -len("/v1/traces")] if base.endswith("/v1/traces") else base


def _headers(api_key: str | None) -> dict[str, str]:
    headers = {"content-type": "application/json", "user-agent": f"vcg-otel/{__version__}"}
    key = api_key or os.environ.get("PHOENIX_API_KEY")
    if key:
        headers["authorization"] = f"Bearer {key}"
    return headers


def _hex(span_id: int) -> str:
    return format(span_id, "016x")


class PhoenixAnnotationProcessor(SpanProcessor):
    """Writes Phoenix span annotations for finished audit spans (see the module docstring).

    Args:
        endpoint: Phoenix base URL (default ``PHOENIX_COLLECTOR_ENDPOINT`` or
            ``http://127.0.0.1:6006``).
        api_key: sent as a bearer token (default ``PHOENIX_API_KEY``); never logged.
        max_queue: annotations waiting at most; more are dropped and counted.
        batch_size: annotations per request.
        max_retries: retries per batch, with exponential backoff from ``backoff`` seconds.
        max_span_wait_tries: how often an annotation whose span Phoenix has not stored yet
            (HTTP 404; spans lag under load) is tried again, backing off up to 8 s (about a
            minute in all) before it is dropped.
        request_timeout: seconds per HTTP request.
        shutdown_timeout: the most ``shutdown`` waits for the queue to drain.
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
    """

    def __init__(
        self,
        endpoint: str | None = None,
        *,
        api_key: str | None = None,
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
        self.url = _endpoint(endpoint) + f"/v1/span_annotations?sync={str(sync).lower()}"
        self._headers = _headers(api_key)
        self.batch_size = batch_size
        self.max_retries = max_retries
        self.backoff = backoff
        self.request_timeout = request_timeout
        self.shutdown_timeout = shutdown_timeout
        self.send_delay = send_delay
        self.per_citation = per_citation
        # (due time, annotation), oldest first; ``_head`` is taken out but not yet due
        self._queue: queue.Queue[tuple[float, dict[str, Any]]] = queue.Queue(max_queue)
        self._head: tuple[float, dict[str, Any]] | None = None
        self._roots: OrderedDict[int, int] = OrderedDict()
        self._roots_lock = threading.Lock()
        self._stop = threading.Event()
        self._idle = threading.Condition()
        self._in_flight = 0
        # annotations whose span Phoenix has not stored yet: (ready at, tries, annotation)
        self._waiting: list[tuple[float, int, dict[str, Any]]] = []
        self.max_span_wait_tries = max_span_wait_tries
        self.written = 0
        self.held_back = 0  # sync: annotations sent again because their span was not stored
        self.dropped = 0
        self.dropped_by_reason: dict[str, int] = {}
        meter = metrics.get_meter("vcg_otel", __version__, meter_provider)
        self._dropped_counter = meter.create_counter(
            semconv.METRIC_ANNOTATIONS_DROPPED, "{annotation}",
            "Phoenix annotations dropped (queue full or Phoenix unreachable), by reason")
        self._thread = threading.Thread(target=self._run, name="vcg-otel-phoenix", daemon=True)
        self._thread.start()

    # -- SpanProcessor ---------------------------------------------------------------------

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        if span.parent is None:  # a root span: remember it for its trace
            with self._roots_lock:
                self._roots[span.context.trace_id] = span.context.span_id
                while len(self._roots) > 50_000:
                    self._roots.popitem(last=False)

    def on_end(self, span: ReadableSpan) -> None:
        attrs = span.attributes or {}
        if span.name == semconv.SPAN_CHECK and semconv.VERDICT in attrs:
            if self.per_citation:
                self._enqueue(self._verdict(span.context.span_id, attrs))
        elif span.name == semconv.SPAN_AUDIT and attrs.get(semconv.COUNT_TOTAL):
            if self.per_citation:  # check_spans=False: the verdicts are events of this span
                for event in span.events:
                    if event.name == semconv.EVENT_CHECK and event.attributes:
                        index = event.attributes.get(semconv.CITATION_INDEX, 0)
                        self._enqueue(self._verdict(span.context.span_id, event.attributes,
                                                    identifier=f"citation-{index}"))
            for target in self._request_targets(span):
                self._enqueue(self._request(target, attrs))

    def shutdown(self) -> None:
        self.force_flush(int(self.shutdown_timeout * 1000))
        self._stop.set()
        self._thread.join(self.shutdown_timeout)

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        deadline = time.monotonic() + timeout_millis / 1000
        with self._idle:
            while self._queue.qsize() or self._head or self._in_flight or self._waiting:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._idle.wait(min(left, 0.05))
        return True

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
        bad = sum(int(attrs.get(semconv.COUNT_PREFIX + v, 0)) for v in _FABRICATED)
        return {"span_id": _hex(span_id), "name": REQUEST_ANNOTATION, "annotator_kind": "CODE",
                "result": {"label": "fabricated" if bad else "clean",
                           "score": bad / total if total else 0.0,
                           "explanation": f"{bad} of {total} citations fabricated or "
                                          "misattributed"},
                "metadata": {"citations": total, "fabricated_or_misattributed": bad}}

    def _enqueue(self, annotation: dict[str, Any]) -> None:
        try:
            self._queue.put_nowait((time.monotonic() + self.send_delay, annotation))
        except queue.Full:
            self._drop(1, "queue_full")

    def _drop(self, n: int, reason: str) -> None:
        self.dropped += n
        self.dropped_by_reason[reason] = self.dropped_by_reason.get(reason, 0) + n
        self._dropped_counter.add(n, {semconv.ATTR_REASON: reason})

    # -- worker ----------------------------------------------------------------------------

    def _run(self) -> None:
        while not (self._stop.is_set() and self._queue.empty() and self._head is None
                   and not self._waiting):
            now = time.monotonic()
            ready = [item for item in self._waiting if item[0] <= now]
            self._waiting = [item for item in self._waiting if item[0] > now]
            batch = [(tries, note) for _, tries, note in ready[: self.batch_size]]
            self._waiting += ready[self.batch_size:]
            if not batch:
                wait = min([0.1] + [item[0] - now for item in self._waiting])
                note = self._take(max(wait, 0.001))
                if note is None:
                    continue
                batch.append((0, note))
            while len(batch) < self.batch_size:
                note = self._take(0.0)
                if note is None:
                    break
                batch.append((0, note))
            with self._idle:
                self._in_flight = len(batch)
            try:
                self._send(batch)
            finally:
                with self._idle:
                    self._in_flight = 0
                    self._idle.notify_all()

    def _take(self, timeout: float) -> dict[str, Any] | None:
        """The oldest queued annotation once it is due, waiting up to ``timeout`` for it;
        on shutdown everything is due."""
        if self._head is None:
            try:
                self._head = (self._queue.get(timeout=timeout) if timeout > 0
                              else self._queue.get_nowait())
            except queue.Empty:
                return None
        due, note = self._head
        left = due - time.monotonic()
        if left > 0 and not self._stop.is_set():
            if timeout > 0:
                self._stop.wait(min(timeout, left))
            return None
        self._head = None
        return note

    def _send(self, batch: list[tuple[int, dict[str, Any]]]) -> None:
        """POST a batch; retry transient failures; hold back annotations of unstored spans."""
        body = json.dumps({"data": [note for _, note in batch]}).encode()
        delay, status, answer = self.backoff, 0, ""
        for attempt in range(self.max_retries + 1):
            status, answer = self._post(body)
            if status == 200:
                self.written += len(batch)
                return
            if status == 404 or (status != 0 and status not in _RETRYABLE):
                break
            if attempt == self.max_retries:
                break
            # Exponential backoff; while shutting down the waits are cut short.
            if self._stop.is_set():
                time.sleep(min(delay, 0.2))
            else:
                self._stop.wait(delay)
            delay = min(delay * 2, 8.0)
        if status == 404:
            # Phoenix names the spans it has not stored yet (they are still on their way under
            # load): hold those annotations back and send the others now.
            missing = set(_SPAN_ID.findall(answer)) or {note["span_id"] for _, note in batch}
            later = [(t, n) for t, n in batch if n["span_id"] in missing]
            now_ok = [(t, n) for t, n in batch if n["span_id"] not in missing]
            for tries, note in later:
                if tries >= self.max_span_wait_tries:
                    self._drop(1, "span_missing")
                else:
                    self.held_back += 1
                    ready = time.monotonic() + min(self.backoff * 2**tries, 8.0)
                    self._waiting.append((ready, tries + 1, note))
            if now_ok:
                self._send(now_ok)
            return
        self._drop(len(batch), "rejected" if status else "unreachable")
        logger.debug("vcg_otel: %d Phoenix annotations dropped (HTTP %s)", len(batch), status)

    def _post(self, body: bytes) -> tuple[int, str]:
        request = urllib.request.Request(self.url, data=body, headers=self._headers,
                                         method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.request_timeout) as response:
                return int(response.status), ""
        except urllib.error.HTTPError as exc:
            try:
                detail = exc.read(65_536).decode("utf-8", "replace")
            except OSError:
                detail = ""
            return int(exc.code), detail
        except (OSError, ValueError):
            return 0, ""  # unreachable, refused, timed out


def register(
    project_name: str = "default",
    endpoint: str | None = None,
    *,
    set_global: bool = False,
    annotations: bool | PhoenixAnnotationProcessor = True,
    export_timeout: float = 2.0,
    schedule_delay: float = 0.5,
    max_queue_size: int = 8_192,
    max_export_batch_size: int = 512,
    api_key: str | None = None,
    resource_attributes: Mapping[str, Any] | None = None,
    meter_provider: metrics.MeterProvider | None = None,
) -> TracerProvider:
    """A tracer provider that exports to Phoenix without ever blocking the app.

    Unlike ``phoenix.otel.register``'s defaults, spans go through a *batch* processor with a
    short export timeout, so a Phoenix that is down costs the app nothing (spans are retried
    in the background, then dropped; the SDK's batch processor bounds its queue at
    ``max_queue_size``; drops are counted in the SDK's
    ``otel.sdk.processor.span.processed{error.type="queue_full"}`` metric on
    ``meter_provider``). The global provider is left alone unless ``set_global=True``.
    With ``annotations=True`` a :class:`PhoenixAnnotationProcessor` with its defaults is
    attached; pass one to configure it (for high volume: README, "Load").

    Needs the ``phoenix`` extra (``pip install 'vcg-otel[phoenix]'``).
    """
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("vcg_otel.phoenix.register needs: pip install 'vcg-otel[phoenix]'"
                          ) from exc
    from opentelemetry import trace
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    base = _endpoint(endpoint)
    resource = Resource.create({"openinference.project.name": project_name,
                                **(resource_attributes or {})})
    provider = TracerProvider(resource=resource)
    key = api_key or os.environ.get("PHOENIX_API_KEY")
    exporter = OTLPSpanExporter(endpoint=base + "/v1/traces", timeout=export_timeout,
                                headers={"authorization": f"Bearer {key}"} if key else None)
    options: dict[str, Any] = {
        "max_queue_size": max_queue_size, "schedule_delay_millis": int(schedule_delay * 1000),
        "max_export_batch_size": max_export_batch_size,
        "export_timeout_millis": int(export_timeout * 1000)}
    # Recent SDKs count what the batch processor drops when its queue is full, as
    # otel.sdk.processor.span.processed{error.type="queue_full"}, but only with
    # OTEL_PYTHON_SDK_INTERNAL_METRICS_ENABLED set when the processor is built: set it for
    # this processor alone.
    flag = "OTEL_PYTHON_SDK_INTERNAL_METRICS_ENABLED"
    previous = os.environ.get(flag)
    os.environ[flag] = "true"
    try:
        processor = BatchSpanProcessor(
            exporter, **options, meter_provider=meter_provider or metrics.get_meter_provider())
    except TypeError:  # pragma: no cover - older SDK without processor metrics
        processor = BatchSpanProcessor(exporter, **options)
    finally:
        if previous is None:
            del os.environ[flag]
        else:
            os.environ[flag] = previous
    provider.add_span_processor(processor)
    if isinstance(annotations, PhoenixAnnotationProcessor):
        provider.add_span_processor(annotations)
    elif annotations:
        provider.add_span_processor(
            PhoenixAnnotationProcessor(base, api_key=api_key, meter_provider=meter_provider))
    if set_global:
        trace.set_tracer_provider(provider)
    return provider


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LocalPhoenix:
    """A Phoenix server run as a child process: SQLite in ``workdir``, 127.0.0.1, offline.

    Needs the Phoenix server package (extra ``demo``). Start takes 10-20 s on two cores.
    """

    def __init__(self, workdir: str | os.PathLike[str], port: int | None = None,
                 grpc_port: int | None = None) -> None:
        self.workdir = os.fspath(workdir)
        self.port = port or free_port()
        self.grpc_port = grpc_port or free_port()
        self.process: Any = None
        self.log_path = os.path.join(self.workdir, "phoenix.log")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 90.0) -> None:
        """Start the server and wait until ``/healthz`` answers."""
        import subprocess
        import sys

        env = {
            **os.environ,
            "PHOENIX_WORKING_DIR": self.workdir,
            "PHOENIX_HOST": "127.0.0.1",
            "PHOENIX_PORT": str(self.port),
            "PHOENIX_GRPC_PORT": str(self.grpc_port),
            "PHOENIX_TELEMETRY_ENABLED": "false",
            "PHOENIX_ALLOW_EXTERNAL_RESOURCES": "false",
            "PHOENIX_LOG_MIGRATIONS": "false",
        }
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "phoenix.server.main", "serve"],
                env=env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                with open(self.log_path, errors="replace") as log:
                    raise RuntimeError("Phoenix exited during start-up:\n" + log.read()[-2000:])
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=1) as r:
                    if r.status == 200:
                        return
            except OSError:
                pass
            time.sleep(0.25)
        self.stop()
        raise RuntimeError(f"Phoenix did not answer on {self.url} within {timeout:.0f} s")

    def stop(self) -> None:
        """SIGTERM, then SIGKILL if it has not exited within 15 s."""
        import subprocess

        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        self.process = None

    # -- reading back (REST and GraphQL) ---------------------------------------------------

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(self.url + path, timeout=10) as r:
            return json.load(r)

    def graphql(self, query: str) -> Any:
        request = urllib.request.Request(
            self.url + "/graphql", data=json.dumps({"query": query}).encode(),
            headers={"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as r:
            return json.load(r)["data"]

    def spans(self, project: str, limit: int = 1000) -> list[dict[str, Any]]:
        """Spans of a project (``[]`` while the project does not exist yet)."""
        try:
            return list(self.get(f"/v1/projects/{project}/spans?limit={limit}")["data"])
        except urllib.error.HTTPError:
            return []

    def annotations(self, project: str, span_ids: list[str]) -> list[dict[str, Any]]:
        """Span annotations of the given spans."""
        found: list[dict[str, Any]] = []
        for i in range(0, len(span_ids), 50):
            query = "&".join(f"span_ids={s}" for s in span_ids[i:i + 50])
            found += self.get(f"/v1/projects/{project}/span_annotations?{query}&limit=1000")[
                "data"]
        return found

    def label_fractions(self, project: str, annotation: str = REQUEST_ANNOTATION
                        ) -> dict[str, float]:
        """Phoenix's own aggregate of an annotation's labels in a project (GraphQL)."""
        data = self.graphql(
            "{ projects { edges { node { name spanAnnotationSummary(annotationName: "
            f'"{annotation}") {{ labelFractions {{ label fraction }} }} }} }} }} }}')
        if data is None:  # pragma: no cover - a GraphQL error
            return {}
        for edge in data["projects"]["edges"]:
            node = edge["node"]
            if node["name"] == project and node["spanAnnotationSummary"]:
                return {f["label"]: f["fraction"]
                        for f in node["spanAnnotationSummary"]["labelFractions"]}
        return {}

    def stored(self, project: str) -> tuple[int, dict[str, int]]:
        """(spans stored, {annotation name: annotations stored}) in a project, exactly.

        Read from this server's SQLite file (read-only): Phoenix's GraphQL annotation summary
        counts labelled spans, not annotations, so it undercounts several on one span.
        """
        import sqlite3

        path = os.path.join(self.workdir, "phoenix.db")
        if not os.path.exists(path):
            return 0, {}
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
        try:
            tail = ("JOIN traces t ON s.trace_rowid = t.id JOIN projects p "
                    "ON t.project_rowid = p.id WHERE p.name = ?")
            (spans,) = db.execute("SELECT count(*) FROM spans s " + tail, (project,)).fetchone()
            notes = dict(db.execute(
                "SELECT a.name, count(*) FROM span_annotations a JOIN spans s "
                "ON a.span_rowid = s.id " + tail + " GROUP BY a.name", (project,)))
        except sqlite3.OperationalError:  # not migrated yet
            return 0, {}
        finally:
            db.close()
        return int(spans), {str(k): int(v) for k, v in notes.items()}
