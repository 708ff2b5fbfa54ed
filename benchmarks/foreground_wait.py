"""The host's worst wait for one foreground audit, per hostile input (issue 19, item 9).

    python benchmarks/foreground_wait.py [--runs 2] [--before DIR] [--inputs a,b]

A decorated handler (default observe mode, in the foreground) returns a result it built
beforehand, so the decorated call's wall time is what vcg_otel made the host wait: reading the
result and the arguments, the gate, the evidence location (and, for the last input, a judge
that answers at once: its call is not what is measured). Each input runs in a fresh
interpreter (a cold evidence cache, as in a service's first request; vcg_otel's modules
imported by one small call before), ``--runs`` times; the
worst is printed, with what the audit span says (its status, the extraction limit, the
citations' verdicts and why they were cut).

Inputs (the reproducers of issue 19, item 9):

* ``slow_reads``: a result every attribute read of which takes 90 ms (under the 100 ms
  slow-read cut): before, three walks with 1 s each, checked between reads only.
* ``markers``: an answer of 85,000 sentences each ending in a ``[n]`` marker, over 3 sources.
* ``many_docs``: 50 quote-less citations over 10,000 retrieved documents.
* ``big_doc``: one quote-less citation of a 20 MB document, with a judge.
* ``big_doc_again``: the same, a second time, once the first call's work is over (after the
  deadline cut the first, its index was finished on a daemon thread).

``--before DIR`` runs every input with vcg_otel from ``DIR`` too (older code: e.g. a worktree
of main), alternated with this checkout's, so both see the same machine. Target: the wait is
bounded by the foreground deadline (``VCG_OTEL_FOREGROUND_DEADLINE``, default 0.5 s) plus one
slow read or slice of work.
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
DATA = ROOT / "benchmarks/data/arxiv_abstracts_295.json"
INPUTS = ("slow_reads", "markers", "many_docs", "big_doc", "big_doc_again")

CHILD = textwrap.dedent('''
    import json, sys, time
    from collections import Counter
    from pathlib import Path
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from vcg_otel import audited_citations

    name, data = sys.argv[1], Path(sys.argv[2])
    abstracts = list(json.loads(data.read_text()).values())
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    judge = None
    docs = {str(i): text for i, text in enumerate(abstracts[:3], 1)}

    if name == "slow_reads":
        class Slow:
            """Every attribute read takes 90 ms."""
            def __getattr__(self, key):
                time.sleep(0.09)
                return None
        result = Slow()
    elif name == "markers":
        result = "".join(f"Rate {i} rose [{i % 3 + 1}]. "
                         for i in range(85_000))
    elif name == "many_docs":
        docs = {f"doc{i}": f"Report {i}. " + abstracts[i % len(abstracts)]
                for i in range(10_000)}
        result = " ".join(f"The method improves retrieval accuracy [doc{i * 197}]."
                          for i in range(50))
    elif name in ("big_doc", "big_doc_again"):
        parts, size, copy = [], 0, 0
        while size < 20_000_000:
            copy += 1
            for i, text in enumerate(abstracts, 1):
                part = f"Section {copy}.{i}. Study {copy * 1000 + i}.\\n\\n{text}\\n\\n"
                parts.append(part)
                size += len(part)
        docs = {"1": "".join(parts)}
        result = "The proposed model improves accuracy on long documents [1]."
        def judge(system, user):
            return '{"verdict": "supports", "confidence": 0.9, "reasoning": "It says so."}'

    @audited_citations(judge=judge, tracer_provider=provider)
    def answer(documents):
        return result

    @audited_citations(judge=judge, tracer_provider=provider)
    def warm(documents):
        return 'Imports only: "a warm up" [w] and a marker [w].'

    warm({"w": "Imports only: a warm up, before the measured call."})  # modules, not caches
    exporter.clear()
    if name == "big_doc_again":  # the same document, once its first audit is over
        answer(docs)
        from vcg_otel import evidence
        for finisher in getattr(evidence, "_FINISHER", []):  # a build the deadline cut
            finisher.submit(lambda: None).result()
        exporter.clear()
    t0 = time.perf_counter()
    answer(docs)
    wait = time.perf_counter() - t0
    audit = [s for s in exporter.get_finished_spans() if s.name == "citation_audit"][0]
    checks = [s for s in exporter.get_finished_spans() if s.name == "citation.check"]
    a = audit.attributes
    why = Counter(f"{c.attributes.get('citation.verdict')}"
                  + (f"/{c.attributes['citation.judge.skipped']}"
                     if "citation.judge.skipped" in c.attributes else "")
                  for c in checks)
    print(json.dumps({"wait": wait, "status": a.get("citation.audit.status"),
                      "limit": a.get("citation.audit.extract_limit"),
                      "error": a.get("citation.audit.error"),
                      "checks": dict(why.most_common(3))}))
''')


def run(package: Path, name: str) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(package)}
    for var in [v for v in env if v.startswith("VCG_OTEL_")]:
        env.pop(var)
    child = subprocess.run(
        [sys.executable, "-c", CHILD, name, str(DATA)], capture_output=True, text=True,
        env=env, timeout=900, check=True,
        cwd=tempfile.gettempdir())  # not this checkout: "-c" puts the cwd first on sys.path
    out: dict[str, object] = json.loads(child.stdout.strip().splitlines()[-1])
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--before", type=Path, help="also run vcg_otel from this directory")
    parser.add_argument("--inputs", default=",".join(INPUTS))
    args = parser.parse_args()
    packages = [("after", ROOT)]
    if args.before is not None:
        packages.insert(0, ("before", args.before))
    names = [n for n in args.inputs.split(",") if n]
    worst: dict[tuple[str, str], dict[str, object]] = {}
    for _ in range(args.runs):
        for name in names:
            for label, package in packages:
                got = run(package, name)
                key = (name, label)
                if key not in worst or float(got["wait"]) > float(worst[key]["wait"]):  # type: ignore[arg-type]
                    worst[key] = got
    print(f"host's worst wait in one foreground call, {args.runs} fresh processes each")
    print(f"| input | {' | '.join(label for label, _ in packages)} | audit span (last column) |")
    print("| --- |" + " --- |" * len(packages) + " --- |")
    for name in names:
        waits = " | ".join(f"{float(worst[(name, label)]['wait']):.2f} s"  # type: ignore[arg-type]
                           for label, _ in packages)
        last = worst[(name, packages[-1][0])]
        said = {k: v for k, v in last.items() if k != "wait" and v}
        print(f"| {name} | {waits} | {json.dumps(said)} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
