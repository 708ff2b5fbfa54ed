"""Metrics for Prometheus to scrape (extra ``prometheus``).

The push path needs nothing from here: give the application's ``MeterProvider`` an OTLP
metric exporter and the collector or backend does the rest. For the pull path,
:func:`start_prometheus_endpoint` serves ``/metrics`` with the OpenTelemetry Prometheus
exporter, where ``citation.audits`` becomes ``citation_audits_total`` with labels
``citation_stage`` and ``citation_verdict`` — the series ``examples/alerts/citations.rules.yml``
alerts on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["PrometheusEndpoint", "start_prometheus_endpoint"]


@dataclass
class PrometheusEndpoint:
    """A running ``/metrics`` endpoint and the meter provider that feeds it."""

    meter_provider: Any
    url: str
    _server: Any

    def close(self) -> None:
        """Stop serving and shut the meter provider down."""
        self._server.shutdown()
        self._server.server_close()
        self.meter_provider.shutdown()


def start_prometheus_endpoint(port: int = 9464, addr: str = "127.0.0.1", *,
                              set_global: bool = False) -> PrometheusEndpoint:
    """Serve the audit metrics at ``http://addr:port/metrics``.

    Binds to 127.0.0.1 by default: expose it wider deliberately. The global meter provider is
    left alone unless ``set_global=True`` (then ``@audited_citations`` needs no
    ``meter_provider`` argument).
    """
    try:
        from opentelemetry.exporter.prometheus import PrometheusMetricReader
        from prometheus_client import start_http_server
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("start_prometheus_endpoint needs: pip install 'vcg-otel[prometheus]'"
                          ) from exc
    from opentelemetry import metrics
    from opentelemetry.sdk.metrics import MeterProvider

    server, _thread = start_http_server(port, addr)
    bound_port = server.server_address[1]
    provider = MeterProvider(metric_readers=[PrometheusMetricReader()])
    if set_global:
        metrics.set_meter_provider(provider)
    return PrometheusEndpoint(provider, f"http://{addr}:{bound_port}/metrics", server)
