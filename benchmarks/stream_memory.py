"""How much a decorated stream grows the host while it runs (issue 19, item 4).

    python benchmarks/stream_memory.py [--before DIR] [--chunks 200000]

A decorated generator yields ``--chunks`` chunks of 1 kB of text (a new string each time; the
host drops each once read), then a stream of as many small dicts (an SDK's delta objects).
Each runs in a fresh interpreter, which reports its resident memory (RSS, from
/proc/self/status) just before the stream's last chunk minus before its first: what the
stream held while the host consumed it. ``--before DIR`` runs each with vcg_otel from ``DIR``
too (older code, e.g. a worktree of main), alternated with this checkout's, so both see the
same machine. Target: bounded by what extraction reads (2,000,000 characters of text, 100,000
items), whatever the stream's length.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KINDS = ("text", "objects")

CHILD = textwrap.dedent('''
    import json, sys
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from vcg_otel import audited_citations

    kind, n = sys.argv[1], int(sys.argv[2])
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))

    def rss() -> int:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        return 0

    marks = {}

    @audited_citations(tracer_provider=provider)
    def answer(documents):
        for i in range(n):
            if i == n - 1:
                marks["last"] = rss()
            if kind == "text":
                yield f"{i:08d}" + "x" * 992
            else:
                yield {"index": i, "delta": {"content": "tok"}}

    docs = {"paper": "The reranker improves accuracy by 4.2% over the baseline."}
    marks["first"] = rss()
    count = sum(1 for _ in answer(docs))
    audit = [s for s in exporter.get_finished_spans() if s.name == "citation_audit"][0]
    print(json.dumps({"grew": marks["last"] - marks["first"], "count": count,
                      "dropped": audit.attributes.get("citation.audit.stream.dropped", 0),
                      "limit": audit.attributes.get("citation.audit.extract_limit")}))
''')


def run(package: Path, kind: str, chunks: int) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(package)}
    child = subprocess.run(
        [sys.executable, "-c", CHILD, kind, str(chunks)], capture_output=True, text=True,
        env=env, timeout=900, check=True,
        cwd=tempfile.gettempdir())  # not this checkout: "-c" puts the cwd first on sys.path
    out: dict[str, object] = json.loads(child.stdout.strip().splitlines()[-1])
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="also run vcg_otel from this directory")
    parser.add_argument("--chunks", type=int, default=200_000)
    args = parser.parse_args()
    packages = [("after", ROOT)]
    if args.before is not None:
        packages.insert(0, ("before", args.before))
    got = {(kind, label): run(package, kind, args.chunks)
           for kind in KINDS for label, package in packages}
    print(f"RSS growth while a decorated stream of {args.chunks:,} chunks is consumed")
    print("| stream | " + " | ".join(label for label, _ in packages)
          + " | chunks not kept (last column) | limit |")
    print("| --- |" + " --- |" * len(packages) + " --- | --- |")
    for kind in KINDS:
        cells = " | ".join(f"+{int(got[(kind, label)]['grew']) / 1e6:.1f} MB"  # type: ignore[call-overload]
                           for label, _ in packages)
        last = got[(kind, packages[-1][0])]
        name = "text, 1 kB chunks" if kind == "text" else "objects (small dicts)"
        print(f"| {name} | {cells} | {last['dropped']:,} | {last['limit']} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
