"""Supply chain, offline: the dependency ranges exclude known-compromised releases, the core
stays small, and the lock CI installs from (.ci/test-constraints.txt) agrees with both. The
registry audit of the installed lock is .ci/audit_dependencies.py
(tests/project/test_dependency_audit.py).
"""

from __future__ import annotations

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from support.paths import ROOT

tomllib = pytest.importorskip("tomllib")  # Python 3.11+

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
LOCK = ROOT / ".ci" / "test-constraints.txt"
ADVISORIES = ROOT / ".ci" / "advisories.txt"
COMPROMISED_LITELLM = ["1.82.7", "1.82.8", "1.107.0", "1.107.1", "1.107.5", "1.107.9"]


def requirements(extra: str | None = None) -> list[Requirement]:
    project = PYPROJECT["project"]
    raw = project["dependencies"] if extra is None else project["optional-dependencies"][extra]
    return [Requirement(r) for r in raw]


def test_core_depends_on_the_opentelemetry_api_and_semantic_conventions_only() -> None:
    assert [r.name for r in requirements()] == ["opentelemetry-api",
                                                "opentelemetry-semantic-conventions"]


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


def locked() -> dict[str, str]:
    pins = {}
    for line in LOCK.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            req = Requirement(line)
            (spec,) = req.specifier
            assert spec.operator == "==", line
            pins[canonicalize_name(req.name)] = spec.version
    return pins


def test_the_lock_satisfies_every_declared_range() -> None:
    pins = locked()
    for extra in ["test", *PYPROJECT["project"]["optional-dependencies"]]:
        for req in requirements(extra) + requirements():
            name = canonicalize_name(req.name)
            if name == "vcg-otel" or (req.marker and not req.marker.evaluate({"extra": extra})):
                continue
            assert name in pins, f"{req} ({extra}) is not locked"
            assert req.specifier.contains(pins[name], prereleases=True), (str(req), pins[name])


def test_the_lock_pins_no_release_with_an_advisory() -> None:
    pins = locked()
    for line in ADVISORIES.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            bad = Requirement(line.split(" ", 1)[0])
            version = pins.get(canonicalize_name(bad.name))
            assert version is None or not bad.specifier.contains(version, prereleases=True)
