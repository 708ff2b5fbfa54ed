"""Coverage-guided fuzzing with atheris (libFuzzer), a bounded run of every target in
fuzz/fuzz_targets.py; the same oracles as the hypothesis tests (tests/oracles.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("atheris")

FUZZER = Path(__file__).resolve().parent.parent / "fuzz" / "fuzz_targets.py"
RUNS = {"normalize": 100_000, "gate": 100_000, "span_gate": 100_000, "parser": 100_000,
        "extractors": 100_000}


@pytest.mark.parametrize("target", sorted(RUNS))
def test_coverage_guided_fuzzing_finds_no_crash(target: str, tmp_path: Path) -> None:
    runs = RUNS[target]
    proc = subprocess.run(
        [sys.executable, str(FUZZER), target, f"-runs={runs}", "-seed=20261129",
         f"-artifact_prefix={tmp_path}/", "-print_final_stats=1"],
        capture_output=True, text=True, timeout=600, cwd=tmp_path)
    crashes = list(tmp_path.glob("crash-*")) + list(tmp_path.glob("timeout-*"))
    assert proc.returncode == 0 and not crashes, proc.stderr[-4000:]
    assert f"Done {runs} runs" in proc.stderr
    assert "stat::number_of_executed_units" in proc.stderr
