"""An OTLP/HTTP (protobuf) backend on 127.0.0.1 that keeps what it receives, decoded with
opentelemetry-proto: what a collector or an app's OTLP exporters deliver, read back by tests."""

from __future__ import annotations

import gzip
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.logs.v1 import logs_service_pb2
from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
from opentelemetry.proto.common.v1.common_pb2 import AnyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span as ProtoSpan

REQUESTS = {
    "/v1/traces": trace_service_pb2.ExportTraceServiceRequest,
    "/v1/metrics": metrics_service_pb2.ExportMetricsServiceRequest,
    "/v1/logs": logs_service_pb2.ExportLogsServiceRequest,
}
RESPONSES = {
    "/v1/traces": trace_service_pb2.ExportTraceServiceResponse,
    "/v1/metrics": metrics_service_pb2.ExportMetricsServiceResponse,
    "/v1/logs": logs_service_pb2.ExportLogsServiceResponse,
}


class Receiver:
    """An OTLP/HTTP (protobuf) backend: keeps every decoded export request by signal."""

    def __init__(self) -> None:
        self.received: dict[str, list[Any]] = {path: [] for path in REQUESTS}
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                if self.headers.get("content-encoding") == "gzip":
                    body = gzip.decompress(body)
                path = self.path.split("?")[0]
                if path not in REQUESTS:
                    self.send_response(404)
                    self.end_headers()
                    return
                message = REQUESTS[path]()
                message.ParseFromString(body)
                owner.received[path].append(message)
                reply = RESPONSES[path]().SerializeToString()
                self.send_response(200)
                self.send_header("content-type", "application/x-protobuf")
                self.send_header("content-length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def spans(self) -> list[ProtoSpan]:
        return [s for req in self.received["/v1/traces"] for rs in req.resource_spans
                for ss in rs.scope_spans for s in ss.spans]

    def logs(self) -> list[Any]:
        return [r for req in self.received["/v1/logs"] for rl in req.resource_logs
                for sl in rl.scope_logs for r in sl.log_records]

    def metrics(self) -> dict[str, Any]:
        return {m.name: m for req in self.received["/v1/metrics"]
                for rm in req.resource_metrics for sm in rm.scope_metrics for m in sm.metrics}


def value(v: AnyValue) -> Any:
    kind = v.WhichOneof("value")
    return None if kind is None else getattr(v, kind)


def attributes(item: Any) -> dict[str, Any]:
    return {kv.key: value(kv.value) for kv in item.attributes}
