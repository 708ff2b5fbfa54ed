"""The distribution ships what the code imports: both top-level packages, built as pip builds
them, and a Haystack pipeline loads from the installed wheel alone."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest
from support.paths import ROOT

NAMESPACE = "haystack_integrations/components/validators/vcg_otel"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel setuptools builds from a copy of the sources (no build/ in the checkout)."""
    src = tmp_path_factory.mktemp("src")
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, src)
    for name in ("vcg_otel", "haystack_integrations"):
        shutil.copytree(ROOT / name, src / name,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    out = tmp_path_factory.mktemp("dist")
    code = f"import setuptools.build_meta as b; print(b.build_wheel({str(out)!r}))"
    result = subprocess.run([sys.executable, "-c", code], cwd=src, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return out / result.stdout.split()[-1]


def test_the_wheel_ships_the_haystack_components_in_the_shared_namespace(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for module in ("__init__", "checkers", "citation", "options"):
        assert f"{NAMESPACE}/{module}.py" in names
    assert f"{NAMESPACE}/py.typed" in names
    # Namespace packages: the levels other integrations share carry no __init__.py of ours
    # (one would hide every other distribution's haystack_integrations.components...).
    for shared in ("haystack_integrations", "haystack_integrations/components",
                   "haystack_integrations/components/validators"):
        assert f"{shared}/__init__.py" not in names
    assert "vcg_otel/integrations/haystack.py" in names


def test_a_pipeline_loads_with_plain_loads_from_the_installed_wheel(
        wheel: Path, tmp_path: Path) -> None:
    pytest.importorskip("haystack")
    target = tmp_path / "site"
    install = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
         "--target", str(target), str(wheel)], capture_output=True, text=True, timeout=300)
    assert install.returncode == 0, install.stderr
    script = textwrap.dedent("""
        import sys
        from haystack import Document, Pipeline
        from vcg_otel.integrations.haystack import CitationConsistencyChecker
        import haystack_integrations.components.validators.vcg_otel as home, vcg_otel
        assert all(m.__file__.startswith(sys.argv[1]) for m in (home, vcg_otel))
        pipe = Pipeline()
        pipe.add_component("checker", CitationConsistencyChecker())
        loaded = Pipeline.loads(pipe.dumps())
        docs = [Document(id="d1", content="Body weight was unchanged in both arms.")]
        out = loaded.run({"checker": {"documents": docs, "citations": [
            {"claim": "c", "document_id": "d1", "quote": "body weight was unchanged"}]}})
        print([c.status for c in out["checker"]["consistent"]])
    """)
    # the installed copy first on the path; not the checkout (cwd elsewhere, no PYTHONPATH)
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(target)}
    result = subprocess.run([sys.executable, "-c", script, str(target)], cwd=tmp_path,
                            capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "['found']"
