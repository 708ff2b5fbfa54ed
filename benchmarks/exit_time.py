"""How long a process takes to exit while vcg_otel still holds work (issue 19, item 10).

    python benchmarks/exit_time.py [--runs 2] [--before DIR]

Each scenario runs in a fresh interpreter that prints "main done" when its own code has
finished; the time from that line to the process's end is what vcg_otel adds to the exit.

* ``hung``: 20 background audits pending behind a judge that never answers, and the Phoenix
  annotation writer with annotations of 50 earlier audits for a server that accepts
  connections and never answers (tests/support/hostile_http.py, "silent").
* ``cpu``: one background audit busy indexing a 20 MB document (a quote-less citation: the
  evidence index), which no cancellation can interrupt.
* ``idle``: nothing pending (the floor: interpreter and SDK shutdown).

``--before DIR`` runs every scenario with vcg_otel from ``DIR`` too (older code), alternated
with this checkout's, so both see the same machine. Target: at most the one exit bound
(``VCG_OTEL_SHUTDOWN_TIMEOUT``, default 5 s) plus the interpreter's own shutdown.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from support.exit_scenarios import HUNG_AT_EXIT
from support.hostile_http import HostileServer

ROOT = Path(__file__).resolve().parent.parent

SCENARIO = textwrap.dedent('''
    import json, sys, time
    from pathlib import Path
    from opentelemetry.sdk.trace import TracerProvider
    from vcg_otel import audited_citations

    scenario, data = sys.argv[1], Path(sys.argv[2])
    provider = TracerProvider()

    if scenario == "cpu":
        abstracts = list(json.loads(data.read_text()).values())
        parts, size = [], 0
        while size < 20_000_000:
            for n, text in enumerate(abstracts):
                part = f"Section {size}.{n}.\\n\\n{text}\\n\\n"
                parts.append(part)
                size += len(part)
        report = "".join(parts)

        @audited_citations(background=True, tracer_provider=provider)
        def answer(documents):
            return "The reranker improves accuracy over the baseline [1]."

        answer([report])
        time.sleep(1.0)  # the audit is indexing
    print("main done", flush=True)
''')


def exit_seconds(package: Path, scenario: str, url: str) -> float:
    env = {**os.environ, "PYTHONPATH": str(package)}
    env.pop("VCG_OTEL_SHUTDOWN_TIMEOUT", None)
    argv = ([HUNG_AT_EXIT, url, "50", "20", "2.5"] if scenario == "hung" else
            [SCENARIO, scenario, str(ROOT / "benchmarks/data/arxiv_abstracts_295.json")])
    child = subprocess.Popen(
        [sys.executable, "-c", *argv],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env,
        cwd=tempfile.gettempdir())  # not this checkout: "-c" puts the cwd first on sys.path
    assert child.stdout is not None
    line = child.stdout.readline()
    done = time.perf_counter()
    assert line.strip() == "main done", line
    child.wait(timeout=600)
    return time.perf_counter() - done


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--before", type=Path, help="also run vcg_otel from this directory")
    args = parser.parse_args()
    packages = [("this checkout", ROOT)]
    if args.before is not None:
        packages.insert(0, (f"before ({args.before})", args.before))
    worst: dict[tuple[str, str], float] = {}
    with HostileServer("silent") as silent:
        for _ in range(args.runs):
            for scenario in ("hung", "cpu", "idle"):
                for label, package in packages:
                    seconds = exit_seconds(package, scenario, silent.url)
                    key = (scenario, label)
                    worst[key] = max(worst.get(key, 0.0), seconds)
    print(f"worst exit time over {args.runs} runs, from 'main done' to the process's end")
    print(f"{'scenario':<10}" + "".join(f"{label:>28}" for label, _ in packages))
    for scenario in ("hung", "cpu", "idle"):
        print(f"{scenario:<10}" + "".join(f"{worst[(scenario, label)]:>26.2f} s"
                                          for label, _ in packages))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
