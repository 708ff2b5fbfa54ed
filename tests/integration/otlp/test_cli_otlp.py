"""``vcg-otel audit --otlp-endpoint``: spans and the events (as OTLP logs) reach an OTLP/HTTP
backend running on 127.0.0.1, through the same record path as the decorator."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.otlp_receiver import Receiver, attributes
from support.phoenix_server import poll

from vcg_otel.cli import main
from vcg_otel.otel import semconv


def test_otlp_endpoint_exports_each_citations_evaluation_event_as_a_log_record(
        files: dict[str, Path], receiver: Receiver,
        capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["audit", str(files["answers"]), "--docs", str(files["docs_dir"]),
                 "--otlp-endpoint", receiver.url, "--no-progress"])
    assert code == 0
    poll(lambda: receiver, lambda r: len(r.logs()) >= 4 and len(r.spans()) >= 6, timeout=10)
    evaluations = [attributes(r) for r in receiver.logs()
                   if r.event_name == semconv.EVENT_EVALUATION_RESULT]
    labels = sorted(e["gen_ai.evaluation.score.label"] for e in evaluations)
    assert labels == ["found", "found", "misattributed", "not_found"]
    checks = [s for s in receiver.spans() if s.name == semconv.SPAN_CHECK]
    check_ids = {s.span_id for s in checks}
    assert {r.span_id for r in receiver.logs()} <= check_ids  # each event on its check span
