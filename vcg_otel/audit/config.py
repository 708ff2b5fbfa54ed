"""``AuditConfig``: how citations are audited (the judge's budget, sampling and window, the gate's
bounds). Every field may come from its ``VCG_OTEL_*`` variable (:mod:`vcg_otel.config`).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

from .._settings import (
    UNSET,
    Config,
    check_count,
    check_flag,
    check_rate,
    init_fields,
    parse_bool,
    parse_number,
    setting,
)
from ..gate.search import DEFAULT_MAX_GAP
from ..judge.runner import WindowConfig
from ..otel import semconv
from .cache import VerdictCache

__all__ = ["AUDIT_FIELDS", "DEFAULT_FOREGROUND_DEADLINE", "AuditConfig", "AuditSettings"]

#: Seconds of reading, gate and evidence work a foreground call's host waits for at most (a
#: few hundred ms: an ordinary answer needs a few ms; what needs more is cut, unverifiable).
DEFAULT_FOREGROUND_DEADLINE = 0.5

_INT, _INT_OR_NONE = parse_number(int, False), parse_number(int, True)
_FLOAT, _FLOAT_OR_NONE = parse_number(float, False), parse_number(float, True)


def _names(raw: str) -> tuple[str, ...]:
    return tuple(name.strip() for name in raw.split(",") if name.strip())


def _cache_flag(raw: str) -> bool:
    """``VCG_OTEL_JUDGE_CACHE``: a boolean, or ``none`` (no cache, as ``cache=None``)."""
    return False if raw.strip().lower() == "none" else parse_bool(raw)


@dataclass(frozen=True, slots=True)
class AuditConfig(Config):
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
        cache: remember verdicts within the auditor, keyed by everything the judge was shown
            (model, prompt version, claim, quote, source): ``True`` for
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
        foreground_deadline: seconds a decorated call's host may wait for the audit's own
            work in the foreground: reading the result and arguments, the gate and the
            evidence location, together (``VCG_OTEL_FOREGROUND_DEADLINE``; default 0.5;
            ``none``: no limit). What it cuts is ``unverifiable`` with reason ``deadline``.
            The judge's calls are not counted: ``timeout`` bounds each of them. Background
            audits and direct :meth:`~vcg_otel.audit.Auditor.audit` calls are not cut.
        position_base: how a cited number names a retrieved document: ``None`` accepts 0- and
            1-based positions, ``0`` or ``1`` only that one (``VCG_OTEL_POSITION_BASE``).
        id_keys: extra metadata keys that hold document identifiers, beyond the ones every
            framework uses (``VCG_OTEL_ID_KEYS``, comma-separated).
    """

    timeout: float | None = setting(semconv.ENV_JUDGE_TIMEOUT, 30.0, _FLOAT_OR_NONE)
    max_concurrency: int = setting(semconv.ENV_JUDGE_MAX_CONCURRENCY, 8, _INT)
    max_judge_calls: int | None = setting(semconv.ENV_MAX_JUDGE_CALLS, None, _INT_OR_NONE)
    max_tokens: int | None = setting(semconv.ENV_MAX_JUDGE_TOKENS, None, _INT_OR_NONE)
    judge_sample_rate: float = setting(semconv.ENV_JUDGE_SAMPLE_RATE, 1.0, _FLOAT)
    cache: VerdictCache | bool | None = setting(semconv.ENV_JUDGE_CACHE, True, _cache_flag)
    window: WindowConfig | None = setting(None, WindowConfig())
    max_gap: int = setting(semconv.ENV_MAX_GAP, DEFAULT_MAX_GAP, _INT)
    misattributed_is_consistent: bool = setting(semconv.ENV_MISATTRIBUTED_IS_CONSISTENT, False,
                                                 parse_bool)
    max_citations: int = setting(semconv.ENV_MAX_CITATIONS, 10_000, _INT)
    foreground_deadline: float | None = setting(semconv.ENV_FOREGROUND_DEADLINE,
                                                DEFAULT_FOREGROUND_DEADLINE, _FLOAT_OR_NONE)
    position_base: int | None = setting(semconv.ENV_POSITION_BASE, None, _INT_OR_NONE)
    id_keys: Sequence[str] = setting(semconv.ENV_ID_KEYS, (), _names)

    def __post_init__(self) -> None:
        # None meant "none" / "the default" for these before they were config fields
        if self.cache is None:
            object.__setattr__(self, "cache", False)
        if self.window is None:
            object.__setattr__(self, "window", UNSET)
        if isinstance(self.id_keys, (list, tuple)):  # any sequence of names, kept as a tuple
            object.__setattr__(self, "id_keys", tuple(self.id_keys))
        self._settle({
            "timeout": _check_timeout,
            "max_concurrency": lambda v: check_count("max_concurrency", v, 1, False),
            "max_judge_calls": lambda v: check_count("max_judge_calls", v, 0, True),
            "max_tokens": lambda v: check_count("max_tokens", v, 0, True),
            "judge_sample_rate": lambda v: check_rate("judge_sample_rate", v),
            "cache": _check_cache,
            "window": _check_window,
            "max_gap": lambda v: check_count("max_gap", v, 0, False),
            "misattributed_is_consistent":
                lambda v: check_flag("misattributed_is_consistent", v),
            "max_citations": lambda v: check_count("max_citations", v, 1, False),
            "foreground_deadline": lambda v: _check_seconds("foreground_deadline", v),
            "position_base": _check_position_base,
            "id_keys": _check_id_keys,
        })


def _check_timeout(value: Any) -> float | None:
    return _check_seconds("timeout", value)


def _check_seconds(name: str, value: Any) -> float | None:
    """Seconds > 0 (any real number); infinity means no limit, as ``None`` does."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not float(value) > 0:
        raise ValueError(f"{name} must be a positive number of seconds or None, not {value!r}")
    return None if math.isinf(float(value)) else float(value)


def _check_position_base(value: Any) -> int | None:
    if value is None:
        return None
    if (isinstance(value, bool) or not isinstance(value, numbers.Integral)
            or int(value) not in (0, 1)):
        raise ValueError(f"position_base must be None, 0 or 1, not {value!r}")
    return int(value)


def _check_id_keys(value: Any) -> tuple[str, ...]:
    if not isinstance(value, tuple) or not all(isinstance(k, str) and k for k in value):
        raise ValueError(f"id_keys must be a sequence of non-empty strings, not {value!r}")
    return value


def _check_cache(value: Any) -> VerdictCache | bool:
    if not isinstance(value, (bool, VerdictCache)):
        raise ValueError(f"cache must be True, False or a VerdictCache, not {value!r}")
    return value


def _check_window(value: Any) -> WindowConfig:
    if not isinstance(value, WindowConfig):
        raise ValueError(f"window must be a WindowConfig, not {value!r}")
    return value


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
    foreground_deadline: float | None
    position_base: int | None
    id_keys: Sequence[str]




AUDIT_FIELDS = init_fields(AuditConfig)
