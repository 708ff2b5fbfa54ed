"""The tests are laid out by kind, and no test module leans on another.

``tests/unit/<package>/``, ``tests/integration/``, ``tests/properties/`` and ``tests/project/``
hold test modules and ``conftest.py`` files only; whatever two tests share lives in the
package ``tests/support/``. A test module that imports another one runs that module's tests'
set-up at import and breaks when the other is moved or renamed.
"""

from __future__ import annotations

import ast

from support.paths import ROOT

TESTS = ROOT / "tests"
KINDS = {"unit", "integration", "properties", "project", "support"}


def _modules() -> list[str]:
    return [p.relative_to(TESTS).as_posix() for p in sorted(TESTS.rglob("*.py"))]


def test_every_test_file_sits_in_a_folder_of_its_kind() -> None:
    loose = [m for m in _modules() if "/" not in m and m != "conftest.py"]
    assert loose == []
    assert {m.split("/")[0] for m in _modules() if "/" in m} <= KINDS


def test_outside_support_there_are_only_test_modules_and_conftests() -> None:
    helpers = [m for m in _modules() if not m.startswith("support/")
               and not m.rsplit("/", 1)[-1].startswith("test_")
               and m.rsplit("/", 1)[-1] != "conftest.py"]
    assert helpers == []


def test_no_test_module_imports_another() -> None:
    offenders = []
    for path in sorted(TESTS.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            offenders += [f"{path.relative_to(TESTS)}: {n}" for n in names
                          if n.split(".")[-1].startswith(("test_", "conftest"))]
    assert offenders == []
