"""A local Phoenix server for the demo, the tests and the benchmarks -- not the production path.

:class:`LocalPhoenix` runs the Phoenix server (extra ``demo``) as a child process on
127.0.0.1, offline, with its SQLite database in a working directory, and reads what it stored
back through Phoenix's public REST and GraphQL APIs only (its database schema is Phoenix's
private business and changes between releases).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from .annotations import REQUEST_ANNOTATION

__all__ = ["LocalPhoenix", "free_port"]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LocalPhoenix:
    """A Phoenix server run as a child process: SQLite in ``workdir``, 127.0.0.1, offline.

    Needs the Phoenix server package (extra ``demo``). Start takes 10-20 s on two cores.
    """

    def __init__(self, workdir: str | os.PathLike[str], port: int | None = None,
                 grpc_port: int | None = None) -> None:
        self.workdir = os.fspath(workdir)
        self.port = port or free_port()
        self.grpc_port = grpc_port or free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.log_path = os.path.join(self.workdir, "phoenix.log")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 90.0) -> None:
        """Start the server and wait until ``/healthz`` answers."""
        env = {
            **os.environ,
            "PHOENIX_WORKING_DIR": self.workdir,
            "PHOENIX_HOST": "127.0.0.1",
            "PHOENIX_PORT": str(self.port),
            "PHOENIX_GRPC_PORT": str(self.grpc_port),
            "PHOENIX_TELEMETRY_ENABLED": "false",
            "PHOENIX_ALLOW_EXTERNAL_RESOURCES": "false",
            "PHOENIX_LOG_MIGRATIONS": "false",
        }
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "phoenix.server.main", "serve"],
                env=env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                with open(self.log_path, errors="replace") as log:
                    raise RuntimeError("Phoenix exited during start-up:\n" + log.read()[-2000:])
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=1) as r:
                    if r.status == 200:
                        return
            except OSError:
                pass
            time.sleep(0.25)
        self.stop()
        raise RuntimeError(f"Phoenix did not answer on {self.url} within {timeout:.0f} s")

    def stop(self) -> None:
        """SIGTERM, then SIGKILL if it has not exited within 15 s."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        self.process = None

    # -- reading back (REST and GraphQL) ---------------------------------------------------

    def get(self, path: str) -> Any:
        """GET a REST path, parsed from JSON."""
        with urllib.request.urlopen(self.url + path, timeout=30) as r:
            return json.load(r)

    def graphql(self, query: str) -> Any:
        """Run a GraphQL query; its ``data``."""
        request = urllib.request.Request(
            self.url + "/graphql", data=json.dumps({"query": query}).encode(),
            headers={"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as r:
            return json.load(r)["data"]

    def spans(self, project: str, limit: int = 1000) -> list[dict[str, Any]]:
        """Spans of a project (``[]`` while the project does not exist yet)."""
        name = urllib.parse.quote(project, safe="")
        try:
            return list(self.get(f"/v1/projects/{name}/spans?limit={limit}")["data"])
        except urllib.error.HTTPError:
            return []

    def annotations(self, project: str, span_ids: list[str]) -> list[dict[str, Any]]:
        """Span annotations of the given spans (REST, every page)."""
        name = urllib.parse.quote(project, safe="")
        found: list[dict[str, Any]] = []
        for i in range(0, len(span_ids), 50):
            query = "&".join(f"span_ids={s}" for s in span_ids[i:i + 50])
            cursor = ""
            while True:
                page = self.get(f"/v1/projects/{name}/span_annotations?{query}&limit=1000"
                                + (f"&cursor={urllib.parse.quote(cursor)}" if cursor else ""))
                found += page["data"]
                cursor = page.get("next_cursor") or ""
                if not cursor:
                    break
        return found

    def _project(self, project: str, fields: str) -> dict[str, Any] | None:
        data = self.graphql("{ projects { edges { node { name " + fields + " } } } }")
        for edge in (data or {}).get("projects", {}).get("edges", []):
            if edge["node"]["name"] == project:
                return dict(edge["node"])
        return None

    def label_fractions(self, project: str, annotation: str = REQUEST_ANNOTATION
                        ) -> dict[str, float]:
        """Phoenix's own aggregate of an annotation's labels in a project (GraphQL)."""
        node = self._project(project, f'spanAnnotationSummary(annotationName: "{annotation}")'
                                      " { labelFractions { label fraction } }")
        summary = (node or {}).get("spanAnnotationSummary")
        if not summary:
            return {}
        return {f["label"]: f["fraction"] for f in summary["labelFractions"]}

    def stored(self, project: str) -> tuple[int, dict[str, int]]:
        """(spans stored, {annotation name: annotations stored}) in a project, exactly.

        GraphQL ``recordCount`` and ``spanAnnotationNameCounts`` (the annotation summary
        counts labelled spans, not annotations, so it undercounts several on one span).
        """
        node = self._project(project, "recordCount spanAnnotationNameCounts { name count }")
        if node is None:
            return 0, {}
        return int(node["recordCount"]), {str(c["name"]): int(c["count"])
                                          for c in node["spanAnnotationNameCounts"]}
