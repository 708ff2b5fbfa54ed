"""``vcg-otel audit --from-otlp FILE``: OTLP/JSON exports of real apps' traces, audited.

Real parts: the three framework apps under their OpenInference instrumentors
(support.rag_apps), the rotel collector forwarding their OTLP to a backend
(support.otlp_receiver) whose requests are written as the collector file exporter writes them
(one JSON object per line, ids in hex: support.otlp_json), the SDK's own OTLP encoding, and an
OTLP backend receiving our spans and log records.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from support.otlp_json import sdk_request, write_lines
from support.otlp_receiver import Receiver, attributes
from support.rag_apps import App, live_outcomes, run_traced, trace_outcomes
from support.rotel_collector import rotel

from vcg_otel.cli import main

FRAMEWORKS = ["langchain", "llamaindex", "haystack"]


def audit_file(path: Path, *extra: str) -> tuple[int, list[dict[str, Any]]]:
    out = path.with_suffix(".out.jsonl")
    code = main(["audit", "--from-otlp", str(path), "--no-progress", "--out", str(out),
                 *extra])
    return code, ([json.loads(line) for line in out.read_text().splitlines()]
                  if out.exists() else [])


def in_memory(app: App) -> list[Any]:
    exporter = InMemorySpanExporter()
    run_traced(app, exporter, "otlp")
    return list(exporter.get_finished_spans())


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_a_collector_export_audits_as_the_same_app_decorated_live(
        framework: str, apps: Any, tmp_path: Path, receiver: Receiver) -> None:
    app = apps(framework)
    with rotel(receiver.url, tmp_path / "rotel.log", traces_only=True) as collector:
        (trace_id,) = run_traced(app, OTLPSpanExporter(f"{collector}/v1/traces"), "otlp")
        from support.phoenix_server import poll
        poll(lambda: receiver.spans(),
             lambda spans: any(not s.parent_span_id and s.trace_id.hex() == trace_id
                               for s in spans))
    path = write_lines(tmp_path / "traces.jsonl", receiver.received["/v1/traces"])
    code, records = audit_file(path)
    assert code == 0
    assert {r["trace_id"] for r in records} == {trace_id}
    outcomes = trace_outcomes(records)
    assert {q: v for q, (v, _) in outcomes.items()} == app.quotes.expected()
    assert outcomes == live_outcomes(app)


def test_the_sdk_encoding_with_base64_ids_over_several_lines_reads_the_same(
        apps: Any, tmp_path: Path) -> None:
    app = apps("haystack")
    spans = in_memory(app)
    half = len(spans) // 2  # one trace over two export batches, root in the second
    base64 = write_lines(tmp_path / "b64.jsonl", [sdk_request(spans[:half]),
                                                  sdk_request(spans[half:])], hex_ids=False)
    hexed = write_lines(tmp_path / "hex.jsonl", [sdk_request(spans)])
    assert trace_outcomes(audit_file(base64)[1]) == trace_outcomes(audit_file(hexed)[1])
    assert {v for v, _ in trace_outcomes(audit_file(base64)[1]).values()} == set(
        app.quotes.expected().values())


def test_a_trace_whose_root_is_still_open_is_counted_not_audited(
        apps: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    app = apps("langchain")
    spans = in_memory(app)
    children = [s for s in spans if s.parent is not None]  # the root has not ended yet
    path = write_lines(tmp_path / "open.jsonl", [sdk_request(children)])
    capsys.readouterr()
    code, records = audit_file(path)
    assert (code, records) == (0, [])
    assert "1 still open (no root span yet)" in capsys.readouterr().err


def test_audit_spans_join_the_audited_trace_under_the_answer_span(
        apps: Any, tmp_path: Path, receiver: Receiver) -> None:
    app = apps("langchain")
    spans = in_memory(app)
    answer = next(s for s in spans if s.name == "ChatOpenAI")  # the LLM span of the answer
    path = write_lines(tmp_path / "traces.jsonl", [sdk_request(spans)])
    code, _ = audit_file(path, "--otlp-endpoint", receiver.url)
    assert code == 0
    (audit,) = [s for s in receiver.spans() if s.name == "citation_audit"]
    assert audit.trace_id == answer.context.trace_id.to_bytes(16, "big")
    assert audit.parent_span_id == answer.context.span_id.to_bytes(8, "big")
    assert attributes(audit)["citation.audit.status"] == "audited"
    checks = [s for s in receiver.spans() if s.name == "citation.check"]
    assert len(checks) == 4 and all(c.parent_span_id == audit.span_id for c in checks)
    assert any(attributes(r).get("gen_ai.evaluation.name") for r in receiver.logs())


def test_phoenix_unreachable_exits_4_naming_the_address(
        capsys: pytest.CaptureFixture[str]) -> None:
    from support.phoenix_server import free_port

    url = f"http://127.0.0.1:{free_port()}"
    assert main(["audit", "--from-phoenix", url, "--project", "p", "--no-progress"]) == 4
    err = capsys.readouterr().err
    assert f"Phoenix at {url} is unreachable" in err and "Traceback" not in err


@pytest.mark.parametrize("argv, message", [
    (["--from-otlp", "missing.jsonl"], "no such file"),
    (["--from-otlp", "x", "--shard", "2/2"], "bad --shard"),
    (["--from-otlp", "x", "--since", "yesterday"], "bad --since"),
    (["--from-otlp", "x", "answers.jsonl"], "no ANSWERS"),
])
def test_bad_trace_arguments_exit_2_with_the_reason(
        argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", *argv]) == 2
    assert message in capsys.readouterr().err


def test_a_line_that_is_not_otlp_json_exits_2_naming_the_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"resourceSpans": []}\n{not json\n')
    assert main(["audit", "--from-otlp", str(path), "--no-progress"]) == 2
    assert f"{path}:2: not JSON" in capsys.readouterr().err
