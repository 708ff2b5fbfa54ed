"""A real OpenTelemetry collector for the tests: rotel (PyPI ``rotel``, test extra) on
127.0.0.1, receiving OTLP over HTTP and gRPC and exporting OTLP/HTTP to one endpoint."""

from __future__ import annotations

import contextlib
import importlib.util
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.phoenix_server import free_port

__all__ = ["rotel"]


def _rotel_binary() -> Path:
    spec = importlib.util.find_spec("rotel")
    if spec is None or spec.origin is None:
        pytest.skip("rotel not installed (test extra)")
    return Path(spec.origin).parent / "rotel-agent"


def _wait_for_port(port: int, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError(f"collector did not listen on {port}")


@contextlib.contextmanager
def rotel(export_to: str, log_file: Path, *, traces_only: bool = False) -> Iterator[str]:
    """Run the collector; yields its OTLP/HTTP base URL (``http://127.0.0.1:PORT``).

    ``traces_only`` turns its metrics and logs receivers off (a traces-only backend behind it).
    """
    http_port, grpc_port = free_port(), free_port()
    receivers_off = (["--otlp-receiver-metrics-disabled", "--otlp-receiver-logs-disabled"]
                     if traces_only else [])
    process = subprocess.Popen(
        [str(_rotel_binary()), "start",
         "--otlp-http-endpoint", f"127.0.0.1:{http_port}",
         "--otlp-grpc-endpoint", f"127.0.0.1:{grpc_port}",
         *receivers_off,
         "--exporter", "otlp", "--otlp-exporter-protocol", "http",
         "--otlp-exporter-endpoint", export_to,
         "--log-file", str(log_file)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        _wait_for_port(http_port)
        yield f"http://127.0.0.1:{http_port}"
    finally:
        process.terminate()
        process.wait(10)
