"""Event loops of our own: running a coroutine from sync code, and loops on daemon threads.

asyncio is imported lazily everywhere here: importing it costs ~40 ms, and sync-only users
never need it.
"""

from __future__ import annotations

import contextvars
import logging
import os
import threading
from collections.abc import Coroutine, Generator
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    import asyncio
    import concurrent.futures

__all__ = ["Abandonable", "LoopThread", "judge_loop", "run_on", "run_sync"]

T = TypeVar("T")
logger = logging.getLogger(__name__)


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(coro)``, on a helper thread if this thread already runs an event loop.

    The helper thread runs in a copy of the caller's context, so context variables (the
    audit's re-entrancy marker, OpenTelemetry's current span) reach the coroutine either way.
    It is a daemon thread, never joined at exit (``concurrent.futures`` joins its own).
    """
    import asyncio

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    from ._executor import DaemonExecutor

    helper = DaemonExecutor(1, "vcg-otel-sync")
    try:
        done: T = helper.submit(contextvars.copy_context().run, asyncio.run, coro).result()
        return done
    finally:
        helper.shutdown(wait=False)


class Abandonable:
    """Lets a task give up for real on the coroutines it awaits through :meth:`wait`.

    A task cancelled while it awaits a coroutine that swallows ``CancelledError`` (``try:
    await sleep(3600) except CancelledError: pass``, in a loop) never ends, and
    ``asyncio.run`` cancels *and waits for* every task of its loop at shutdown: one such task
    hangs it for ever. ``await guard.wait(coro)`` steps ``coro`` exactly as ``await coro``
    would (same task, context, values and exceptions passed through), with one difference:
    once :meth:`abandon` has been called, the next exception thrown into the task (the
    cancellation :meth:`abandon` sends) closes ``coro`` (``GeneratorExit`` at its ``await``)
    and ends the task as cancelled, whatever ``coro`` does with it.
    """

    __slots__ = ("abandoned",)

    def __init__(self) -> None:
        self.abandoned = False

    def wait(self, coro: Coroutine[Any, Any, T]) -> _Stepped[T]:
        """``coro``, to be awaited in its place."""
        return _Stepped(self, coro)

    def abandon(self, task: asyncio.Task[Any]) -> None:
        """Give up on ``task`` (which awaits through :meth:`wait`) now: it ends cancelled."""
        self.abandoned = True
        task.cancel()


class _Stepped(Generic[T]):
    __slots__ = ("coro", "guard")

    def __init__(self, guard: Abandonable, coro: Coroutine[Any, Any, T]) -> None:
        self.guard, self.coro = guard, coro

    def __await__(self) -> Generator[Any, Any, T]:
        # ``yield from self.coro``, written out so that an abandoned coroutine can be left.
        coro = self.coro
        sent: Any = None
        thrown: BaseException | None = None
        while True:
            try:
                step = coro.send(sent) if thrown is None else coro.throw(thrown)
            except StopIteration as stop:
                value: T = stop.value
                return value
            try:
                sent, thrown = (yield step), None
            except GeneratorExit:
                coro.close()
                raise
            except BaseException as exc:
                if self.guard.abandoned:
                    try:
                        coro.close()
                    except BaseException:  # it ignores GeneratorExit too: it is left as is
                        logger.warning("vcg_otel: an abandoned coroutine ignored "
                                       "GeneratorExit; it is left unfinished")
                    raise
                sent, thrown = None, exc


class LoopThread:
    """An event loop running for ever on a daemon thread of its own, started on first use.

    Nothing on it can keep the host from ending: the thread is a daemon, and no one waits for
    its tasks at exit (their owners bound their own waits). Coroutines are submitted from any
    thread with :meth:`submit`, in a copy of the submitter's context. After a ``fork`` the
    child gets a new loop and thread on its next use (the parent's thread does not exist
    there).
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pid = 0

    @property
    def started(self) -> bool:
        """Whether this process has a running loop here."""
        return self._loop is not None and self._pid == os.getpid()

    def loop(self) -> asyncio.AbstractEventLoop:
        """The loop (started now if it is not running in this process)."""
        loop = self._loop
        if loop is not None and self._pid == os.getpid():
            return loop
        import asyncio

        with self._lock:
            if self._loop is None or self._pid != os.getpid():
                fresh = asyncio.new_event_loop()
                threading.Thread(target=_serve, args=(fresh,), name=self.name,
                                 daemon=True).start()
                self._loop, self._pid = fresh, os.getpid()
            return self._loop

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Run ``coro`` as a task of this loop; cancelling the future cancels the task."""
        import asyncio

        return asyncio.run_coroutine_threadsafe(coro, self.loop())

    def owns_this_thread(self) -> bool:
        """Whether the caller runs on this loop's thread (waiting for the loop would block
        it for ever)."""
        if not self.started:
            return False
        import asyncio

        try:
            return asyncio.get_running_loop() is self._loop
        except RuntimeError:
            return False


def run_on(where: LoopThread, coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` on ``where``'s loop and wait for it from sync code.

    A ``KeyboardInterrupt`` of the waiting caller cancels the coroutine and propagates. Called
    on that loop's own thread (a sync call inside a coroutine of that loop), it runs on a
    loop of its own instead (:func:`run_sync`), not on the loop it would block.
    """
    if where.owns_this_thread():
        return run_sync(coro)
    future = where.submit(coro)
    try:
        return future.result()
    finally:
        if not future.done():
            future.cancel()


def _serve(loop: asyncio.AbstractEventLoop) -> None:
    """Run ``loop`` for ever. A ``KeyboardInterrupt`` or ``SystemExit`` escaping a callback
    would stop it (asyncio re-raises those out of ``run_forever``): log it and go on."""
    import asyncio

    asyncio.set_event_loop(loop)
    while True:
        try:
            loop.run_forever()
            return
        except BaseException:
            logger.exception("vcg_otel: an exception escaped the %s loop; it goes on",
                             threading.current_thread().name)


#: Where judge calls made from sync code run (:mod:`vcg_otel.judge.runner`,
#: :meth:`vcg_otel.audit.Auditor.audit`): one loop for the process, not one per audit, so an
#: async judge's clients live on one loop, and a judge call that ignores its cancellation
#: cannot hold up an ``asyncio.run`` of ours or of the host.
judge_loop = LoopThread("vcg-otel-judge")
