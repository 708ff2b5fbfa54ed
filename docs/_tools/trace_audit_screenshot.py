"""How docs/phoenix-trace-audit.png was made (run from the repository root):

    python docs/_tools/trace_audit_screenshot.py OUT_DIR

A local Phoenix, the LangChain, LlamaIndex and Haystack apps of tests/support/rag_apps.py
traced into project "rag-app" by their OpenInference instrumentors (no vcg_otel in them),
then ``vcg-otel audit --from-phoenix URL --project rag-app --otlp-endpoint URL/v1/traces``,
then headless Chromium (Debian's ``chromium``) on the Phoenix UI pages.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path[:0] = ["tests", "."]

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter  # noqa: E402
from support.fake_openai import FakeOpenAI  # noqa: E402
from support.phoenix_server import PhoenixServer, poll  # noqa: E402
from support.rag_apps import APPS, run_traced  # noqa: E402

from vcg_otel.cli import main  # noqa: E402

PROJECT = "rag-app"


def shoot(url: str, path: Path, size: str = "1600,1000") -> None:
    subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu",
                    "--hide-scrollbars", f"--window-size={size}",
                    "--virtual-time-budget=30000", f"--screenshot={path}", url],
                   check=True, capture_output=True, timeout=180)


def run(out: Path) -> None:
    phoenix = PhoenixServer(tempfile.mkdtemp())
    phoenix.start()
    model = FakeOpenAI().start()
    try:
        traces = {}
        for name, make in APPS.items():
            app = make(model, Path(tempfile.mkdtemp()))
            traces[name] = run_traced(app, OTLPSpanExporter(f"{phoenix.url}/v1/traces"),
                                      PROJECT, times=2)
        wanted = {t for ids in traces.values() for t in ids}
        poll(lambda: {s["context"]["trace_id"] for s in phoenix.spans(PROJECT)
                      if s["parent_id"] is None}, lambda got: wanted <= got, timeout=60)
        main(["audit", "--from-phoenix", phoenix.url, "--project", PROJECT,
              "--otlp-endpoint", f"{phoenix.url}/v1/traces", "--no-progress"])
        time.sleep(3)
        data = phoenix.graphql("{ projects { edges { node { id name } } } }")
        pid = next(e["node"]["id"] for e in data["projects"]["edges"]
                   if e["node"]["name"] == PROJECT)
        spans = phoenix.spans(PROJECT)
        trace = traces["haystack"][0]
        llm = next(s for s in spans if s["context"]["trace_id"] == trace
                   and s["span_kind"] == "LLM")
        shoot(f"{phoenix.url}/projects/{pid}", out / "project.png")
        shoot(f"{phoenix.url}/projects/{pid}/spans", out / "spans.png")
        shoot(f"{phoenix.url}/projects/{pid}/traces/{trace}?selectedSpanNodeId={llm['id']}",
              out / "trace.png")
        print(phoenix.url, pid, trace, llm["id"])
    finally:
        model.stop()
        phoenix.stop()


if __name__ == "__main__":
    run(Path(sys.argv[1]))
