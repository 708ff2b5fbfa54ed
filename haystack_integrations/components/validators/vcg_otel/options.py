"""The components' init parameters, checked where the user wrote them.

A pipeline is configured once and runs many times: a wrong value must fail when the component
is made (or loaded from YAML), naming the parameter, not on the first run or never. Every
value is also one that serializes with the pipeline and means the same wherever it is loaded.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Options"]

_PLAIN = (str, int, float, bool, type(None))
# The error to raise, its message prefixed with the component's name.
_Fail = Callable[[type[Exception], str], Exception]
# Objects, not values: they cannot be written into a pipeline file, and a string there would
# be taken for a provider. The component records to the global providers.
_PROVIDERS = ("tracer_provider", "meter_provider", "logger_provider")


@dataclass(frozen=True)
class Options:
    """The checked init parameters of a checker component (see its docstring)."""

    treat_misattributed_as_consistent: bool
    judge_model: str | None
    judge_api_base: str | None
    judge_timeout: float
    position_base: int | None
    id_keys: list[str]
    settings: dict[str, Any]

    @classmethod
    def check(cls, component: str, *, treat_misattributed_as_consistent: Any,
              judge_model: Any, judge_api_base: Any, judge_timeout: Any, position_base: Any,
              id_keys: Any, settings: Any) -> Options:
        """Each parameter checked, or a ``TypeError``/``ValueError`` naming ``component`` and
        the parameter."""
        def fail(kind: type[Exception], message: str) -> Exception:
            return kind(f"{component}: {message}")

        # None: what pipelines saved by vcg-otel 0.1 wrote for "not given"; it is False now,
        # whatever the environment says (a saved pipeline must behave the same everywhere).
        if treat_misattributed_as_consistent is None:
            treat_misattributed_as_consistent = False
        if not isinstance(treat_misattributed_as_consistent, bool):
            raise fail(TypeError, "treat_misattributed_as_consistent must be True or False, "
                                  f"not {treat_misattributed_as_consistent!r}")
        for name, value in (("judge_model", judge_model), ("judge_api_base", judge_api_base)):
            if value is not None and not (isinstance(value, str) and value.strip()):
                raise fail(TypeError, f"{name} must be a non-empty string or None, "
                                      f"not {value!r}")
        if isinstance(judge_timeout, bool) or not isinstance(judge_timeout, numbers.Real):
            raise fail(TypeError, "judge_timeout must be a number of seconds, "
                                  f"not {judge_timeout!r}")
        if not (0 < float(judge_timeout) < math.inf):
            raise fail(ValueError, "judge_timeout must be a positive, finite number of "
                                   f"seconds, not {judge_timeout!r}")
        if position_base is not None and (isinstance(position_base, bool)
                                          or position_base not in (0, 1)):
            raise fail(ValueError, f"position_base must be None, 0 or 1, not {position_base!r}")
        return cls(treat_misattributed_as_consistent, judge_model, judge_api_base,
                   float(judge_timeout), position_base, _id_keys(fail, id_keys),
                   _settings(fail, settings))


def _id_keys(fail: _Fail, value: Any) -> list[str]:
    # A string is a sequence too: "abc" would become the keys "a", "b" and "c".
    if value is None:
        return []
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise fail(TypeError, f"id_keys must be a list of meta keys, not {value!r}")
    if not all(isinstance(key, str) and key for key in value):
        raise fail(TypeError, f"id_keys must hold non-empty strings, not {list(value)!r}")
    return list(value)


def _settings(fail: _Fail, value: Any) -> dict[str, Any]:
    """Settings serialize with the pipeline, so they must be plain values; providers are
    objects; ``sample_rate`` cannot apply to a validator (its output is the audit)."""
    if value is None:
        return {}
    if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
        raise fail(TypeError, f"settings must be a dict of setting names to values, "
                              f"not {value!r}")
    if "sample_rate" in value:
        raise fail(TypeError, "a validator audits every run; sample_rate cannot apply")
    for key in _PROVIDERS:
        if key in value:
            raise fail(TypeError, f"settings[{key!r}]: a provider cannot be saved with the "
                                  "pipeline; the component records to the global providers "
                                  "(opentelemetry's set_tracer_provider and its kin)")
    for key, item in value.items():
        items = item if isinstance(item, (list, tuple)) else [item]
        if not all(isinstance(one, _PLAIN) for one in items):
            raise fail(TypeError, f"settings[{key!r}] must be a plain value (str, number, "
                                  "bool, None or a list of those) to serialize with the "
                                  f"pipeline, not {type(item).__name__}")
    return dict(value)
