"""Audits that finish after the handler has returned: one daemon thread with an event loop.

A bounded number of audits may be pending; beyond it new ones are dropped and counted (the
``citation.audit.dropped`` metric and a span attribute), never queued without bound. At
interpreter exit pending audits get ``VCG_OTEL_SHUTDOWN_TIMEOUT`` seconds (default 5) to finish;
the thread is a daemon, so exit never hangs longer than that.
"""

from __future__ import annotations

import atexit
import os
import threading
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import asyncio

__all__ = ["BackgroundRunner", "runner"]

DEFAULT_MAX_PENDING = 1_000


class BackgroundRunner:
    """Runs coroutines on a private event loop in a daemon thread."""

    def __init__(self, max_pending: int = DEFAULT_MAX_PENDING) -> None:
        self.max_pending = max_pending
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._pending = 0
        self._idle = threading.Condition(self._lock)

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

    def submit(self, make: Callable[[], Coroutine[Any, Any, None]]) -> bool:
        """Schedule ``make()``; ``False`` (nothing scheduled) when the queue is full."""
        with self._lock:
            if self._pending >= self.max_pending:
                return False
            self._pending += 1
            loop = self._ensure_loop()

        async def run() -> None:
            try:
                await make()
            finally:
                with self._lock:
                    self._pending -= 1
                    self._idle.notify_all()

        import asyncio

        asyncio.run_coroutine_threadsafe(run(), loop)
        return True

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until no audit is pending; ``False`` if ``timeout`` passed first."""
        with self._lock:
            return self._idle.wait_for(lambda: self._pending == 0, timeout)


def _shutdown() -> None:
    try:
        timeout = float(os.environ.get("VCG_OTEL_SHUTDOWN_TIMEOUT", "5"))
    except ValueError:
        timeout = 5.0
    runner.flush(timeout)


runner = BackgroundRunner()
