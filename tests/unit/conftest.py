"""Fixtures of the unit tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from support.telemetry import Telemetry


@pytest.fixture
def telemetry() -> Iterator[Telemetry]:
    t = Telemetry()
    yield t
    t.tracer_provider.shutdown()
    t.meter_provider.shutdown()
