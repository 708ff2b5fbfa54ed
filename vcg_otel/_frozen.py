"""Frozen, slotted dataclasses built on hot paths at the cost of plain slot stores.

A frozen dataclass's generated ``__init__`` sets each field through ``object.__setattr__``
(its own ``__setattr__`` refuses), about 0.25 µs a field. The few objects made once per
citation of every audited call -- a gate's answer (:class:`~vcg_otel.gate.result.GateMatch`),
an audit result (:class:`~vcg_otel.audit.models.AuditResult`) -- spent more in that
``__init__`` than in anything else around them. The slot descriptors' own setters make the
same stores as direct C calls, and what comes out is the very object the constructor makes:
same class, same field values, still frozen.

Only for classes without ``__post_init__`` (nothing would run it): :func:`slot_builder`
refuses the others, unless its caller vouches that the values it passes need none.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["slot_builder"]

T = TypeVar("T")


def slot_builder(cls: type[T], *, post_init_unneeded: bool = False) -> Callable[..., T]:
    """A function taking every field of the frozen, slotted dataclass ``cls`` positionally,
    in field order, and returning the instance ``cls(*values)`` would make.

    ``post_init_unneeded``: build a class that has a ``__post_init__`` too, which the builder
    never runs; its caller passes only values that ``__post_init__`` would accept and leave
    unchanged (see :func:`vcg_otel.citation.plain_citation`)."""
    if not dataclasses.is_dataclass(cls) or "__slots__" not in cls.__dict__:
        raise TypeError(f"{cls.__name__} is not a slotted dataclass")
    if hasattr(cls, "__post_init__") and not post_init_unneeded:
        raise TypeError(f"{cls.__name__} has a __post_init__, which the builder would skip")
    names = [f.name for f in dataclasses.fields(cls)]
    namespace: dict[str, Any] = {"new": object.__new__, "cls": cls}
    namespace.update((f"set_{n}", _slot(cls, n).__set__) for n in names)
    # Generated, as dataclasses generate __init__: one direct setter call per field, no loop
    # (a loop over the setters costs about what the stores themselves cost).
    body = "".join(f"    set_{n}(made, {n})\n" for n in names)
    source = f"def build({', '.join(names)}):\n    made = new(cls)\n{body}    return made\n"
    exec(source, namespace)  # the source is made of the class's field names only
    build: Callable[..., T] = namespace["build"]
    build.__qualname__ = build.__name__ = f"build_{cls.__name__}"
    build.__doc__ = f"``{cls.__name__}(...)``, every field given, in field order."
    return build


def _slot(cls: type, name: str) -> Any:
    """The slot descriptor of field ``name``: the class's own, or a base dataclass's."""
    for klass in cls.__mro__:
        if name in klass.__dict__:
            return klass.__dict__[name]
    raise TypeError(f"{cls.__name__}.{name} has no slot")  # pragma: no cover - slotted
