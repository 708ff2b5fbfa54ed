"""Issue 19, item 10, the mechanism: at exit every wait of ours (pending background audits,
their cancellation, the annotation writer, our batch exporter) takes its share of one
deadline, ``VCG_OTEL_SHUTDOWN_TIMEOUT`` seconds from the first of them, instead of a bound of
its own each. Driven by a clock of the test's own, so nothing here waits or times anything;
benchmarks/exit_time.py measures the exits."""

from __future__ import annotations

import math
from collections.abc import Iterator
from types import SimpleNamespace

import pytest
from support.hostile_http import HostileServer

from vcg_otel import _exit
from vcg_otel.otel import background
from vcg_otel.phoenix.writer import AnnotationWriter


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def monotonic(self) -> float:
        return self.now


@pytest.fixture
def at_exit(monkeypatch: pytest.MonkeyPatch) -> Iterator[Clock]:
    """The interpreter is exiting (as far as vcg_otel._exit can tell), on the test's clock."""
    clock = Clock()
    monkeypatch.setenv("VCG_OTEL_SHUTDOWN_TIMEOUT", "5")
    monkeypatch.setattr(_exit, "exiting", lambda: True)
    monkeypatch.setattr(_exit, "time", SimpleNamespace(monotonic=clock.monotonic))
    monkeypatch.setattr(_exit, "_deadline", None)
    yield clock


def test_the_first_wait_at_exit_starts_the_deadline_and_the_later_ones_share_it(
        at_exit: Clock) -> None:
    assert _exit.left(3.0) == 3.0  # its own limit, under the 5 s bound
    at_exit.now += 3.0
    assert _exit.left(5.0) == 2.0  # the writer's own 5 s, cut to what remains
    at_exit.now += 2.5
    assert _exit.left(5.0) == 0.0


def test_outside_exit_every_wait_keeps_its_own_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_exit, "_deadline", None)
    assert not _exit.exiting()
    assert _exit.left(7.5) == 7.5 and _exit._deadline is None


def test_pending_audits_get_the_bound_less_the_grace_then_the_grace(
        at_exit: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    waits: list[tuple[str, float]] = []

    def flush(timeout: float) -> bool:
        waits.append(("flush", timeout))
        at_exit.now += timeout  # the hung audits use all of it
        return False

    def cancel_pending(grace: float) -> bool:
        waits.append(("cancel", grace))
        at_exit.now += grace
        return False

    monkeypatch.setattr(background.runner, "_pending", 20)
    monkeypatch.setattr(background.runner, "flush", flush)
    monkeypatch.setattr(background.runner, "cancel_pending", cancel_pending)
    background._shutdown()
    assert waits == [("flush", 4.0), ("cancel", 1.0)]
    assert _exit.left(5.0) == 0.0  # nothing is left for the writer and the exporter


def test_the_annotation_writer_at_exit_takes_only_what_remains(
        at_exit: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    with HostileServer("silent") as silent:  # accepts, never answers
        writer = AnnotationWriter(f"{silent.url}/v1/span_annotations", {}, send_delay=0.0)
        for n in range(3):
            writer.submit({"span_id": f"{n:016x}", "name": "citation_verdict"})
        waited: list[float] = []
        join = writer._thread.join

        def timed_join(timeout: float | None = None) -> None:
            waited.append(-1.0 if timeout is None else timeout)
            join(timeout)

        monkeypatch.setattr(writer._thread, "join", timed_join)
        assert _exit.left(math.inf) == 5.0  # the audits' wait started the deadline ...
        at_exit.now += 4.75  # ... and used nearly all of it
        writer.close(5.0)  # its own timeout: 5 s
        assert len(waited) == 1 and 0.0 <= waited[0] <= 0.25  # what remained of the bound
        assert writer.pending == 0  # written, or counted dropped: nothing left held
