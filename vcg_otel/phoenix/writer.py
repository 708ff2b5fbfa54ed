"""The annotation writer: a bounded queue, one background thread, every annotation accounted for.

Rules it keeps, whatever the endpoint does (tests/integration/phoenix/test_annotation_writer.py
drives it with raw sockets that send a non-HTTP status line, 150 headers, nothing, or a byte
every 0.3 s):

* every annotation handed to :meth:`AnnotationWriter.submit` is either written (Phoenix
  answered 2xx) or counted as dropped with a reason: ``queue_full``, ``unreachable``,
  ``timeout``, ``bad_response``, ``rejected`` (an HTTP error status), ``span_missing`` (Phoenix
  never stored the span), ``shutdown`` (still held when the shutdown deadline came), ``error``;
* at most ``max_queue`` annotations are held, counting those waiting, those being sent and
  those held back because their span is not stored yet;
* a request has a total deadline (``request_timeout``, and never past the shutdown deadline),
  not a per-read timeout that a trickling peer can extend forever;
* :meth:`AnnotationWriter.close` returns within its timeout.

Why httpx, on an event loop of the writer's own thread, and not ``urllib`` or
arize-phoenix-client: ``urllib``'s timeout is per socket operation (a peer sending a byte every
half second is never cut off), it raises ``http.client.HTTPException`` subclasses that are not
``OSError`` (which killed the previous writer thread), and opens a connection per request.
httpx's own timeouts are per operation too, but an ``httpx.AsyncClient`` request can be
*cancelled*: ``asyncio.wait_for`` gives each request a total deadline that holds whatever the
peer sends, httpx reports every protocol failure as ``httpx.HTTPError``, and it keeps the
connection alive between batches. arize-phoenix-client's ``spans.log_span_annotations`` is a
thin typed wrapper around the same POST on the same httpx; it reads a whole error body (we cap
it at 64 kB), raises on a 404 (whose body names the spans Phoenix has not stored yet, which is
what lets us hold back only those), and importing it loads the ``phoenix`` namespace -- with the
Phoenix server installed beside it, the whole server (~10 s here). The REST call it wraps is
one POST with a documented body (``{"data": [...]}``), so it is written here directly.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import json
import logging
import math
import re
import threading
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import httpx

__all__ = ["AnnotationWriter"]

logger = logging.getLogger(__name__)

RETRYABLE = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
_SPAN_ID = re.compile(r"\b[0-9a-f]{16}\b")
_MAX_ERROR_BODY = 65_536
_MAX_BACKOFF = 8.0
_SHUTDOWN_PAUSE = 0.2  # the longest wait between retries once shutdown has begun
_WRAP_UP = 0.5  # at most, of the shutdown timeout, kept for the worker to end


class _Item:
    """One annotation held by the writer, with when it is due and how often its span was
    missing."""

    __slots__ = ("due", "note", "seq", "tries")

    def __init__(self, due: float, seq: int, note: Mapping[str, Any]) -> None:
        self.due = due
        self.seq = seq
        self.tries = 0
        self.note = note

    def __lt__(self, other: _Item) -> bool:
        return (self.due, self.seq) < (other.due, other.seq)


class AnnotationWriter:
    """POSTs annotations to ``url`` in batches from a background thread (see the module
    docstring for the rules it keeps).

    Args:
        url: the full ``.../v1/span_annotations?sync=...`` URL.
        headers: sent with every request (an ``authorization`` header is never logged).
        max_queue: annotations held at most (queued, in flight and held back together).
        batch_size: annotations per request.
        max_retries: retries of a batch after a transient failure, backing off from
            ``backoff`` seconds (doubling, at most 8 s).
        request_timeout: total seconds per request, connection included.
        max_span_wait_tries: how often an annotation whose span Phoenix has not stored yet
            (HTTP 404) is sent again before it is dropped as ``span_missing``.
        send_delay: seconds an annotation waits before it is sent (so its span is stored
            first); skipped while flushing or shutting down.
        on_drop: called with (count, reason) for every drop, e.g. to feed a metric.
    """

    def __init__(
        self,
        url: str,
        headers: Mapping[str, str],
        *,
        max_queue: int = 10_000,
        batch_size: int = 100,
        max_retries: int = 5,
        backoff: float = 0.25,
        request_timeout: float = 3.0,
        max_span_wait_tries: int = 12,
        send_delay: float = 2.0,
        on_drop: Callable[[int, str], None] | None = None,
    ) -> None:
        self.url = url
        self.headers = dict(headers)
        self.max_queue = max(1, int(max_queue))
        self.batch_size = max(1, int(batch_size))
        self.max_retries = max(0, int(max_retries))
        self.backoff = _finite(backoff, 0.25)
        self.request_timeout = _finite(request_timeout, 3.0)
        self.max_span_wait_tries = max(0, int(max_span_wait_tries))
        self.send_delay = _finite(send_delay, 2.0)
        self._on_drop = on_drop
        self.written = 0
        self.held_back = 0
        self.dropped = 0
        self._dropped_by_reason: dict[str, int] = {}
        self._lock = threading.Lock()
        self._work = threading.Condition(self._lock)  # the worker waits here for due items
        self._idle = threading.Condition(self._lock)  # flush waits here for nothing held
        self._heap: list[_Item] = []
        self._in_flight: list[_Item] = []
        self._seq = itertools.count()
        self._urgent = 0  # flushes in progress: queued annotations are due at once
        self._closing = False
        self._deadline = math.inf  # when the worker stops sending, once shutdown has begun
        self._close_deadline = math.inf
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True,
                                        name=f"vcg-otel-phoenix-{id(self):x}")
        self._thread.start()

    # -- the caller's side (never blocks beyond a short lock) ------------------------------

    @property
    def dropped_by_reason(self) -> dict[str, int]:
        """Dropped annotations by reason (a copy)."""
        with self._lock:
            return dict(self._dropped_by_reason)

    @property
    def pending(self) -> int:
        """Annotations held right now: queued, in flight, or held back."""
        with self._lock:
            return len(self._heap) + len(self._in_flight)

    def submit(self, note: Mapping[str, Any]) -> None:
        """Queue one annotation, or count it dropped (``queue_full``, ``shutdown``)."""
        reason = None
        with self._lock:
            if self._closing:
                reason = "shutdown"
            elif len(self._heap) + len(self._in_flight) >= self.max_queue:
                reason = "queue_full"
            else:
                due = time.monotonic() + (0.0 if self._urgent else self.send_delay)
                heapq.heappush(self._heap, _Item(due, next(self._seq), note))
                self._work.notify()
        if reason:
            self._count_drop(1, reason)

    def flush(self, timeout: float) -> bool:
        """Send everything queued now (no ``send_delay``) and wait until nothing is held;
        False if something still is after ``timeout`` seconds."""
        deadline = time.monotonic() + _finite(timeout, 30.0)
        with self._lock:
            self._urgent += 1
            self._make_due_now()
            self._work.notify_all()
            try:
                while self._heap or self._in_flight:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        return False
                    self._idle.wait(left)
                return True
            finally:
                self._urgent -= 1

    def close(self, timeout: float) -> None:
        """Send what can be sent within ``timeout`` seconds, then count the rest dropped
        (``shutdown``). Returns within ``timeout`` (plus scheduling)."""
        timeout = max(0.0, _finite(timeout, 5.0))
        deadline = time.monotonic() + timeout
        with self._lock:
            if self._closing:
                return
            self._closing = True
            # The worker stops sending a little earlier, so that it has ended (connections
            # closed, leftovers counted) when this returns.
            self._deadline = deadline - min(_WRAP_UP, timeout / 10)
            self._close_deadline = deadline
            self._make_due_now()
            self._work.notify_all()
        self._stopping.set()
        self._thread.join(max(0.0, deadline - time.monotonic()))
        self._abandon()  # a no-op unless the deadline came first

    # -- accounting ------------------------------------------------------------------------

    def _count_drop(self, n: int, reason: str) -> None:
        with self._lock:
            self._note_drop(n, reason)
        if self._on_drop is not None:
            try:
                self._on_drop(n, reason)
            except Exception:  # a broken metric pipeline never stops the writer
                logger.debug("vcg_otel: counting dropped annotations failed", exc_info=True)

    def _note_drop(self, n: int, reason: str) -> None:
        self.dropped += n
        self._dropped_by_reason[reason] = self._dropped_by_reason.get(reason, 0) + n

    def _settle(self, items: list[_Item], reason: str | None) -> None:
        """Written (``reason`` None) or dropped: only items still in flight count, so a batch
        that shutdown has already abandoned is never counted twice."""
        with self._lock:
            mine = self._take_in_flight(items)
            if reason is None:
                self.written += len(mine)
            self._idle.notify_all()
        if mine and reason is not None:
            self._count_drop(len(mine), reason)
            logger.debug("vcg_otel: %d Phoenix annotations dropped (%s)", len(mine), reason)

    def _hold_back(self, items: list[_Item]) -> None:
        """Annotations whose span Phoenix has not stored yet: try again later, or drop."""
        given_up = 0
        with self._lock:
            now = time.monotonic()
            for item in self._take_in_flight(items):
                if item.tries >= self.max_span_wait_tries:
                    given_up += 1
                    continue
                item.due = now + min(self.backoff * 2**item.tries, _MAX_BACKOFF)
                item.tries += 1
                self.held_back += 1
                heapq.heappush(self._heap, item)
            self._idle.notify_all()
        if given_up:
            self._count_drop(given_up, "span_missing")

    def _take_in_flight(self, items: list[_Item]) -> list[_Item]:
        ids = {id(item) for item in self._in_flight}
        mine = [item for item in items if id(item) in ids]
        if mine:
            gone = {id(item) for item in mine}
            self._in_flight = [item for item in self._in_flight if id(item) not in gone]
        return mine

    def _abandon(self) -> None:
        """At the shutdown deadline: everything still held is dropped as ``shutdown``."""
        with self._lock:
            n = len(self._heap) + len(self._in_flight)
            self._heap, self._in_flight = [], []
            self._idle.notify_all()
        if n:
            self._count_drop(n, "shutdown")

    def _make_due_now(self) -> None:
        """Queued annotations (not those held back for their span) are due at once."""
        now = time.monotonic()
        for item in self._heap:
            if item.tries == 0 and item.due > now:
                item.due = now
        heapq.heapify(self._heap)

    # -- the worker thread -----------------------------------------------------------------

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        client = None
        try:
            client = _client(self.headers)
            while True:
                batch = self._next_batch()
                if batch is None:
                    break
                try:
                    self._send(loop, client, batch)
                except Exception:  # a bug here must not end the writer
                    logger.warning("vcg_otel: Phoenix annotation batch failed", exc_info=True)
                    self._settle(batch, "error")
        except BaseException:  # pragma: no cover - even then, nothing is left uncounted
            logger.warning("vcg_otel: the Phoenix annotation writer stopped", exc_info=True)
        finally:
            self._abandon()
            if client is not None:  # closing connections is quick; never past 1 s
                self._run_until(loop, client.aclose(),
                                min(self._close_deadline, time.monotonic() + 1.0))
            loop.close()

    def _next_batch(self) -> list[_Item] | None:
        """The next due annotations (at most ``batch_size``); None once closed and empty, or
        at the shutdown deadline."""
        with self._lock:
            while True:
                now = time.monotonic()
                if now >= self._deadline or (self._closing and not self._heap):
                    return None
                if self._heap and self._heap[0].due <= now:
                    batch: list[_Item] = []
                    while self._heap and self._heap[0].due <= now and len(batch) < \
                            self.batch_size:
                        batch.append(heapq.heappop(self._heap))
                    self._in_flight = batch
                    return batch
                wait = self._heap[0].due - now if self._heap else math.inf
                wait = min(wait, self._deadline - now, 60.0)
                self._work.wait(wait)

    def _send(self, loop: asyncio.AbstractEventLoop, client: httpx.AsyncClient,
              batch: list[_Item]) -> None:
        """POST a batch, retrying transient failures; a 404 holds back the annotations of
        the spans Phoenix names as not stored yet and sends the others again at once."""
        while batch:
            status, answer = self._post_with_retries(loop, client, batch)
            if 200 <= status < 300:
                self._settle(batch, None)
                return
            if status != 404:
                self._settle(batch, answer if status == 0 else "rejected")
                return
            missing = set(_SPAN_ID.findall(answer))
            later = [item for item in batch if item.note.get("span_id") in missing] or batch
            self._hold_back(later)
            batch = [item for item in batch if item not in later]

    def _post_with_retries(self, loop: asyncio.AbstractEventLoop, client: httpx.AsyncClient,
                           batch: list[_Item]) -> tuple[int, str]:
        """(HTTP status, error body) or (0, reason) after the last try."""
        body = json.dumps({"data": [item.note for item in batch]}).encode()
        delay = self.backoff
        for attempt in range(self.max_retries + 1):
            deadline = min(time.monotonic() + self.request_timeout, self._deadline)
            status, answer = self._run_until(loop, _post(client, self.url, body), deadline)
            if status not in RETRYABLE and status != 0:
                return status, answer
            if attempt == self.max_retries or time.monotonic() >= self._deadline:
                break
            pause = min(delay, _SHUTDOWN_PAUSE) if self._stopping.is_set() else delay
            self._stopping.wait(min(pause, max(0.0, self._deadline - time.monotonic())))
            delay = min(delay * 2, _MAX_BACKOFF)
        return status, answer

    @staticmethod
    def _run_until(loop: asyncio.AbstractEventLoop, work: Any, deadline: float
                   ) -> tuple[int, str]:
        """Run ``work`` on the writer's loop, cancelled at ``deadline`` whatever the peer
        does; (0, reason) when it did not finish."""
        left = deadline - time.monotonic()
        if left <= 0:
            work.close()
            return 0, "timeout"
        try:
            result = loop.run_until_complete(asyncio.wait_for(work, left))
        except (asyncio.TimeoutError, TimeoutError):
            return 0, "timeout"
        except Exception as exc:
            return 0, _failure(exc)
        return result if isinstance(result, tuple) else (0, "error")


def _client(headers: Mapping[str, str]) -> httpx.AsyncClient:
    import httpx

    return httpx.AsyncClient(
        headers=dict(headers), timeout=None, follow_redirects=False,
        limits=httpx.Limits(max_connections=1, max_keepalive_connections=1))


async def _post(client: httpx.AsyncClient, url: str, body: bytes) -> tuple[int, str]:
    """(status, the first 64 kB of an error body)."""
    async with client.stream("POST", url, content=body) as response:
        if 200 <= response.status_code < 300:
            return response.status_code, ""
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.aiter_raw():
            chunks.append(chunk)
            size += len(chunk)
            if size >= _MAX_ERROR_BODY:
                break
        return response.status_code, b"".join(chunks)[:_MAX_ERROR_BODY].decode("utf-8",
                                                                               "replace")


def _failure(exc: Exception) -> str:
    """The drop reason for a request that raised."""
    import httpx

    if isinstance(exc, (httpx.ConnectError, httpx.ConnectTimeout, OSError)):
        return "unreachable"
    if isinstance(exc, httpx.TimeoutException):
        return "timeout"
    if isinstance(exc, (httpx.RemoteProtocolError, httpx.DecodingError,
                        httpx.LocalProtocolError)):
        return "bad_response"
    if isinstance(exc, httpx.HTTPError):
        return "unreachable"
    logger.debug("vcg_otel: Phoenix annotation request failed", exc_info=exc)
    return "error"


def _finite(value: float, default: float) -> float:
    """Seconds as a finite number, at least 0: NaN, infinity and non-numbers give ``default``
    (a NaN timeout once hung exit forever)."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return default
    return max(0.0, number) if math.isfinite(number) else default
