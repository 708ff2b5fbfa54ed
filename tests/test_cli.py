"""The vcg-otel command: batch audits, CI gating, clear input errors, and the demo."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, Reply
from phoenix_server import PhoenixServer, poll

from vcg_otel.cli import main

DOCS = {
    "paper": "The reranker improves accuracy by 4.2% over the baseline. Gains shrink on long "
    "documents.",
    "blog": "Cats sleep for most of the day.",
}
ANSWERS = [
    {"id": "a1", "citations": [
        {"claim": "helps", "quote": "improves accuracy by 4.2%", "doc_id": "paper"},
        {"claim": "cats", "quote": "Cats sleep for most of the day", "doc_id": "paper"}]},
    {"id": "a2", "citations": [
        {"claim": "fast", "quote": "halves latency everywhere", "doc_id": "paper"},
        {"claim": "shrinks", "quote": "Gains shrink on long documents", "doc_id": "paper"}]},
]


def write_jsonl(path: Path, records: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    docs_dir = tmp_path / "docs"
    docs_dir.mkdir()
    for doc_id, text in DOCS.items():
        (docs_dir / f"{doc_id}.txt").write_text(text)
    return {
        "answers": write_jsonl(tmp_path / "answers.jsonl", ANSWERS),
        "docs_dir": docs_dir,
        "docs_jsonl": write_jsonl(tmp_path / "docs.jsonl",
                                  [{"id": k, "text": v} for k, v in DOCS.items()]),
        "docs_json": _write(tmp_path / "docs.json", json.dumps(DOCS)),
        "out": tmp_path / "results.jsonl",
    }


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


@pytest.mark.parametrize("docs", ["docs_dir", "docs_jsonl", "docs_json"])
def test_audit_writes_results_and_a_summary(files: dict[str, Path], docs: str,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["audit", str(files["answers"]), "--docs", str(files[docs]),
                 "--out", str(files["out"])])
    assert code == 0
    results = [json.loads(line) for line in files["out"].read_text().splitlines()]
    assert [(r["answer_id"], r["outcome"]) for r in results] == [
        ("a1", "found"), ("a1", "misattributed"), ("a2", "not_found"), ("a2", "found")]
    assert results[1]["gate"]["source_document_ids"] == ["blog"]
    summary = capsys.readouterr()
    assert "2 answers, 4 citations" in summary.out
    assert re.search(r"^misattributed\s+1\s+0\.2500$", summary.out, re.M)
    assert "auditing [" in summary.err  # progress


def test_fail_on_thresholds_set_the_exit_code(files: dict[str, Path],
                                              capsys: pytest.CaptureFixture[str]) -> None:
    base = ["audit", str(files["answers"]), "--docs", str(files["docs_dir"]), "--no-progress"]
    assert main([*base, "--fail-on", "misattributed>0.3"]) == 0
    assert main([*base, "--fail-on", "misattributed>0.2", "--fail-on", "not_found>0.9"]) == 1
    out = capsys.readouterr().out
    assert "FAIL misattributed rate 0.2500 > 0.2" in out
    assert main([*base, "--fail-on", "fabricated>=0.5"]) == 1


def test_bad_threshold_is_a_usage_error(files: dict[str, Path],
                                        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["audit", str(files["answers"]), "--docs", str(files["docs_dir"]),
              "--fail-on", "made_up>0.1"])
    assert caught.value.code == 2
    assert "bad threshold" in capsys.readouterr().err


def test_bad_answers_line_names_file_and_line_and_leaves_no_output(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    broken = files["answers"].parent / "broken.jsonl"
    broken.write_text(json.dumps(ANSWERS[0]) + "\n" + "{not json\n")
    code = main(["audit", str(broken), "--docs", str(files["docs_dir"]),
                 "--out", str(files["out"])])
    assert code == 2
    assert f"{broken}:2: invalid JSON" in capsys.readouterr().err
    assert not files["out"].exists()
    assert not list(files["out"].parent.glob("*.partial"))


def test_bad_documents_file_is_named(files: dict[str, Path],
                                     capsys: pytest.CaptureFixture[str]) -> None:
    bad = write_jsonl(files["answers"].parent / "bad_docs.jsonl", [{"id": "x", "text": "ok"},
                                                                  {"no": "id"}])
    assert main(["audit", str(files["answers"]), "--docs", str(bad)]) == 2
    assert f"{bad}:2: expected an object with 'id' and 'text'" in capsys.readouterr().err
    missing = files["answers"].parent / "missing.json"
    assert main(["audit", str(files["answers"]), "--docs", str(missing)]) == 2


def test_judge_through_litellm_with_tokens(files: dict[str, Path], openai_server: FakeOpenAI
                                           ) -> None:
    verdict = json.dumps({"verdict": "supports", "confidence": 0.9, "reasoning": "ok"})
    openai_server.responder = lambda body: Reply(verdict, 100, 10)
    env = {**os.environ, "OPENAI_API_KEY": "sk-test", "OPENAI_API_BASE": openai_server.base_url}
    out = subprocess.run(
        [sys.executable, "-m", "vcg_otel.cli", "audit", str(files["answers"]), "--docs",
         str(files["docs_dir"]), "--judge", "openai/test-judge", "--out", str(files["out"]),
         "--no-progress"], capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    assert re.search(r"^supports\s+2\s+0\.5000$", out.stdout, re.M)
    assert "tokens: 200 prompt, 20 completion" in out.stdout
    assert len(openai_server.requests) == 2  # only the two quotes that exist were judged


def test_spans_are_exported_to_phoenix(files: dict[str, Path], phoenix: PhoenixServer) -> None:
    project = "cli-export"
    assert main(["audit", str(files["answers"]), "--docs", str(files["docs_dir"]),
                 "--phoenix", phoenix.url, "--project", project, "--no-progress"]) == 0
    spans = poll(lambda: phoenix.spans(project), lambda s: len(s) >= 6)
    audits = [s for s in spans if s["name"] == "citation_audit"]
    assert sorted(s["attributes"]["citation.answer.id"] for s in audits) == ["a1", "a2"]
    assert sum(1 for s in spans if s["name"] == "citation.check") == 4


def test_demo_without_a_server_prints_spans_and_rates() -> None:
    out = subprocess.run([sys.executable, "-m", "vcg_otel.cli", "demo", "--no-server"],
                         capture_output=True, text=True, timeout=120,
                         env={k: v for k, v in os.environ.items() if k != "VCG_JUDGE_MODEL"})
    assert out.returncode == 0, out.stderr
    assert "gate only" in out.stdout
    assert '"name": "citation_audit"' in out.stdout
    assert "11 citations: fabrication (not_found) rate 27.3%, misattribution rate 9.1%" in (
        out.stdout)


def test_demo_reads_its_rates_back_from_a_real_phoenix() -> None:
    out = subprocess.run([sys.executable, "-m", "vcg_otel.cli", "demo"], capture_output=True,
                         text=True, timeout=240,
                         env={k: v for k, v in os.environ.items() if k != "VCG_JUDGE_MODEL"})
    assert out.returncode == 0, out.stderr + out.stdout
    assert "Phoenix is up: http://127.0.0.1:" in out.stdout
    assert "read back from Phoenix:" in out.stdout
    assert "11 citations: fabrication (not_found) rate 27.3%, misattribution rate 9.1%" in (
        out.stdout)
    assert "(annotation citation_fabrication): 66.7%" in out.stdout
