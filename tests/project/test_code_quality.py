"""The code stays lint-clean and type-checked: ruff and mypy run as part of the test suite."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest
from support.paths import ROOT


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=300)


# ruff of this interpreter's environment, found without PATH (a venv's pytest run directly)
@pytest.mark.skipif(importlib.util.find_spec("ruff") is None,
                    reason="ruff not installed (test extra)")
def test_ruff_reports_nothing() -> None:
    result = _run(sys.executable, "-m", "ruff", "check", "vcg_otel", "haystack_integrations",
                  "tests", "benchmarks", "examples", "fuzz", ".ci")
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


def test_every_module_imports_on_its_own_whichever_comes_first() -> None:
    # An import cycle only bites when the module a user imports first is the "wrong" one
    # (``import vcg_otel.documents`` before anything else once broke CI): import each module
    # first, in a fresh module table, and report every one that fails.
    modules = sorted(
        ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for package in ("vcg_otel", "haystack_integrations")
        for path in (ROOT / package).rglob("*.py")
    )
    assert "vcg_otel.documents" in modules and len(modules) > 40
    code = (
        "import importlib, sys, traceback\n"
        f"failed = []\nfor name in {modules!r}:\n"
        "    for loaded in [m for m in sys.modules\n"
        "                   if m.split('.')[0] in ('vcg_otel', 'haystack_integrations')]:\n"
        "        del sys.modules[loaded]\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except Exception:\n"
        "        failed.append(name + ': ' + traceback.format_exc(limit=-1).strip())\n"
        "print('\\n'.join(failed))\n"
    )
    result = _run(sys.executable, "-c", code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""
