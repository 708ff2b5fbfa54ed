"""Supply chain: the dependency ranges exclude known-compromised releases, the core stays
small. (pip-audit needs PyPI's JSON API, which the package mirror here does not serve; these
checks run offline.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging.requirements import Requirement

tomllib = pytest.importorskip("tomllib")  # Python 3.11+

PYPROJECT = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text())
COMPROMISED_LITELLM = ["1.82.7", "1.82.8", "1.107.0", "1.107.1", "1.107.5", "1.107.9"]


def requirements(extra: str | None = None) -> list[Requirement]:
    project = PYPROJECT["project"]
    raw = project["dependencies"] if extra is None else project["optional-dependencies"][extra]
    return [Requirement(r) for r in raw]


def test_core_depends_on_the_opentelemetry_api_only() -> None:
    assert [r.name for r in requirements()] == ["opentelemetry-api"]


def test_litellm_range_excludes_every_compromised_release() -> None:
    for extra in ("litellm",):
        (litellm,) = [r for r in requirements(extra) if r.name == "litellm"]
        assert litellm.specifier, "litellm must be pinned to a range"
        for bad in COMPROMISED_LITELLM:
            assert bad not in litellm.specifier, bad
        assert "1.110.2" in litellm.specifier  # the tested release is inside


def test_every_extra_dependency_has_an_upper_bound() -> None:
    for extra in PYPROJECT["project"]["optional-dependencies"]:
        for req in requirements(extra):
            if req.name == "vcg-otel":
                continue  # self-reference to other extras
            assert any(s.operator in ("<", "<=", "==", "~=") for s in req.specifier), (
                extra, str(req))
