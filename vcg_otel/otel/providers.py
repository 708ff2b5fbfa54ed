"""Whether anything would record an audit: a tracer, meter or logger provider configured.

The decorator asks this on every call in observe mode, and with no SDK configured the answer
is the whole of its cost (the issue's budget is 3 µs). The API's public getters
(``trace.get_tracer_provider()`` and its two twins) each test ``os.environ`` for their
``OTEL_PYTHON_*_PROVIDER`` variable while no provider is set, ~0.8 µs apiece, most of the
no-SDK path. So the common answer, "nothing is set", is read from the API's own provider
globals, and the three variables are looked up at most once per :data:`ENV_REFRESH_S`.
Whenever anything is set, or the API no longer has those globals (a future release), the
answer comes from the public getters exactly as before, so a provider is never missed:
one set in code is seen on the next call, one named by a variable within a second.
Recording an audit asks the same of the Logs API alone (:func:`logs_configured`, whether to
build events as log records), answered the same way.
"""

from __future__ import annotations

import importlib
import math
import os
import time
from collections.abc import Mapping
from typing import Any

from opentelemetry import _logs, metrics, trace
from opentelemetry._logs import LoggerProvider
from opentelemetry.metrics import MeterProvider
from opentelemetry.trace import TracerProvider

__all__ = ["ENV_REFRESH_S", "any_configured", "logs_configured"]

ENV_REFRESH_S = 1.0
"""How stale the ``OTEL_PYTHON_*_PROVIDER`` lookup may be, in seconds."""

_ENV_VARS = ("OTEL_PYTHON_TRACER_PROVIDER", "OTEL_PYTHON_METER_PROVIDER",
             "OTEL_PYTHON_LOGGER_PROVIDER")
_NO_METRICS = ("_ProxyMeterProvider", "NoOpMeterProvider")
_NO_LOGS = ("NoOpLoggerProvider", "ProxyLoggerProvider")


def _global_slot(module_name: str, name: str) -> tuple[Mapping[str, Any], str] | None:
    """Where the API module keeps its provider global ``name``: the module's namespace and
    the name; ``None`` when that module or name is gone (then callers use the getters)."""
    try:
        namespace: Mapping[str, Any] = vars(importlib.import_module(module_name))
    except ImportError:
        return None
    return (namespace, name) if name in namespace else None


_SLOTS = (
    _global_slot("opentelemetry.trace", "_TRACER_PROVIDER"),
    _global_slot("opentelemetry.metrics._internal", "_METER_PROVIDER"),
    _global_slot("opentelemetry._logs._internal", "_LOGGER_PROVIDER"),
)
#: The three slots, or ``None`` when any is gone: then :func:`any_configured` always asks the
#: public getters.
_GLOBALS: tuple[tuple[Mapping[str, Any], str], ...] | None = (
    None if None in _SLOTS else tuple(s for s in _SLOTS if s is not None))
#: The Logs API's slot alone (:func:`logs_configured`), ``None`` with :data:`_GLOBALS`.
_LOGS_GLOBALS: tuple[tuple[Mapping[str, Any], str], ...] | None = (
    None if _GLOBALS is None else (_GLOBALS[2],))

# (when the variables were last looked up, whether any of them was set): one tuple, replaced
# whole, so a thread never reads one half of another thread's update.
_env_seen: tuple[float, bool] = (-math.inf, False)


def _env_names_a_provider() -> bool:
    global _env_seen
    checked_at, named = _env_seen
    now = time.monotonic()
    if now - checked_at >= ENV_REFRESH_S:
        environ = os.environ
        named = any(var in environ for var in _ENV_VARS)
        _env_seen = (now, named)
    return named


def _nothing_set(slots: tuple[tuple[Mapping[str, Any], str], ...] | None) -> bool:
    """True only when certainly no global provider is set in ``slots`` (:data:`_GLOBALS`, or
    :data:`_LOGS_GLOBALS` for the Logs API alone: every audit recorded asks it) nor named by
    a variable."""
    if slots is None:
        return False
    for namespace, name in slots:
        if namespace.get(name) is not None:
            return False
    return not _env_names_a_provider()


def logs_configured(logger_provider: LoggerProvider | None = None) -> bool:
    """Whether ``logger_provider`` (the global one when ``None``) would record anything: not
    the API's no-op or not-yet-set proxy provider."""
    if logger_provider is None:
        if _nothing_set(_LOGS_GLOBALS):
            return False
        logger_provider = _logs.get_logger_provider()
    return type(logger_provider).__name__ not in _NO_LOGS


def any_configured(tracer_provider: TracerProvider | None = None,
                   meter_provider: MeterProvider | None = None,
                   logger_provider: LoggerProvider | None = None) -> bool:
    """Whether traces, metrics or logs would be recorded: the given providers, the global
    ones for those left ``None``. A no-op or not-yet-set proxy provider records nothing."""
    if (tracer_provider is None and meter_provider is None and logger_provider is None
            and _nothing_set(_GLOBALS)):
        return False
    tp = tracer_provider if tracer_provider is not None else trace.get_tracer_provider()
    if not isinstance(tp, (trace.ProxyTracerProvider, trace.NoOpTracerProvider)):
        return True
    mp = meter_provider if meter_provider is not None else metrics.get_meter_provider()
    if type(mp).__name__ not in _NO_METRICS:
        return True
    return logs_configured(logger_provider)
