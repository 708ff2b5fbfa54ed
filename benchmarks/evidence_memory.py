"""Resident memory the evidence-index cache keeps after the documents are gone (issue 19, 8).

    python benchmarks/evidence_memory.py [--documents 3] [--mb 20] [--package DIR]

The sequence of the issue: an app audits quote-less citations of a few big documents (each
N MB of real prose: the 295 arXiv abstracts of benchmarks/data, repeated under headings),
then lets the documents go. Printed: RSS at start (imports done), after indexing each
document, and after the app dropped them (``gc.collect()``), with what the cache says it
holds. The baseline is the start-up RSS of the same process. ``--package DIR`` imports
vcg_otel from ``DIR`` (older code, with this script).
"""

from __future__ import annotations

import argparse
import gc
import sys
from pathlib import Path

sys.path.insert(0, sys.argv[sys.argv.index("--package") + 1] if "--package" in sys.argv[:-1]
                else str(Path(__file__).resolve().parent.parent))

from cases import long_report

import vcg_otel
from vcg_otel import evidence
from vcg_otel.evidence import EvidenceLocator


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=3)
    parser.add_argument("--mb", type=int, default=20)
    parser.add_argument("--package", help="import vcg_otel from this directory")
    args = parser.parse_args()
    print(f"vcg_otel from {Path(vcg_otel.__file__).parent}")
    gc.collect()
    start = rss_mb()
    print(f"{'step':<34}{'RSS':>10}{'over start':>12}{'cache entries':>15}{'cache measure':>15}")

    def row(step: str) -> None:
        now = rss_mb()
        print(f"{step:<34}{now:>7.0f} MB{now - start:>9.0f} MB{len(evidence._INDEXES):>15}"
              f"{evidence._INDEXES.size:>15,}")

    row("start")
    texts = [long_report(args.mb, n) for n in range(args.documents)]
    row(f"{args.documents} documents of {args.mb} MB read")
    for n, text in enumerate(texts):
        EvidenceLocator({"report": text}).locate("accuracy over the baseline", ["report"])
        row(f"document {n + 1} indexed")
    texts.clear()
    gc.collect()
    row("documents dropped by the app")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
