"""Issue 19, item 2, the mechanism: a task awaiting a coroutine that swallows its
cancellation can be ended for real (``Abandonable``), and until then the coroutine is awaited
exactly as ``await`` would (values, exceptions and cancellations passed through)."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

import pytest

from vcg_otel._aio import Abandonable


async def stubborn(log: list[str]) -> str:
    try:
        while True:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                log.append("swallowed")
    finally:
        log.append("closed")


async def turns(n: int = 5) -> None:
    for _ in range(n):
        await asyncio.sleep(0)


def test_a_task_that_swallows_cancellation_ends_cancelled_once_abandoned() -> None:
    log: list[str] = []

    async def main() -> None:
        guard = Abandonable()
        task = asyncio.get_running_loop().create_task(_wrapped(guard, stubborn(log)))
        await turns()
        task.cancel()
        await turns()
        assert not task.done() and log == ["swallowed"]  # cancelling alone does not end it
        guard.abandon(task)
        await turns()
        assert task.cancelled() and log == ["swallowed", "closed"]

    asyncio.run(main())


def test_until_abandoned_the_coroutine_is_awaited_as_await_would() -> None:
    async def answers() -> str:
        await asyncio.sleep(0)
        return "answer"

    async def raises() -> str:
        await asyncio.sleep(0)
        raise KeyError("judge")

    async def handles_one_cancel() -> str:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            await asyncio.sleep(0)
            return "cleaned up"
        return "never"

    async def main() -> None:
        guard = Abandonable()
        assert await guard.wait(answers()) == "answer"
        with pytest.raises(KeyError):
            await guard.wait(raises())
        task = asyncio.get_running_loop().create_task(_wrapped(guard, handles_one_cancel()))
        await turns()
        task.cancel()
        assert await task == "cleaned up"

    asyncio.run(main())


async def _wrapped(guard: Abandonable, coro: Coroutine[Any, Any, str]) -> str:
    return await guard.wait(coro)
