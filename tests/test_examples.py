"""The README's examples run as documented and print what the README shows."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(script: str) -> str:
    out = subprocess.run([sys.executable, str(ROOT / "examples" / script)], capture_output=True,
                         text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_gate_quickstart_prints_every_outcome() -> None:
    lines = {line.split("  ")[0]: line for line in run("gate_quickstart.py").splitlines()}
    assert "found (elided)" in lines["elided"]
    assert " not_found " in lines["fabricated"] and " not_found " in lines["frankenquote"]
    assert "misattributed" in lines["misattributed"] and "really from lee-2025" in lines[
        "misattributed"]


def test_traced_example_prints_the_span_tree_and_metrics() -> None:
    out = run("traced_rag_app.py")
    assert "citation_audit [GUARDRAIL] found=2 not_found=1 misattributed=1 total=4" in out
    assert out.count("citation.check [EVALUATOR]") == 4
    assert "'citation.stage': 'final', 'citation.verdict': 'not_found'} = 1" in out
