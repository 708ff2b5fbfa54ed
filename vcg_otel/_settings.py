"""The machinery behind :mod:`vcg_otel.config`: fields that come from the argument, else their
environment variable, else their default, and the checks they share.

A field's default is :data:`UNSET` ("not given"), so that after construction the config can
tell an argument (validated strictly: a bad one raises) from a value it filled in itself (a bad
variable is logged and replaced by the default: a typo in a deployment must not stop the app
from starting). The variables are read once, when the config is built.
"""

from __future__ import annotations

import logging
import numbers
import os
from collections.abc import Callable, Mapping
from dataclasses import field, fields, replace
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["UNSET", "Config", "check_count", "check_flag", "check_rate", "env_flag",
           "from_settings", "init_fields", "parse_bool", "parse_number", "setting"]

logger = logging.getLogger("vcg_otel.config")

T = TypeVar("T")

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})
_NONE = frozenset({"none", "unlimited"})


class _Unset:
    """The default of every field: "not given", so the environment may fill it in."""

    _instance: _Unset | None = None

    def __new__(cls) -> _Unset:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNSET"


UNSET: Any = _Unset()


def parse_bool(raw: str) -> bool:
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ValueError(f"not a boolean: {raw!r}")


def env_flag(name: str) -> bool | None:
    """The boolean variable ``name``; ``None`` when it is unset or not a boolean."""
    try:
        return parse_bool(os.environ.get(name, ""))
    except ValueError:
        return None


def parse_number(kind: Callable[[str], T], optional: bool) -> Callable[[str], T | None]:
    def parse(raw: str) -> T | None:
        value = raw.strip()
        if optional and value.lower() in _NONE:
            return None
        return kind(value)

    return parse


def setting(env: str | None, default: Any, parse: Callable[[str], Any] | None = None) -> Any:
    """A field that is UNSET until resolved: argument, else ``env``, else ``default``."""
    return field(default=UNSET, metadata={"env": env, "default": default, "parse": parse})


def _resolve(config: Any) -> None:
    """Fill every UNSET field of a (frozen) config from its variable or its default."""
    for f in fields(config):
        if getattr(config, f.name) is not UNSET:
            continue
        value = f.metadata["default"]
        env, parse = f.metadata["env"], f.metadata["parse"]
        raw = os.environ.get(env) if env else None
        if raw is not None and raw.strip() and parse is not None:
            try:
                value = parse(raw)
            except (ValueError, TypeError):
                logger.warning("vcg_otel: %s=%r is not valid for %s; using %r", env, raw,
                               f.name, value)
        object.__setattr__(config, f.name, value)


def check_rate(name: str, value: Any) -> float:
    """A fraction: any real number from 0 to 1 (a numpy float too), as a float."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not (
            0.0 <= float(value) <= 1.0):
        raise ValueError(f"{name} must be a number between 0 and 1, not {value!r}")
    return float(value)


def check_count(name: str, value: Any, minimum: int, optional: bool) -> int | None:
    """A whole number >= ``minimum`` (a numpy int too), as an int; or ``None`` if allowed."""
    if value is None and optional:
        return None
    if (isinstance(value, bool) or not isinstance(value, numbers.Integral)
            or int(value) < minimum):
        allowed = f"an int >= {minimum}" + (" or None" if optional else "")
        raise ValueError(f"{name} must be {allowed}, not {value!r}")
    return int(value)


def check_flag(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be True or False, not {value!r}")
    return value


class Config:
    """What both configs share: resolution, validation and the environment-variable table."""

    __slots__ = ()

    def _settle(self, checks: Mapping[str, Callable[[Any], Any]]) -> frozenset[str]:
        """Resolve UNSET fields, then validate and normalize each (a check returns the value
        to keep, e.g. ``int`` of a numpy int): a bad argument raises; a bad value from the
        environment is logged and replaced by the default (see the module docstring).
        Returns the names given as arguments."""
        own = fields(self)  # type: ignore[arg-type]
        given = frozenset(f.name for f in own if getattr(self, f.name) is not UNSET)
        _resolve(self)
        for f in own:
            check = checks.get(f.name)
            if check is None:
                continue
            try:
                object.__setattr__(self, f.name, check(getattr(self, f.name)))
            except ValueError:
                if f.name in given:
                    raise
                logger.warning("vcg_otel: %s=%r is out of range for %s; using %r",
                               f.metadata["env"], os.environ.get(f.metadata["env"] or ""),
                               f.name, f.metadata["default"])
                object.__setattr__(self, f.name, f.metadata["default"])
        return given

    def with_changes(self, **changes: Any) -> Self:
        """A copy with ``changes`` applied (validated like the constructor's arguments)."""
        return replace(self, **changes)  # type: ignore[type-var]




C = TypeVar("C", bound=Config)


def init_fields(kind: type[Config]) -> frozenset[str]:
    """The names a config takes as arguments."""
    return frozenset(f.name for f in fields(kind) if f.init)  # type: ignore[arg-type]


def from_settings(kind: type[C], settings: Mapping[str, Any], given: C | None, *,
                  name: str, where: str) -> C:
    """``kind(**settings)``, or the object ``given`` (passed as ``name=``).

    Raises :class:`TypeError` naming them for a setting ``kind`` does not have, and for
    settings given together with an object (which would silently win): at the point the user
    configured, never later.
    """
    unknown = sorted(set(settings) - init_fields(kind))
    if unknown:
        raise TypeError(f"{where} got unknown setting(s): {', '.join(unknown)}")
    if given is None:
        return kind(**settings)
    if settings:
        raise TypeError(f"{where}: {', '.join(sorted(settings))} given both as keyword(s) and "
                        f"through {name}=; set them in one place")
    return given
