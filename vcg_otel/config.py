"""The two settings objects every front end takes: how to audit, and how to record it.

:class:`AuditConfig` holds the audit's settings (the judge's budget, sampling and window, the
gate's bounds); :class:`TelemetryConfig` how an audit becomes telemetry (content capture, call
sampling, span shapes, providers). The decorator, the instrumentor, the CLI, :class:`Auditor`
and the framework integrations all accept them, so a setting means the same thing everywhere
and is validated once.

Each field names its environment variable (OpenInference's ``TraceConfig`` is the model). A
value is taken, in this order, from the argument, from the variable, from the default. The
variables are read when the object is built, so one object is one consistent snapshot. A
malformed variable is logged as a warning and its default used: a typo in a deployment must not
stop the app from starting. A malformed *argument* raises :class:`ValueError`, naming it.

The two sample rates are different things and live in different objects:
``TelemetryConfig.sample_rate`` decides at random, per call, whether a call is audited at all
(like trace sampling); ``AuditConfig.judge_sample_rate`` decides per claim and passage (a hash:
the same citation always gets the same decision) which found quotes go to the judge.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from typing import Any

from ._settings import from_settings
from .audit.config import AUDIT_FIELDS, AuditConfig, AuditSettings
from .otel.config import TELEMETRY_FIELDS, TelemetryConfig, TelemetrySettings

__all__ = ["AUDIT_FIELDS", "TELEMETRY_FIELDS", "AuditConfig", "AuditSettings", "Settings",
           "TelemetryConfig", "TelemetrySettings", "env_vars", "split_settings"]


class Settings(AuditSettings, TelemetrySettings, total=False):
    """Both as keyword arguments (``@audited_citations(timeout=5, capture_content=False)``)."""


def split_settings(settings: Mapping[str, Any], *, config: AuditConfig | None = None,
                   telemetry: TelemetryConfig | None = None,
                   where: str = "this call") -> tuple[AuditConfig, TelemetryConfig]:
    """The two configs from keyword ``settings`` and/or whole config objects.

    A setting given both as a keyword and in the object passed for its config is a conflict,
    and so is an unknown keyword: both raise :class:`TypeError` naming them, at the point the
    user configured (decoration, construction), never later.
    """
    unknown = sorted(set(settings) - AUDIT_FIELDS - TELEMETRY_FIELDS)
    if unknown:
        raise TypeError(f"{where} got unknown setting(s): {', '.join(unknown)}")
    audit = {k: v for k, v in settings.items() if k in AUDIT_FIELDS}
    tele = {k: v for k, v in settings.items() if k in TELEMETRY_FIELDS}
    return (from_settings(AuditConfig, audit, config, name="config", where=where),
            from_settings(TelemetryConfig, tele, telemetry, name="telemetry", where=where))


def env_vars() -> dict[str, str]:
    """Every environment variable the configs read, to the field it sets (for docs and
    ``vcg-otel --help``)."""
    table: dict[str, str] = {}
    for kind in (AuditConfig, TelemetryConfig):
        for f in fields(kind):
            env = f.metadata.get("env")
            if env:
                table[env] = f"{kind.__name__}.{f.name}"
    return table

