"""One bound for everything vcg_otel holds at interpreter exit.

At exit several of our parts may wait: the background audits still pending (a judge that
hangs, an audit busy with a big document), the Phoenix annotation writer facing a server
that does not answer, our batch span processor's last export. Each had a bound of its own,
and the bounds added up (9.5 s for a hung judge and a silent Phoenix). Now every exit-time
wait asks :func:`left` how long it may take: the first one starts a single deadline,
:func:`shutdown_timeout` seconds (``VCG_OTEL_SHUTDOWN_TIMEOUT``, default 5), and each gets
what remains of it. Outside exit, :func:`left` returns each wait's own limit unchanged.

Exit is recognised by the main thread having ended (``threading`` marks it stopped before
the ``atexit`` hooks run), so the order in which the hooks were registered does not matter.
"""

from __future__ import annotations

import logging
import math
import os
import sys
import threading
import time

from .otel import semconv

__all__ = ["DEFAULT_SHUTDOWN_TIMEOUT", "exiting", "left", "shutdown_timeout"]

DEFAULT_SHUTDOWN_TIMEOUT = 5.0

logger = logging.getLogger(__name__)
_lock = threading.Lock()
_deadline: float | None = None


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


def exiting() -> bool:
    """Whether the interpreter is exiting (its main thread has ended)."""
    return sys.is_finalizing() or not threading.main_thread().is_alive()


def left(limit: float) -> float:
    """Seconds a wait may take: ``limit``, and at exit no more than what remains of the one
    exit deadline (started by the first wait that asks)."""
    global _deadline
    if not exiting():
        return limit
    with _lock:
        if _deadline is None:
            _deadline = time.monotonic() + shutdown_timeout()
        remaining = _deadline - time.monotonic()
    return max(0.0, min(limit, remaining))
