"""The code stays lint-clean and type-checked: ruff and mypy run as part of the test suite."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=300)


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff not installed (test extra)")
def test_ruff_reports_nothing() -> None:
    result = _run("ruff", "check", "vcg_otel", "tests", "benchmarks", "examples", "fuzz", ".ci")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_reports_nothing() -> None:
    pytest.importorskip("mypy")
    result = _run(sys.executable, "-m", "mypy")
    assert result.returncode == 0, result.stdout + result.stderr


def test_import_is_light() -> None:
    code = (
        "import sys, vcg_otel; "
        "heavy = [m for m in ('litellm', 'phoenix', 'opentelemetry.sdk', 'httpx') "
        "if m in sys.modules]; print(heavy)"
    )
    result = _run(sys.executable, "-c", code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
