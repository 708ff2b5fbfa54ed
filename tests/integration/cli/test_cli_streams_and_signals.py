"""The vcg-otel command's streams, start-up and reporting: stdout carries only the results
asked for, a Ctrl-C while starting exits 130 cleanly, a full disk is not announced as a
result file, an unusable doc_id is named as such, and ``--version``."""

from __future__ import annotations

import ast
import json
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from support.cli_files import ANSWERS, write_jsonl
from support.paths import ROOT

from vcg_otel import __version__
from vcg_otel.cli import main

MODULE = [sys.executable, "-m", "vcg_otel.cli"]


def _run(*args: str | Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*MODULE, *map(str, args)], capture_output=True, text=True,
                          timeout=timeout)


def test_the_cli_module_imports_only_the_standard_library_at_its_top() -> None:
    """What loads before ``main`` runs is outside its handlers: keep it to the standard
    library (vcg_otel's modules are imported inside the functions that use them)."""
    tree = ast.parse((ROOT / "vcg_otel/cli.py").read_text())
    top: list[str] = []
    for node in tree.body:  # module level only; `if TYPE_CHECKING:` blocks never run
        if isinstance(node, ast.Import):
            top += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            top.append("." * node.level + (node.module or ""))
    outside = [name for name in top if name != "__future__"
               and name.split(".")[0] not in sys.stdlib_module_names]
    assert outside == []


@pytest.mark.parametrize("module", ["vcg_otel.audit", "vcg_otel.config", "vcg_otel.extract"])
def test_sigint_while_starting_up_exits_130_without_a_traceback(
        files: dict[str, Path], module: str) -> None:
    """Ctrl-C lands while the command loads its modules (delivered, deterministically, when
    ``module`` is imported): the console script's own steps, then ``main``."""
    script = textwrap.dedent(f"""
        import os, signal, sys
        def interrupt(event, args):
            if event == "import" and args[0] == {module!r}:
                os.kill(os.getpid(), signal.SIGINT)
        sys.addaudithook(interrupt)
        from vcg_otel.cli import main
        sys.exit(main(sys.argv[1:]))
    """)
    proc = subprocess.run(
        [sys.executable, "-c", script, "audit", str(files["answers"]), "--docs",
         str(files["docs_dir"]), "--no-progress"],
        capture_output=True, text=True, timeout=120)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 128 + signal.SIGINT, proc.stderr
    assert proc.stderr.strip().endswith("vcg-otel: interrupted")


def test_with_out_dev_stdout_stdout_is_clean_jsonl_and_the_summary_is_on_stderr(
        files: dict[str, Path]) -> None:
    proc = _run("audit", files["answers"], "--docs", files["docs_dir"], "--out", "/dev/stdout",
                "--fail-on", "misattributed>0.1")
    assert proc.returncode == 1, proc.stderr  # the threshold was crossed
    records = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [r["outcome"] for r in records] == ["found", "misattributed", "not_found", "found"]
    assert "2 answers, 4 citations" in proc.stderr
    assert "FAIL misattributed rate 0.2500 > 0.1" in proc.stderr
    assert "per-citation results: /dev/stdout" in proc.stderr


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs Linux's /dev/full")
def test_out_to_a_full_device_fails_without_announcing_the_results(
        files: dict[str, Path]) -> None:
    proc = _run("audit", files["answers"], "--docs", files["docs_dir"], "--out", "/dev/full",
                "--no-progress")
    assert proc.returncode == 2, proc.stderr
    assert "--out /dev/full: cannot write (No space left on device)" in proc.stderr
    assert "per-citation results" not in proc.stderr + proc.stdout


def test_a_doc_id_with_a_nul_is_reported_as_unusable_not_as_missing(
        tmp_path: Path, files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    answers = write_jsonl(tmp_path / "nul.jsonl", [
        {"id": "n1", "citations": [
            {"claim": "helps", "quote": "improves accuracy by 4.2%", "doc_id": "pa\x00per"},
            {"claim": "none", "quote": "improves accuracy by 4.2%"},
            *ANSWERS[0]["citations"]]}])
    code = main(["audit", str(answers), "--docs", str(files["docs_dir"]), "--no-progress"])
    assert code == 0
    err = capsys.readouterr().err
    assert "citation 1 has an unusable doc_id ('pa\\x00per'" in err
    assert "citation 1 has no doc_id" not in err
    assert "\x00" not in err  # shown escaped
    assert "not audited: 2 citations without a doc_id" in err


def test_version_prints_the_package_version() -> None:
    proc = _run("--version")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"vcg-otel {__version__}"
