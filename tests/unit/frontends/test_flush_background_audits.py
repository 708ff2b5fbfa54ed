"""Issue 19, item 15: ``vcg_otel.flush(timeout=...)`` waits for the background audits and
says whether they all finished: a script or a test reads its spans after it, without
polling. It is loaded lazily (``import vcg_otel`` stays light)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import threading

import pytest
from support.telemetry import Telemetry

import vcg_otel
from vcg_otel import audited_citations
from vcg_otel.otel import semconv

DOCS = {"paper": "The proposed reranker improves accuracy by 4.2% over the baseline."}
ANSWER = 'It helps: "improves accuracy by 4.2%" [paper].'
SUPPORTS = json.dumps({"verdict": "supports", "confidence": 0.9, "reasoning": "stated"})


def test_flush_returns_once_every_background_audit_has_recorded_its_spans() -> None:
    telemetry = Telemetry()
    release = threading.Event()

    def judge(system: str, user: str) -> str:
        release.wait(60)  # held until the test lets it answer
        return SUPPORTS

    @audited_citations(judge=judge, background=True, timeout=120, **telemetry.providers)
    def answer(question: str, documents: dict[str, str]) -> str:
        return ANSWER

    for n in range(3):
        assert answer(f"q{n}", DOCS) == ANSWER
    assert vcg_otel.flush(timeout=0.05) is False  # the judge has not answered: not finished
    assert telemetry.spans(semconv.SPAN_CHECK) == []
    release.set()
    assert vcg_otel.flush(timeout=60) is True
    checks = telemetry.spans(semconv.SPAN_CHECK)  # read at once: no polling
    assert [c.attributes[semconv.VERDICT] for c in checks] == ["supports"] * 3  # type: ignore[index]
    assert len(telemetry.spans(semconv.SPAN_AUDIT)) == 3
    assert vcg_otel.flush() is True  # nothing pending: at once, whatever the timeout


@pytest.mark.parametrize(("timeout", "error"), [(-1, ValueError), (math.nan, ValueError),
                                                 ("5", TypeError), (True, TypeError)])
def test_a_timeout_that_is_not_seconds_is_refused(timeout: object, error: type) -> None:
    with pytest.raises(error):
        vcg_otel.flush(timeout)  # type: ignore[arg-type]


def test_flush_is_public_and_loaded_lazily() -> None:
    assert "flush" in vcg_otel.__all__ and "flush" in dir(vcg_otel)
    code = ("import sys, vcg_otel; before = 'vcg_otel.otel.background' in sys.modules; "
            "vcg_otel.flush; print(before, 'vcg_otel.otel.background' in sys.modules, "
            "'asyncio' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60)
    assert out.stdout.split() == ["False", "True", "False"]
