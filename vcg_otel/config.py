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

import logging
import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any, TypedDict, TypeVar

from .audit.cache import VerdictCache
from .gate.search import DEFAULT_MAX_GAP
from .judge.runner import WindowConfig
from .otel import semconv
from .otel.content import ContentPolicy

if TYPE_CHECKING:
    from opentelemetry._logs import LoggerProvider
    from opentelemetry.metrics import MeterProvider
    from opentelemetry.trace import TracerProvider
    from typing_extensions import Self

__all__ = ["AuditConfig", "AuditSettings", "Settings", "TelemetryConfig", "TelemetrySettings",
           "env_vars", "split_settings"]

logger = logging.getLogger(__name__)

T = TypeVar("T")

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})
_NONE = frozenset({"none", "unlimited", "off"})


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


def _bool(raw: str) -> bool:
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ValueError(f"not a boolean: {raw!r}")


def _number(kind: Callable[[str], T], optional: bool) -> Callable[[str], T | None]:
    def parse(raw: str) -> T | None:
        value = raw.strip()
        if optional and value.lower() in _NONE:
            return None
        return kind(value)

    return parse


def _setting(env: str | None, default: Any, parse: Callable[[str], Any] | None = None) -> Any:
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


def _check_rate(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must be a number between 0 and 1, not {value!r}")


def _check_count(name: str, value: Any, minimum: int, optional: bool) -> None:
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        allowed = f"an int >= {minimum}" + (" or None" if optional else "")
        raise ValueError(f"{name} must be {allowed}, not {value!r}")


def _check_flag(name: str, value: Any) -> None:
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be True or False, not {value!r}")


class _Config:
    """What both configs share: resolution, validation and the environment-variable table."""

    __slots__ = ()

    def _settle(self, checks: Mapping[str, Callable[[Any], None]]) -> frozenset[str]:
        """Resolve UNSET fields, then validate: a bad argument raises; a bad value from the
        environment is logged and replaced by the default (see the module docstring)."""
        own = fields(self)  # type: ignore[arg-type]
        given = frozenset(f.name for f in own if getattr(self, f.name) is not UNSET)
        _resolve(self)
        for f in own:
            check = checks.get(f.name)
            if check is None:
                continue
            try:
                check(getattr(self, f.name))
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


@dataclass(frozen=True, slots=True)
class AuditConfig(_Config):
    """How citations are audited. Every field may come from its environment variable.

    Attributes:
        timeout: seconds one judge call may take, waiting for a free slot included, before it
            fails closed (``VCG_OTEL_JUDGE_TIMEOUT``; default 30; ``none``: no limit).
        max_concurrency: judge calls in flight at once per auditor
            (``VCG_OTEL_JUDGE_MAX_CONCURRENCY``; default 8).
        max_judge_calls: judge calls per audit; the rest are ``unjudged``
            (``VCG_OTEL_MAX_JUDGE_CALLS``; default none: unlimited).
        max_tokens: judge tokens per audit (``VCG_OTEL_MAX_JUDGE_TOKENS``; default unlimited).
        judge_sample_rate: fraction of found quotes sent to the judge, decided by a hash of
            claim and passage (``VCG_OTEL_JUDGE_SAMPLE_RATE``; default 1).
        cache: remember verdicts of (claim, passage, model) within the auditor: ``True`` for
            a private :class:`~vcg_otel.audit.VerdictCache`, a cache object to share one,
            ``False`` (or ``None``) for none (``VCG_OTEL_JUDGE_CACHE``; default true); always
            ``True``, ``False`` or a cache once built.
        window: how much source the judge sees (:class:`~vcg_otel.judge.runner.WindowConfig`;
            no variable; ``None``: the default window, never ``None`` once built).
        max_gap: the gate's bound, in characters, for an elided quote's gaps
            (``VCG_OTEL_MAX_GAP``).
        misattributed_is_consistent: count a misattributed quote as consistent in reports
            and enforce mode (``VCG_OTEL_MISATTRIBUTED_IS_CONSISTENT``; default false).
        max_citations: citations audited per call at most; the rest are counted as skipped
            (``VCG_OTEL_MAX_CITATIONS``; default 10,000).
    """

    timeout: float | None = _setting(semconv.ENV_JUDGE_TIMEOUT, 30.0, _number(float, True))
    max_concurrency: int = _setting(semconv.ENV_JUDGE_MAX_CONCURRENCY, 8, _number(int, False))
    max_judge_calls: int | None = _setting(semconv.ENV_MAX_JUDGE_CALLS, None, _number(int, True))
    max_tokens: int | None = _setting(semconv.ENV_MAX_JUDGE_TOKENS, None, _number(int, True))
    judge_sample_rate: float = _setting(semconv.ENV_JUDGE_SAMPLE_RATE, 1.0, _number(float, False))
    cache: VerdictCache | bool | None = _setting(semconv.ENV_JUDGE_CACHE, True, _bool)
    window: WindowConfig | None = _setting(None, WindowConfig())
    max_gap: int = _setting(semconv.ENV_MAX_GAP, DEFAULT_MAX_GAP, _number(int, False))
    misattributed_is_consistent: bool = _setting(semconv.ENV_MISATTRIBUTED_IS_CONSISTENT, False,
                                                 _bool)
    max_citations: int = _setting(semconv.ENV_MAX_CITATIONS, 10_000, _number(int, False))

    def __post_init__(self) -> None:
        # None meant "none" / "the default" for these before they were config fields
        if self.cache is None:
            object.__setattr__(self, "cache", False)
        if self.window is None:
            object.__setattr__(self, "window", UNSET)
        self._settle({
            "timeout": _check_timeout,
            "max_concurrency": lambda v: _check_count("max_concurrency", v, 1, False),
            "max_judge_calls": lambda v: _check_count("max_judge_calls", v, 0, True),
            "max_tokens": lambda v: _check_count("max_tokens", v, 0, True),
            "judge_sample_rate": lambda v: _check_rate("judge_sample_rate", v),
            "cache": _check_cache,
            "window": _check_window,
            "max_gap": lambda v: _check_count("max_gap", v, 0, False),
            "misattributed_is_consistent":
                lambda v: _check_flag("misattributed_is_consistent", v),
            "max_citations": lambda v: _check_count("max_citations", v, 1, False),
        })


def _check_timeout(value: Any) -> None:
    if value is None:
        return
    if (isinstance(value, bool) or not isinstance(value, (int, float))
            or not value > 0 or not math.isfinite(value)):
        raise ValueError(f"timeout must be a positive number of seconds or None, not {value!r}")


def _check_capture(value: Any) -> None:
    if value is not None:
        _check_flag("capture_content", value)


def _check_cache(value: Any) -> None:
    if not isinstance(value, (bool, VerdictCache)):
        raise ValueError(f"cache must be True, False or a VerdictCache, not {value!r}")


def _check_window(value: Any) -> None:
    if not isinstance(value, WindowConfig):
        raise ValueError(f"window must be a WindowConfig, not {value!r}")


@dataclass(frozen=True, slots=True)
class TelemetryConfig(_Config):
    """How an audit becomes telemetry. Every field but the providers may come from its
    environment variable.

    Attributes:
        capture_content: write claims, quotes, prompts, answers and reasoning
            (``VCG_OTEL_CAPTURE_CONTENT``). Left unset, OpenInference's
            ``OPENINFERENCE_HIDE_INPUTS`` / ``OPENINFERENCE_HIDE_OUTPUTS`` decide each half;
            hidden text is replaced by its length. See :attr:`content`.
        sample_rate: fraction of calls audited at all, decided at random per call, in
            observe mode (``VCG_OTEL_SAMPLE_RATE``; default 1). Not the judge's sample rate.
        check_spans: one ``citation.check`` span per citation (default), or one event per
            citation on the ``citation_audit`` span (``VCG_OTEL_CHECK_SPANS``).
        span_events: also write the events as span events, for backends that read spans only
            such as Phoenix (``VCG_OTEL_SPAN_EVENTS``; default true).
        tracer_provider, meter_provider, logger_provider: where spans, metrics and events go
            (default: the global providers).
    """

    capture_content: bool | None = _setting(semconv.ENV_CAPTURE_CONTENT, None, _bool)
    sample_rate: float = _setting(semconv.ENV_SAMPLE_RATE, 1.0, _number(float, False))
    check_spans: bool = _setting(semconv.ENV_CHECK_SPANS, True, _bool)
    span_events: bool = _setting(semconv.ENV_SPAN_EVENTS, True, _bool)
    tracer_provider: TracerProvider | None = _setting(None, None)
    meter_provider: MeterProvider | None = _setting(None, None)
    logger_provider: LoggerProvider | None = _setting(None, None)
    content: ContentPolicy = field(init=False, repr=False, compare=False,
                                   default=ContentPolicy())

    def __post_init__(self) -> None:
        given = self._settle({
            "capture_content": _check_capture,
            "sample_rate": lambda v: _check_rate("sample_rate", v),
            "check_spans": lambda v: _check_flag("check_spans", v),
            "span_events": lambda v: _check_flag("span_events", v),
        })
        # An argument decides both halves; from the environment, VCG_OTEL_CAPTURE_CONTENT=true
        # still lets OpenInference's hide variables hide theirs, as it always did.
        explicit = self.capture_content if "capture_content" in given else None
        object.__setattr__(self, "content", ContentPolicy.resolve(explicit))


class AuditSettings(TypedDict, total=False):
    """:class:`AuditConfig`'s fields as keyword arguments (``Auditor(timeout=5)``)."""

    timeout: float | None
    max_concurrency: int
    max_judge_calls: int | None
    max_tokens: int | None
    judge_sample_rate: float
    cache: VerdictCache | bool | None
    window: WindowConfig | None
    max_gap: int
    misattributed_is_consistent: bool
    max_citations: int


class TelemetrySettings(TypedDict, total=False):
    """:class:`TelemetryConfig`'s fields as keyword arguments."""

    capture_content: bool | None
    sample_rate: float
    check_spans: bool
    span_events: bool
    tracer_provider: TracerProvider | None
    meter_provider: MeterProvider | None
    logger_provider: LoggerProvider | None


class Settings(AuditSettings, TelemetrySettings, total=False):
    """Both as keyword arguments (``@audited_citations(timeout=5, capture_content=False)``)."""


def _init_fields(kind: type) -> frozenset[str]:
    return frozenset(f.name for f in fields(kind) if f.init)


AUDIT_FIELDS = _init_fields(AuditConfig)
TELEMETRY_FIELDS = _init_fields(TelemetryConfig)


def split_settings(settings: Mapping[str, Any], *, config: AuditConfig | None = None,
                   telemetry: TelemetryConfig | None = None,
                   where: str = "this call",
                   audit_only: bool = False) -> tuple[AuditConfig, TelemetryConfig | None]:
    """The two configs from keyword ``settings`` and/or whole config objects.

    A setting given both as a keyword and in the object passed for its config is a conflict,
    and so is an unknown keyword: both raise :class:`TypeError` naming them, at the point the
    user configured (decoration, construction), never later.
    """
    known = AUDIT_FIELDS if audit_only else AUDIT_FIELDS | TELEMETRY_FIELDS
    unknown = sorted(set(settings) - known)
    if unknown:
        raise TypeError(f"{where} got unknown setting(s): {', '.join(unknown)}")
    audit = {k: v for k, v in settings.items() if k in AUDIT_FIELDS}
    tele = {k: v for k, v in settings.items() if k in TELEMETRY_FIELDS}
    for name, obj, given in (("config", config, audit), ("telemetry", telemetry, tele)):
        if obj is not None and given:
            raise TypeError(f"{where}: {', '.join(sorted(given))} given both as keyword(s) and "
                            f"through {name}=; set them in one place")
    return (config if config is not None else AuditConfig(**audit),
            None if audit_only else
            telemetry if telemetry is not None else TelemetryConfig(**tele))


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

