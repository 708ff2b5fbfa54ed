"""``TelemetryConfig``: how an audit becomes telemetry (content capture, call sampling, span
shapes, providers). Every field but the providers may come from its ``VCG_OTEL_*`` variable
(:mod:`vcg_otel.config`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypedDict

from .._settings import (
    Config,
    check_flag,
    check_rate,
    init_fields,
    parse_bool,
    parse_number,
    setting,
)
from . import semconv
from .content import ContentPolicy

if TYPE_CHECKING:
    from opentelemetry._logs import LoggerProvider
    from opentelemetry.metrics import MeterProvider
    from opentelemetry.trace import TracerProvider

__all__ = ["TELEMETRY_FIELDS", "TelemetryConfig", "TelemetrySettings"]


def _capture_flag(raw: str) -> bool | None:
    """``VCG_OTEL_CAPTURE_CONTENT``: ``false`` hides everything; ``true`` forces nothing (it
    leaves OpenInference's ``OPENINFERENCE_HIDE_INPUTS/OUTPUTS`` their say, as it always
    did), so it resolves to ``None``, which a copy of the config then keeps meaning."""
    return False if parse_bool(raw) is False else None


@dataclass(frozen=True, slots=True)
class TelemetryConfig(Config):
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

    capture_content: bool | None = setting(semconv.ENV_CAPTURE_CONTENT, None, _capture_flag)
    sample_rate: float = setting(semconv.ENV_SAMPLE_RATE, 1.0, parse_number(float, False))
    check_spans: bool = setting(semconv.ENV_CHECK_SPANS, True, parse_bool)
    span_events: bool = setting(semconv.ENV_SPAN_EVENTS, True, parse_bool)
    tracer_provider: TracerProvider | None = setting(None, None)
    meter_provider: MeterProvider | None = setting(None, None)
    logger_provider: LoggerProvider | None = setting(None, None)
    content: ContentPolicy = field(init=False, repr=False, default=ContentPolicy())

    def __post_init__(self) -> None:
        self._settle({
            "capture_content": _check_capture,
            "sample_rate": lambda v: check_rate("sample_rate", v),
            "check_spans": lambda v: check_flag("check_spans", v),
            "span_events": lambda v: check_flag("span_events", v),
        })
        object.__setattr__(self, "content", ContentPolicy.resolve(self.capture_content))

    def sampled_out(self) -> bool:
        """Whether to leave this call unaudited: ``sample_rate`` decides at random, per
        call (one rule for the decorator and every integration)."""
        return self.sample_rate < 1.0 and random.random() >= self.sample_rate


def _check_capture(value: Any) -> bool | None:
    return None if value is None else check_flag("capture_content", value)


class TelemetrySettings(TypedDict, total=False):
    """:class:`TelemetryConfig`'s fields as keyword arguments."""

    capture_content: bool | None
    sample_rate: float
    check_spans: bool
    span_events: bool
    tracer_provider: TracerProvider | None
    meter_provider: MeterProvider | None
    logger_provider: LoggerProvider | None




TELEMETRY_FIELDS = init_fields(TelemetryConfig)
