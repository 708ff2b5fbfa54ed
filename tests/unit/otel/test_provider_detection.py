"""Observe mode skips the audit when nothing would record it, and never misses a provider.

The no-SDK answer is read from the OpenTelemetry API's provider globals with the
``OTEL_PYTHON_*_PROVIDER`` variables looked up at most once a second (the public getters cost
most of the 3 µs budget). These tests prove the shortcut sees everything the getters see. A
global provider can be set once per process, so each case runs in a fresh interpreter.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

from opentelemetry.sdk.trace import TracerProvider

from vcg_otel.otel import providers


def _run(body: str) -> list[str]:
    """Run ``body`` in a fresh interpreter with no provider variable set; its printed lines."""
    code = textwrap.dedent("""
        import os
        for var in ("OTEL_PYTHON_TRACER_PROVIDER", "OTEL_PYTHON_METER_PROVIDER",
                    "OTEL_PYTHON_LOGGER_PROVIDER"):
            os.environ.pop(var, None)
        from vcg_otel.otel import providers
    """) + textwrap.dedent(body)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


def test_the_pinned_api_keeps_the_provider_globals_the_shortcut_reads() -> None:
    # Without them every call falls back to the public getters: correct, but the no-SDK path
    # is slow again. This fails first when an API release renames them.
    assert providers._GLOBALS is not None
    assert len(providers._GLOBALS) == 3


def test_a_missing_global_or_module_means_the_public_getters_decide() -> None:
    assert providers._global_slot("opentelemetry.trace", "_NO_SUCH_GLOBAL") is None
    assert providers._global_slot("opentelemetry.no_such_module", "_TRACER_PROVIDER") is None


def test_explicit_providers_decide_whatever_the_globals_say() -> None:
    assert providers.any_configured(tracer_provider=TracerProvider()) is True
    lines = _run("""
        from opentelemetry.trace import NoOpTracerProvider
        from opentelemetry.sdk.trace import TracerProvider
        print(providers.any_configured(tracer_provider=NoOpTracerProvider()))
        print(providers.any_configured(tracer_provider=TracerProvider()))
    """)
    assert lines == ["False", "True"]


def test_a_tracer_provider_set_after_the_first_call_is_seen_on_the_next() -> None:
    lines = _run("""
        from opentelemetry import trace
        from opentelemetry.sdk.trace import TracerProvider
        print(providers.any_configured())
        trace.set_tracer_provider(TracerProvider())
        print(providers.any_configured())
    """)
    assert lines == ["False", "True"]


def test_a_meter_or_logger_provider_alone_is_seen() -> None:
    lines = _run("""
        from opentelemetry import metrics, _logs
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk._logs import LoggerProvider
        print(providers.any_configured())
        metrics.set_meter_provider(MeterProvider())
        print(providers.any_configured())
    """) + _run("""
        from opentelemetry import _logs
        from opentelemetry.sdk._logs import LoggerProvider
        _logs.set_logger_provider(LoggerProvider())
        print(providers.any_configured())
    """)
    assert lines == ["False", "True", "True"]


def test_a_provider_named_by_a_variable_later_is_seen_within_the_refresh() -> None:
    lines = _run("""
        import os, time
        print(providers.any_configured())
        os.environ["OTEL_PYTHON_TRACER_PROVIDER"] = "sdk_tracer_provider"
        time.sleep(providers.ENV_REFRESH_S + 0.05)
        print(providers.any_configured())
        from opentelemetry import trace
        print(type(trace.get_tracer_provider()).__module__)
    """)
    assert lines == ["False", "True", "opentelemetry.sdk.trace"]


def test_a_provider_named_by_a_variable_at_start_is_seen_on_the_first_call() -> None:
    lines = _run("""
        import os
        os.environ["OTEL_PYTHON_METER_PROVIDER"] = "sdk_meter_provider"
        print(providers.any_configured())
    """)
    assert lines == ["True"]


def test_without_the_globals_the_answers_are_the_getters_answers() -> None:
    lines = _run("""
        from opentelemetry import trace
        from opentelemetry.sdk.trace import TracerProvider
        providers._GLOBALS = None
        print(providers.any_configured())
        trace.set_tracer_provider(TracerProvider())
        print(providers.any_configured())
    """)
    assert lines == ["False", "True"]


def test_observe_mode_audits_once_an_sdk_is_set_after_the_first_call() -> None:
    lines = _run("""
        from opentelemetry import trace
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
            InMemorySpanExporter)
        from vcg_otel import audited_citations

        @audited_citations(judge=None)
        def answer(q):
            return {"answer": 'It says "the sky is blue" [1].',
                    "documents": [{"id": "1", "text": "We note the sky is blue today."}]}

        answer("q")
        exporter = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        trace.set_tracer_provider(provider)
        print(len(exporter.get_finished_spans()))
        answer("q")
        print(len(exporter.get_finished_spans()) > 0)
    """)
    assert lines == ["0", "True"]
