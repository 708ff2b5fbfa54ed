"""Audits that finish after the handler has returned: one daemon thread with an event loop.

A bounded number of audits may be pending; beyond it new ones are dropped and counted (the
``citation.audit.dropped`` metric and a span attribute), never queued without bound. At
interpreter exit pending audits get ``VCG_OTEL_SHUTDOWN_TIMEOUT`` seconds (default 5; a value
that is not a finite number >= 0 is replaced by the default, with a warning) to finish; then
the ones still running are cancelled (their spans end, recording the cancellation) and given at
most :data:`CANCEL_GRACE` seconds more. The thread is a daemon, so exit never hangs longer.

Nothing an audit raises stops the loop: ``KeyboardInterrupt`` or ``SystemExit`` raised inside
an audit (by a judge, an extractor, a result's attribute) ends that audit, not the thread that
runs all the others.
"""

from __future__ import annotations

import atexit
import logging
import math
import os
import threading
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from . import semconv

if TYPE_CHECKING:
    import asyncio

__all__ = ["CANCEL_GRACE", "DEFAULT_SHUTDOWN_TIMEOUT", "BackgroundRunner", "runner",
           "shutdown_timeout"]

DEFAULT_MAX_PENDING = 1_000
DEFAULT_SHUTDOWN_TIMEOUT = 5.0
#: Seconds the audits cancelled at exit get to end their spans.
CANCEL_GRACE = 1.0

logger = logging.getLogger(__name__)


class BackgroundRunner:
    """Runs coroutines on a private event loop in a daemon thread."""

    def __init__(self, max_pending: int = DEFAULT_MAX_PENDING) -> None:
        self.max_pending = max_pending
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._pending = 0
        self._idle = threading.Condition(self._lock)
        self._tasks: set[asyncio.Task[None]] = set()

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        import asyncio  # lazily: see vcg_otel._aio

        if self._loop is None:
            loop = asyncio.new_event_loop()
            thread = threading.Thread(target=loop.run_forever, name="vcg-otel-audit",
                                      daemon=True)
            thread.start()
            self._loop, self._thread = loop, thread
            # Registered now, not at import: atexit runs last-in first-out, so this flush runs
            # before the shutdown of a tracer provider created earlier (which exports spans).
            atexit.register(_shutdown)
        return self._loop

    @property
    def pending(self) -> int:
        return self._pending

    def submit(self, make: Callable[[], Coroutine[Any, Any, None]],
               abandoned: Callable[[], None] | None = None) -> bool:
        """Schedule ``make()``; ``False`` (nothing scheduled) when the queue is full.

        ``abandoned`` is called instead if the audit is cancelled (at exit) before it started:
        a coroutine cancelled before its first step runs none of its code, not even its
        ``finally``, so this is where its spans get ended.
        """
        with self._lock:
            if self._pending >= self.max_pending:
                return False
            self._pending += 1
            loop = self._ensure_loop()
        started = False

        async def run() -> None:
            import asyncio

            nonlocal started
            started = True
            try:
                await make()
            except asyncio.CancelledError:
                pass  # cancelled at exit: the audit has recorded it; the task ends quietly
            except BaseException:  # KeyboardInterrupt/SystemExit here would stop the loop
                logger.exception("a background citation audit raised; the audit loop goes on")

        def done(task: asyncio.Task[None]) -> None:
            self._tasks.discard(task)
            try:
                if not started and abandoned is not None:
                    abandoned()
            except Exception:
                logger.exception("ending an abandoned citation audit failed")
            finally:
                with self._lock:
                    self._pending -= 1
                    self._idle.notify_all()

        def start() -> None:  # on the loop: every task is known (to cancel) from its creation
            task = loop.create_task(run())
            self._tasks.add(task)
            task.add_done_callback(done)

        loop.call_soon_threadsafe(start)
        return True

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until no audit is pending; ``False`` if ``timeout`` passed first."""
        with self._lock:
            return self._idle.wait_for(lambda: self._pending == 0, timeout)

    def cancel_pending(self, grace: float = CANCEL_GRACE) -> bool:
        """Cancel every audit still running and wait up to ``grace`` seconds for them to end.

        Cancelled audits end their spans (status ERROR, ``citation.audit.error``
        ``CancelledError``) instead of being destroyed pending at exit. ``True`` if none is
        left.
        """
        loop = self._loop
        if loop is None or loop.is_closed():
            return True

        def cancel_all() -> None:
            for task in list(self._tasks):
                task.cancel()

        try:
            loop.call_soon_threadsafe(cancel_all)
        except RuntimeError:  # the loop is closed
            return True
        return self.flush(grace)


def shutdown_timeout() -> float:
    """``VCG_OTEL_SHUTDOWN_TIMEOUT`` in seconds; the default (with a warning) if it is not a
    finite number >= 0 (``nan`` would wait for ever, ``inf`` too)."""
    raw = os.environ.get(semconv.ENV_SHUTDOWN_TIMEOUT)
    if raw is None or not raw.strip():
        return DEFAULT_SHUTDOWN_TIMEOUT
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0:
        logger.warning("%s=%r is not a finite number of seconds >= 0; using %s",
                       semconv.ENV_SHUTDOWN_TIMEOUT, raw, DEFAULT_SHUTDOWN_TIMEOUT)
        return DEFAULT_SHUTDOWN_TIMEOUT
    return value


def _shutdown() -> None:
    if not runner.flush(shutdown_timeout()):
        runner.cancel_pending()


runner = BackgroundRunner()
