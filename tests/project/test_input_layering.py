"""vcg_otel's modules import downwards only: no import circle, no private name borrowed.

A circle of imports (``documents`` -> ``extract`` -> ``markers`` -> ``documents``) works or breaks
depending on which module a user imports first, and it means no module of the circle can be
read, tested or moved without the others. A private helper imported by another module
(``from .extract import _get``) is a public API in all but name: whoever edits its owner
cannot see that another module leans on it. Both are checked here by reading the source
(no module is run): every import counts, at module level and inside functions alike (a
function-level import is still a dependency, only a later one), except those under
``if TYPE_CHECKING:``, which never run.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from support.paths import ROOT

PACKAGE = "vcg_otel"


def _module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def _files() -> dict[str, Path]:
    return {_module_name(path): path for path in sorted((ROOT / PACKAGE).rglob("*.py"))}


FILES = _files()


def _is_package(module: str) -> bool:
    return FILES[module].name == "__init__.py"


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST, *,
             type_checking: bool = False) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement of ``tree``; those under ``if TYPE_CHECKING:`` only when
    ``type_checking`` (a lazy package face declares its re-exports there)."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            if type_checking:
                yield from _imports(node, type_checking=True)
            for child in node.orelse:
                yield from _imports(ast.Module(body=[child], type_ignores=[]),
                                    type_checking=type_checking)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        yield from _imports(node, type_checking=type_checking)


def _source(module: str, node: ast.ImportFrom) -> str:
    """The absolute name of the module a ``from ... import`` reads from."""
    if not node.level:
        return node.module or ""
    base = module.split(".")
    base = base if _is_package(module) else base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _trees() -> dict[str, ast.Module]:
    return {module: ast.parse(path.read_text(), str(path)) for module, path in FILES.items()}


TREES = _trees()


def _homes(package: str) -> dict[str, str]:
    """Where each name a package's ``__init__`` hands on really lives (eager or lazy)."""
    homes = {}
    for node in _imports(TREES[package], type_checking=True):
        if isinstance(node, ast.ImportFrom):
            source = _source(package, node)
            for alias in node.names:
                homes[alias.asname or alias.name] = source
    return homes


def _edges() -> dict[str, set[str]]:
    """module -> the vcg_otel modules it imports (a name handed on by a package's face
    counts as an import of the module that defines it: the face's laziness hides, but does
    not remove, that dependency)."""
    edges: dict[str, set[str]] = {module: set() for module in FILES}
    for module, tree in TREES.items():
        for node in _imports(tree):
            if isinstance(node, ast.Import):
                edges[module] |= {a.name for a in node.names if a.name in FILES}
                continue
            source = _source(module, node)
            if source not in FILES:
                continue
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                if submodule in FILES:
                    edges[module].add(submodule)
                    continue
                edges[module].add(source)
                if _is_package(source):
                    home = _homes(source).get(alias.name)
                    if home in FILES and home != module:
                        edges[module].add(home)
        edges[module].discard(module)
    return edges


def _circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                circles.append(sorted(group))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return sorted(circles)


def _ties(edges: dict[str, set[str]], circle: list[str]) -> list[str]:
    members = set(circle)
    return [f"{a} -> {b}" for a in circle for b in sorted(edges[a] & members)]


def test_no_module_of_vcg_otel_is_in_an_import_circle() -> None:
    edges = _edges()
    report = [f"circle of {len(c)}: {', '.join(c)}\n    " + "\n    ".join(_ties(edges, c))
              for c in _circles(edges)]
    assert report == [], "\n".join(report)


def test_no_private_name_is_imported_from_another_module() -> None:
    borrowed = []
    for module, tree in TREES.items():
        for node in _imports(tree):
            if not isinstance(node, ast.ImportFrom):
                continue
            source = _source(module, node)
            if source != PACKAGE and not source.startswith(PACKAGE + "."):
                continue
            borrowed += [f"{module}: from {source} import {alias.name}" for alias in node.names
                         if alias.name.startswith("_") and not alias.name.startswith("__")
                         and f"{source}.{alias.name}" not in FILES]
    assert borrowed == [], "\n".join(borrowed)


def test_the_checks_see_the_imports_they_are_about() -> None:
    # The walk must see function-level imports and skip TYPE_CHECKING ones, or the two tests
    # above would pass for want of reading anything.
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from .hidden import A\n"
        "def f():\n    from .late import B\n"
    )
    seen = [n.module for n in _imports(tree) if isinstance(n, ast.ImportFrom)]
    assert seen == ["typing", "late"]
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert "vcg_otel.gate.search" in _edges()["vcg_otel.gate.api"]
