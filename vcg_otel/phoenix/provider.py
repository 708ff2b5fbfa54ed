"""``register``: ``phoenix.otel.register``'s provider, made safe to run inside someone's app.

Built on arize-phoenix-otel: the provider is its ``TracerProvider`` and the exporter its
``HTTPSpanExporter``, so ``PHOENIX_COLLECTOR_ENDPOINT``, ``PHOENIX_PROJECT_NAME``,
``PHOENIX_API_KEY`` and ``PHOENIX_CLIENT_HEADERS`` mean what Phoenix's documentation says.
What it adds is what ``phoenix.otel.register(batch=True)`` lacks for a library that must never
hurt its host: a short export timeout, a batch queue whose drops are counted, a bounded
shutdown, the global provider left alone, nothing printed, and the annotation writer.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from opentelemetry import metrics

from .._exit import left
from .annotations import PhoenixAnnotationProcessor, base_url

if TYPE_CHECKING:
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter
    from phoenix.otel import TracerProvider

__all__ = ["register"]

logger = logging.getLogger(__name__)


def register(
    *,
    project_name: str | None = None,
    endpoint: str | None = None,
    set_global_tracer_provider: bool = False,
    headers: Mapping[str, str] | None = None,
    api_key: str | None = None,
    annotations: bool | PhoenixAnnotationProcessor = True,
    export_timeout: float = 2.0,
    schedule_delay: float = 0.5,
    max_queue_size: int = 8_192,
    max_export_batch_size: int = 512,
    shutdown_timeout: float = 5.0,
    resource_attributes: Mapping[str, Any] | None = None,
    meter_provider: metrics.MeterProvider | None = None,
) -> TracerProvider:
    """A Phoenix tracer provider that exports without ever blocking the app.

    The keywords shared with ``phoenix.otel.register`` (``project_name``, ``endpoint``,
    ``set_global_tracer_provider``, ``headers``, ``api_key``) mean the same, and so do the
    ``PHOENIX_*`` environment variables; ``endpoint`` is Phoenix's base URL or its
    ``/v1/traces`` URL (OTLP over HTTP only: the annotations need Phoenix's REST API on the
    same address). Unlike ``phoenix.otel.register``'s defaults: spans go through a *batch*
    processor with a short ``export_timeout`` (Phoenix down at start or mid-run costs the app
    nothing; spans are retried in the background, then dropped), its queue is bounded at
    ``max_queue_size`` and what it drops is counted in the SDK's
    ``otel.sdk.processor.span.processed{error.type="queue_full"}`` on ``meter_provider``;
    ``provider.shutdown()`` takes at most ``shutdown_timeout`` for the spans plus the
    annotation writer's own ``shutdown_timeout``; the global provider is left alone unless
    ``set_global_tracer_provider=True``; nothing is printed. With ``annotations=True`` a
    :class:`PhoenixAnnotationProcessor` with its defaults is attached; pass one to configure
    it (for high volume: docs/guides/phoenix.md).

    Needs the ``phoenix`` extra (``pip install 'vcg-otel[phoenix]'``).
    """
    try:
        from opentelemetry import trace
        from opentelemetry.sdk.resources import Resource
        from phoenix.otel import PROJECT_NAME, HTTPSpanExporter, TracerProvider
        from phoenix.otel.settings import (
            get_env_client_headers,
            get_env_collector_endpoint,
            get_env_phoenix_auth_header,
            get_env_project_name,
        )
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("vcg_otel.phoenix.register needs: pip install 'vcg-otel[phoenix]'"
                          ) from exc

    base = base_url(endpoint or get_env_collector_endpoint())
    if headers:
        sent = {k.lower(): v for k, v in headers.items()}
    else:
        sent = dict(get_env_client_headers() or {})
    if api_key:
        sent["authorization"] = f"Bearer {api_key}"
    elif "authorization" not in sent:
        sent.update(get_env_phoenix_auth_header() or {})
    resource = Resource.create({**(resource_attributes or {}),
                                PROJECT_NAME: project_name or get_env_project_name()})
    provider = TracerProvider(resource=resource, verbose=False)
    exporter = HTTPSpanExporter(endpoint=base + "/v1/traces", headers=sent or None,
                                timeout=export_timeout)
    # Replaces the default SimpleSpanProcessor that phoenix.otel's provider starts with.
    provider.add_span_processor(_batch_processor(
        exporter, max_queue_size=max_queue_size, schedule_delay=schedule_delay,
        max_export_batch_size=max_export_batch_size, export_timeout=export_timeout,
        shutdown_timeout=shutdown_timeout,
        meter_provider=meter_provider or metrics.get_meter_provider()))
    if isinstance(annotations, PhoenixAnnotationProcessor):
        provider.add_span_processor(annotations)
    elif annotations:
        provider.add_span_processor(PhoenixAnnotationProcessor(
            base, headers=sent, meter_provider=meter_provider))
    if set_global_tracer_provider:
        trace.set_tracer_provider(provider)
    return provider


def _batch_processor(exporter: SpanExporter, *, max_queue_size: int, schedule_delay: float,
                     max_export_batch_size: int, export_timeout: float,
                     shutdown_timeout: float, meter_provider: metrics.MeterProvider
                     ) -> BatchSpanProcessor:
    """The SDK's batch processor with a bounded shutdown and its queue drops counted.

    phoenix.otel's own ``BatchSpanProcessor`` takes no queue or timeout settings, so the SDK's
    is used with phoenix.otel's exporter. Two SDK gaps are closed here, both through the
    processor's ``_batch_processor`` (the attribute phoenix.otel itself reads):

    * its ``shutdown()`` waits up to 30 s for an export in progress, and the OTLP exporter's
      timeout is per socket read, so a collector that trickles its answer held
      ``provider.shutdown()`` for 30-40 s: here it waits ``shutdown_timeout`` at most;
    * it counts queue drops (``otel.sdk.processor.span.processed{error.type="queue_full"}``)
      only when ``OTEL_PYTHON_SDK_INTERNAL_METRICS_ENABLED`` is set *in the process
      environment* when it is built -- a switch a library must not flip for its host (the
      previous version set it briefly, racing every other thread). The SDK's own metrics
      object is attached instead; if a future SDK moves it, drops go uncounted, with a debug
      log, and nothing else changes.
    """
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    class _BoundedBatchSpanProcessor(BatchSpanProcessor):
        def shutdown(self) -> None:
            self._batch_processor.shutdown(timeout_millis=int(left(shutdown_timeout) * 1000))

    processor = _BoundedBatchSpanProcessor(
        exporter, max_queue_size=max_queue_size,
        schedule_delay_millis=int(schedule_delay * 1000),
        max_export_batch_size=max_export_batch_size,
        export_timeout_millis=int(export_timeout * 1000), meter_provider=meter_provider)
    _count_queue_drops(processor, meter_provider, max_queue_size)
    return processor


def _count_queue_drops(processor: BatchSpanProcessor, meter_provider: metrics.MeterProvider,
                       capacity: int) -> None:
    try:
        from opentelemetry.sdk._shared_internal._processor_metrics import (
            NoOpProcessorMetrics,
            ProcessorMetrics,
        )
        from opentelemetry.semconv._incubating.attributes.otel_attributes import (
            OtelComponentTypeValues,
        )

        inner = processor._batch_processor
        if isinstance(inner._metrics, NoOpProcessorMetrics):  # not enabled by the environment
            counted = ProcessorMetrics("traces", OtelComponentTypeValues.BATCHING_SPAN_PROCESSOR,
                                       meter_provider, capacity=capacity)
            counted.register_queue_size(lambda: len(inner._queue))
            inner._metrics = counted
    except (ImportError, AttributeError, TypeError):  # pragma: no cover - another SDK
        logger.debug("vcg_otel: span queue drops are not counted with this SDK", exc_info=True)
