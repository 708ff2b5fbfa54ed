"""Audits that finish after the handler has returned: one daemon thread with an event loop.

A bounded number of audits may be pending; beyond it new ones are dropped and counted (the
``citation.audit.dropped`` metric and a span attribute), never queued without bound. At
interpreter exit everything vcg_otel holds shares one bound, ``VCG_OTEL_SHUTDOWN_TIMEOUT``
seconds (default 5; a value that is not a finite number >= 0 is replaced by the default, with
a warning; see :mod:`vcg_otel._exit`): pending audits may finish until :data:`CANCEL_GRACE`
seconds (at most half the bound) before its end; then the ones still running are cancelled
(their spans end, recording the cancellation) and given that grace; what remains of the bound
goes to the exporters and the annotation writer. The thread is a daemon: an audit busy with
CPU work that no cancellation reaches is left behind, not waited for. :func:`flush` waits
for the pending audits on demand.

Nothing an audit raises stops the loop: ``KeyboardInterrupt`` or ``SystemExit`` raised inside
an audit (by a judge, an extractor, a result's attribute) ends that audit, not the thread that
runs all the others.
"""

from __future__ import annotations

import atexit
import logging
import math
import threading
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from .._exit import DEFAULT_SHUTDOWN_TIMEOUT, left, shutdown_timeout

if TYPE_CHECKING:
    import asyncio

__all__ = ["CANCEL_GRACE", "DEFAULT_SHUTDOWN_TIMEOUT", "BackgroundRunner", "flush", "runner",
           "shutdown_timeout"]

DEFAULT_MAX_PENDING = 1_000
#: Seconds the audits cancelled at exit get to end their spans (at most half the exit bound).
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


def flush(timeout: float | None = None) -> bool:
    """Wait until every background audit has finished: ``True`` once none is pending,
    ``False`` if ``timeout`` seconds passed first (``None``: wait as long as it takes).

    Background audits are those of ``@audited_citations(background=True)`` (and of the
    instrumentor with that setting). A finished audit has ended its spans and recorded its
    metrics and events: with a ``SimpleSpanProcessor`` they are exported, with a batching
    processor they are queued (call your provider's ``force_flush()`` next to export them).
    Audits submitted while this waits are waited for too. Use it in scripts, tests and
    before a worker stops; exit does the same on its own, within its bound
    (``VCG_OTEL_SHUTDOWN_TIMEOUT``).

    Raises:
        TypeError: ``timeout`` is not a number or ``None``.
        ValueError: ``timeout`` is negative or NaN.
    """
    if timeout is not None:
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
            raise TypeError(f"timeout must be a number of seconds or None, not "
                            f"{type(timeout).__name__}")
        if math.isnan(timeout) or timeout < 0:
            raise ValueError(f"timeout must be >= 0 seconds, not {timeout!r}")
        if math.isinf(timeout):
            timeout = None
    return runner.flush(timeout)


def _shutdown() -> None:
    """At exit: pending audits finish or are cancelled, within the one exit bound."""
    if runner.pending == 0:
        return
    bound = left(math.inf)  # what remains of the exit bound (this may start it)
    grace = min(CANCEL_GRACE, bound / 2)
    if not runner.flush(bound - grace):
        runner.cancel_pending(left(grace))


runner = BackgroundRunner()
