"""Frozen, slotted dataclasses built on hot paths at the cost of plain slot stores.

A frozen dataclass's generated ``__init__`` sets each field through ``object.__setattr__``
(its own ``__setattr__`` refuses), about 0.25 µs a field. The few objects made once per
citation of every audited call -- a gate's answer (:class:`~vcg_otel.gate.result.GateMatch`),
an audit result (:class:`~vcg_otel.audit.models.AuditResult`) -- spent more in that
``__init__`` than in anything else around them.

A builder stores the fields into an instance of a *store class*: a subclass that adds no
slot and gives back ``object``'s own ``__setattr__`` and ``__delattr__``. Its attribute
stores are then the interpreter's plain slot stores (a class with a ``__setattr__`` or
``__delattr__`` of its own, as a frozen dataclass has, makes every store a Python call). The
instance then takes the dataclass as its class: the two have one memory layout, so Python
allows it, and what comes out is the very object the constructor makes (same class, same
field values, still frozen), at about a third of the cost of setting each slot through its
descriptor. Should an interpreter refuse the class change, the builder sets each slot through
its descriptor instead (checked once, when the builder is made).

Only for classes without ``__post_init__`` (nothing would run it): :func:`slot_builder`
refuses the others, unless its caller vouches that the values it passes need none.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["slot_builder"]

T = TypeVar("T")


def slot_builder(cls: type[T], *, post_init_unneeded: bool = False,
                 defaults: bool = False) -> Callable[..., T]:
    """A function taking every field of the frozen, slotted dataclass ``cls`` positionally,
    in field order, and returning the instance ``cls(*values)`` would make. Its parameters
    are the field names.

    ``defaults``: the fields' plain defaults after the last field without one are the
    builder's defaults too, so that calls with keywords, or leaving those fields out, make
    what the constructor makes (a builder standing for the constructor in a public API, such
    as :func:`vcg_otel.audit.models.audit_result`). Without it every field must be given.

    ``post_init_unneeded``: build a class that has a ``__post_init__`` too, which the builder
    never runs; its caller passes only values that ``__post_init__`` would accept and leave
    unchanged (see :func:`vcg_otel.citation.plain_citation`)."""
    if not dataclasses.is_dataclass(cls) or "__slots__" not in cls.__dict__:
        raise TypeError(f"{cls.__name__} is not a slotted dataclass")
    if hasattr(cls, "__post_init__") and not post_init_unneeded:
        raise TypeError(f"{cls.__name__} has a __post_init__, which the builder would skip")
    names = [f.name for f in dataclasses.fields(cls)]
    build = _by_store_class(cls, names)
    if not _builds(build, cls, names):
        build = _by_descriptors(cls, names)
    if defaults:
        build.__defaults__ = _trailing_defaults(cls)
    build.__qualname__ = build.__name__ = f"build_{cls.__name__}"
    build.__doc__ = f"``{cls.__name__}(...)``, every field given, in field order."
    return build


def _trailing_defaults(cls: type) -> tuple[Any, ...]:
    """The plain defaults of ``cls``'s last fields, up to the last field without one (a
    required field, or one with a ``default_factory``, which a function's defaults cannot
    stand for): the builder's ``__defaults__``."""
    tail: list[Any] = []
    for f in reversed(dataclasses.fields(cls)):
        if f.default is dataclasses.MISSING:
            break
        tail.append(f.default)
    return tuple(reversed(tail))


def _generated(names: list[str], body: str, namespace: dict[str, Any]) -> Callable[..., Any]:
    """``build(<names>)`` made of ``body``: generated, as dataclasses generate ``__init__``,
    one statement per field and no loop (a loop costs about what the stores themselves
    cost). The source is made of the class's field names only."""
    source = f"def build({', '.join(names)}):\n    made = new(store)\n{body}    return made\n"
    exec(source, namespace)
    build: Callable[..., Any] = namespace["build"]
    return build


def _by_store_class(cls: type, names: list[str]) -> Callable[..., Any]:
    """The builder through a store class (see the module's docstring)."""
    store = type(f"_{cls.__name__}Store", (cls,), {
        "__slots__": (), "__setattr__": object.__setattr__,
        "__delattr__": object.__delattr__, "__module__": cls.__module__})
    body = "".join(f"    made.{n} = {n}\n" for n in names) + "    made.__class__ = cls\n"
    return _generated(names, body, {"new": object.__new__, "store": store, "cls": cls})


def _by_descriptors(cls: type, names: list[str]) -> Callable[..., Any]:
    """The builder through each slot descriptor's own setter (direct C calls)."""
    namespace: dict[str, Any] = {"new": object.__new__, "store": cls}
    namespace.update((f"set_{n}", _slot(cls, n).__set__) for n in names)
    return _generated(names, "".join(f"    set_{n}(made, {n})\n" for n in names), namespace)


def _builds(build: Callable[..., Any], cls: type, names: list[str]) -> bool:
    """Whether ``build`` makes an instance of exactly ``cls`` holding the values given."""
    values = [object() for _ in names]
    try:
        made = build(*values)
    except TypeError:  # the class change refused
        return False
    return type(made) is cls and all(
        getattr(made, n) is v for n, v in zip(names, values, strict=True))


def _slot(cls: type, name: str) -> Any:
    """The slot descriptor of field ``name``: the class's own, or a base dataclass's."""
    for klass in cls.__mro__:
        if name in klass.__dict__:
            return klass.__dict__[name]
    raise TypeError(f"{cls.__name__}.{name} has no slot")  # pragma: no cover - slotted
