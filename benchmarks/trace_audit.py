"""Auditing traces already in Phoenix, and in an OTLP/JSON file: traces/s and peak memory.

    python benchmarks/trace_audit.py                      # 10,000 traces (and a 1,000 one)
    python benchmarks/trace_audit.py --traces 2000 --small 200

A real Phoenix server is started and two projects are filled over OTLP with traces shaped as
the OpenInference instrumentors write them: a CHAIN root (``input.value``), a RETRIEVER span
with 4 retrieved real arXiv abstracts (``retrieval.documents.N.document.content/.id/.metadata``)
and an LLM span whose ``llm.output_messages`` hold an answer with 4 JSON citations (two
honest, a fabricated and a misattributed one). The same traces are
written as an OTLP/JSON lines file (the SDK's encoding, hex ids, 200 traces a line).

Each measured run is a fresh ``vcg-otel audit`` process (gate only) and its peak RSS is that
process's own (``os.wait4``):

* ``phoenix read only``: the listing and span fetching alone (the baseline: what any reader
  of the project pays);
* ``phoenix audit``: read, audit, annotations written (5 per trace);
* ``phoenix re-run``: the same again, every trace skipped as already audited;
* ``otlp file``: the same traces from the file, results to ``--out``.

The small project's peak RSS beside the large one's shows memory bounded by the page, not the
project.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
ABSTRACTS: dict[str, str] = json.loads(
    (ROOT / "benchmarks/data/arxiv_abstracts_295.json").read_text())
FABRICATED = "the proposed method doubles accuracy on every benchmark we tried"

READ_ONLY = """
import sys, time
from vcg_otel.traces.phoenix import PhoenixSource
source = PhoenixSource(sys.argv[1], sys.argv[2])
n, started = 0, time.perf_counter()
for page in source.traces(0, time.time_ns()):
    n += len(page)
print(f"({n / (time.perf_counter() - started):.0f} traces/s)")
"""
_RATE = re.compile(r"\(([\d,]+) traces/s\)")
_AUDITING = re.compile(r"([\d.]+) s auditing")


def _quote(text: str, rng: random.Random, words: int = 10) -> str:
    tokens = text.split()
    start = rng.randrange(0, max(1, len(tokens) - words))
    return " ".join(tokens[start:start + words]).strip(".,;:()\"'")


def _answer(docs: list[tuple[str, str]], rng: random.Random) -> str:
    (first, text), (_, other) = docs[0], docs[1]
    return json.dumps({"answer": "Findings.", "citations": [
        {"claim": "It says so.", "quote": _quote(text, rng), "doc_id": first},
        {"claim": "It says more.", "quote": _quote(text, rng, 14), "doc_id": first},
        {"claim": "It claims this.", "quote": FABRICATED, "doc_id": first},
        {"claim": "It claims that.", "quote": _quote(other, rng), "doc_id": first}]})


def fill(endpoint: str, project: str, count: int, seed: int,
         otlp_file: Path | None = None) -> None:
    """``count`` OpenInference-shaped traces into Phoenix and, if asked, a file. Exported 200
    traces at a time, each batch retried until Phoenix took it (a busy Phoenix answers 503,
    and a batch processor gives up at shutdown)."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExportResult
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    rng = random.Random(seed)
    ids = sorted(ABSTRACTS)
    provider = TracerProvider(resource=Resource({"openinference.project.name": project}))
    memory = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    exporter = OTLPSpanExporter(f"{endpoint}/v1/traces", timeout=60)
    tracer = provider.get_tracer("bench-rag")
    if otlp_file is not None:
        otlp_file.write_text("")

    def flush() -> None:
        spans = memory.get_finished_spans()
        memory.clear()
        if not spans:
            return
        while exporter.export(spans) is not SpanExportResult.SUCCESS:
            time.sleep(2)
        if otlp_file is not None:
            _write(otlp_file, spans)

    for i in range(count):
        chosen = [(d, ABSTRACTS[d]) for d in rng.sample(ids, 4)]
        with tracer.start_as_current_span("RetrievalQA", attributes={
                "openinference.span.kind": "CHAIN", "input.value": f"question {i}?"}):
            attrs: dict[str, Any] = {"openinference.span.kind": "RETRIEVER"}
            for n, (doc_id, text) in enumerate(chosen):
                prefix = f"retrieval.documents.{n}.document."
                attrs[prefix + "content"] = text
                attrs[prefix + "id"] = f"chunk-{doc_id}"
                attrs[prefix + "metadata"] = json.dumps({"source": f"papers/{doc_id}.txt"})
            with tracer.start_as_current_span("Retriever", attributes=attrs):
                pass
            answer = _answer(chosen, rng)
            with tracer.start_as_current_span("ChatOpenAI", attributes={
                    "openinference.span.kind": "LLM",
                    "llm.output_messages.0.message.role": "assistant",
                    "llm.output_messages.0.message.content": answer,
                    "output.value": answer}):
                pass
        if (i + 1) % 200 == 0:
            flush()
    flush()
    provider.shutdown()
    exporter.shutdown()


def _write(path: Path, spans: Any) -> None:
    """``spans`` as one OTLP/JSON line (the test suite's encoder: hex ids)."""
    sys.path.insert(0, str(ROOT / "tests"))
    from support.otlp_json import sdk_request, write_lines

    write_lines(path, [sdk_request(spans)])


def _spawn_measured(argv: list[str]) -> tuple[float, float, str]:
    """(seconds, peak RSS MiB, output) of one child process, reaped with ``os.wait4`` for
    its own peak RSS."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    env.pop("VCG_OTEL_JUDGE_MODEL", None)
    with tempfile.TemporaryFile("w+") as out:
        started = time.monotonic()
        child = subprocess.Popen(argv, env=env, stdout=out, stderr=subprocess.STDOUT,
                                 text=True)
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.monotonic() - started
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read()
    if child.returncode not in (0, 1):
        raise RuntimeError(f"{argv} exited {child.returncode}:\n{text[-3000:]}")
    return seconds, usage.ru_maxrss / 1024, text


def _auditing(text: str) -> float | None:
    found = _AUDITING.findall(text)
    return float(found[-1]) if found and float(found[-1]) > 0 else None


def _rate(text: str) -> float | None:
    found = _RATE.findall(text)
    return float(found[-1].replace(",", "")) if found else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--traces", type=int, default=10_000)
    parser.add_argument("--small", type=int, default=1_000)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from vcg_otel.phoenix.local import LocalPhoenix

    work = Path(tempfile.mkdtemp(prefix="trace-audit-"))
    phoenix = LocalPhoenix(work / "phoenix")
    (work / "phoenix").mkdir()
    print("starting Phoenix ...", flush=True)
    phoenix.start()
    python = sys.executable
    rows: list[tuple[str, int, float, float, str]] = []
    try:
        sizes = {"small": args.small, "large": args.traces}
        for label, count in sizes.items():
            started = time.monotonic()
            otlp = work / f"{label}.jsonl" if label == "large" else None
            fill(phoenix.url, label, count, seed=len(label), otlp_file=otlp)
            deadline = time.monotonic() + 1800
            while time.monotonic() < deadline:
                stored, _ = phoenix.stored(label)
                if stored >= 3 * count:
                    break
                time.sleep(1)
            print(f"{label}: {count:,} traces stored in Phoenix "
                  f"({time.monotonic() - started:.0f} s)", flush=True)
        cli = [python, "-m", "vcg_otel.cli", "audit", "--no-progress"]
        for label, count in sizes.items():
            seconds, peak, text = _spawn_measured(
                [python, "-c", READ_ONLY, phoenix.url, label])
            rows.append((f"phoenix read only ({label})", count, seconds, peak, text))
            seconds, peak, text = _spawn_measured(
                [*cli, "--from-phoenix", phoenix.url, "--project", label])
            rows.append((f"phoenix audit ({label})", count, seconds, peak, text))
            print(text.strip(), flush=True)
            seconds, peak, text = _spawn_measured(
                [*cli, "--from-phoenix", phoenix.url, "--project", label])
            rows.append((f"phoenix re-run, all skipped ({label})", count, seconds, peak, text))
        seconds, peak, text = _spawn_measured(
            [*cli, "--from-otlp", str(work / "large.jsonl"), "--out", str(work / "out.jsonl")])
        rows.append(("otlp file (large)", args.traces, seconds, peak, text))
        print(text.strip(), flush=True)
        _, peak_import, _ = _spawn_measured([python, "-c", "import vcg_otel.traces.run, "
                                             "phoenix.client"])
    finally:
        phoenix.stop()
    rates = {label: _rate(text) for label, _, _, _, text in rows}
    auditing = {label: _auditing(text) for label, _, _, _, text in rows}
    print("\nwall = the whole process (start-up and imports included); in-run = traces/s from "
          "the first request to the last\n(the CLI's own 'time:' line); 'vs read' = in-run "
          "rate of the Phoenix read alone / this run's")
    print("gate/s = traces / the seconds spent auditing them (reading, annotation writes and "
          "start-up excluded)")
    print(f"{'run':<40}{'traces':>8}{'wall s':>8}{'wall/s':>8}{'in-run/s':>10}{'vs read':>9}"
          f"{'gate/s':>9}{'peak RSS MiB':>14}")
    for label, count, seconds, peak, _ in rows:
        size = label.rsplit("(", 1)[-1].rstrip(")")
        base = rates.get(f"phoenix read only ({size})")
        rate = rates[label]
        ratio = f"{base / rate:>8.2f}x" if base and rate and "phoenix" in label else f"{'':>9}"
        spent = auditing[label]
        gate = f"{count / spent:>9,.0f}" if spent else f"{'':>9}"
        print(f"{label:<40}{count:>8,}{seconds:>8.1f}{count / seconds:>8.0f}"
              f"{rate or 0:>10,.0f}{ratio}{gate}{peak:>14.0f}")
    print(f"{'(a process importing vcg_otel.traces and phoenix.client, nothing else)':<83}"
          f"{peak_import:>14.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
