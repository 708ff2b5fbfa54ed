"""Lazy re-exports for package ``__init__`` modules (PEP 562).

A package that re-exports names from its modules eagerly imports them all as soon as any one
of its modules is imported, and any two packages that use each other's models then import in
a cycle whose outcome depends on which module a user happens to import first. A lazy table
keeps each ``__init__`` free of imports: a name is loaded from its module on first use.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def lazy_exports(package: str, home: Mapping[str, str], namespace: dict[str, Any],
                 public: list[str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """Return the ``__getattr__`` and ``__dir__`` of ``package``.

    ``home`` maps each public name to the relative module (``"auditor"``, ``"models"``) that
    defines it; ``namespace`` is the package's ``globals()``, where a loaded name is kept so
    the next access costs nothing; ``public`` is its ``__all__``.
    """

    def __getattr__(name: str) -> Any:
        module = home.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(f".{module}", package), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(public))

    return __getattr__, __dir__
