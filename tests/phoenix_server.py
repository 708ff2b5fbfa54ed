"""A real Phoenix server for the tests: started on free ports, SQLite in a temp dir, offline."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PhoenixServer:
    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.port = free_port()
        self.grpc_port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.log = workdir / "phoenix.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 90.0) -> None:
        env = {
            **os.environ,
            "PHOENIX_WORKING_DIR": str(self.workdir),
            "PHOENIX_HOST": "127.0.0.1",
            "PHOENIX_PORT": str(self.port),
            "PHOENIX_GRPC_PORT": str(self.grpc_port),
            "PHOENIX_TELEMETRY_ENABLED": "false",
            "PHOENIX_ALLOW_EXTERNAL_RESOURCES": "false",
            "PHOENIX_LOG_MIGRATIONS": "false",
        }
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "phoenix.server.main", "serve"],
                env=env, stdout=log, stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"phoenix exited: {self.log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=1) as r:
                    if r.status == 200:
                        return
            except OSError:
                pass
            time.sleep(0.25)
        raise RuntimeError("phoenix did not become healthy in time")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        self.process = None

    # -- reading back ----------------------------------------------------------------------

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(self.url + path, timeout=5) as r:
            return json.load(r)

    def graphql(self, query: str) -> Any:
        body = json.dumps({"query": query}).encode()
        request = urllib.request.Request(self.url + "/graphql", data=body,
                                         headers={"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=5) as r:
            return json.load(r)["data"]

    def spans(self, project: str) -> list[dict[str, Any]]:
        try:
            return list(self.get(f"/v1/projects/{project}/spans?limit=1000")["data"])
        except urllib.error.HTTPError:
            return []  # the project does not exist yet

    def annotations(self, project: str, span_ids: list[str]) -> list[dict[str, Any]]:
        if not span_ids:
            return []
        query = "&".join(f"span_ids={s}" for s in span_ids)
        return list(self.get(f"/v1/projects/{project}/span_annotations?{query}&limit=1000")[
            "data"])


def poll(fetch: Callable[[], T], done: Callable[[T], bool], timeout: float = 20.0) -> T:
    """Call ``fetch`` until ``done(result)``; spans become readable shortly after export."""
    deadline = time.monotonic() + timeout
    while True:
        value = fetch()
        if done(value) or time.monotonic() > deadline:
            return value
        time.sleep(0.1)
