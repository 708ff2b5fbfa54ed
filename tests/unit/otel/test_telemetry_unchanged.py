"""Every span, attribute, event, log record and metric point the decorator emits for a few fixed
calls, in order, against the golden file: a speed-up (or a refactor) of the recording path must
leave the telemetry exactly as it was. A change meant to alter it regenerates the file
(``python tests/support/golden_telemetry.py --write``) and says so in its commit."""

from __future__ import annotations

import json
from typing import Any

import pytest
from support import golden_telemetry

GOLDEN: list[dict[str, Any]] = json.loads(golden_telemetry.GOLDEN.read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", golden_telemetry.CASES, ids=[c[0] for c in golden_telemetry.CASES])
def test_the_telemetry_of_each_case_is_the_golden_one(case: tuple[Any, ...]) -> None:
    expected = next(g for g in GOLDEN if g["case"] == case[0])
    # through JSON, as the golden file was written: tuples become lists
    assert json.loads(json.dumps(golden_telemetry.run(*case))) == expected
