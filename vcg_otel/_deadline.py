"""One foreground call's deadline: the time its reading, gate and evidence work may take.

In the default foreground mode the host waits while the audit reads the result, gates the
quotes and locates the evidence of quote-less citations. Each of those steps has bounds of its
own (nodes, characters, search steps), but bounds in work are not bounds in time: a result
whose attributes are slow to read, or an evidence index over ten thousand documents, stays
within them and still makes the host wait for seconds. One :class:`Deadline`, made when the
handler returns, is shared by every step of that call and checked inside their loops; what it
cuts is ``unverifiable`` with reason ``deadline`` (:data:`vcg_otel.otel.semconv.REASON_DEADLINE`),
never a fabrication. The judge's own calls are not covered: they keep their ``timeout``.

The clock is injectable (``clock=``, or this module's :data:`default_clock` for deadlines made
without one, such as the decorator's) so that tests can advance time by the work done
instead of waiting for it.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

__all__ = ["Deadline", "DeadlineReached", "default_clock"]

#: The clock of deadlines made without one: monotonic seconds.
default_clock: Callable[[], float] = time.monotonic


class DeadlineReached(Exception):
    """The call's deadline passed during a piece of work that cannot keep half its result
    (an evidence index half built): the caller records the citation as cut."""


class Deadline:
    """A point in time on ``clock`` (by default the module's :data:`default_clock`, read when the
    deadline is made), ``seconds`` from now. ``seconds=None`` never expires.
    """

    __slots__ = ("at", "clock", "seconds")

    def __init__(self, seconds: float | None,
                 clock: Callable[[], float] | None = None) -> None:
        self.clock: Callable[[], float] = clock if clock is not None else default_clock
        self.seconds = seconds
        self.at = math.inf if seconds is None else self.clock() + seconds

    def expired(self) -> bool:
        """Whether the deadline has passed."""
        return self.at != math.inf and self.clock() >= self.at

    def check(self) -> None:
        """Raise :class:`DeadlineReached` once the deadline has passed."""
        if self.expired():
            raise DeadlineReached(f"the foreground deadline of {self.seconds}s passed")

    def __repr__(self) -> str:
        return f"Deadline(seconds={self.seconds!r})"
