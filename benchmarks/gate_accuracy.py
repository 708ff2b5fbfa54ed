"""Gate accuracy on the original gate's own benchmark corpus.

    python benchmarks/gate_accuracy.py

Prints, per mode, how often honest quotes are accepted (``found``) and bad quotes rejected,
then detection (bad quotes not accepted) and the false-positive rate (honest quotes rejected),
next to the original gate's published figures on this corpus.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cases import build_cases, load_corpus

from vcg_otel import Corpus, quote_gate

ORIGINAL = {"detection": 1.0, "false_positive_rate": 0.1721, "ellipsis": 0.0, "sic": 0.0}


def main() -> int:
    docs = load_corpus()
    corpus = Corpus(docs)
    cases = build_cases(docs)
    per_mode: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # ok, total, exact label
    failures: list[str] = []
    for case in cases:
        got = quote_gate(case.quote, case.cited, corpus)
        ok = (got == "found") if case.honest else (got != "found")
        row = per_mode[case.mode]
        row[0] += ok
        row[1] += 1
        row[2] += got == case.expected
        if not ok and len(failures) < 15:
            failures.append(f"  {case.mode}: {case.quote[:100]!r} -> {got}")
    honest = [c for c in cases if c.honest]
    bad = [c for c in cases if not c.honest]
    accepted = sum(per_mode[m][0] for m in {c.mode for c in honest})
    rejected = sum(per_mode[m][0] for m in {c.mode for c in bad})
    detection = rejected / len(bad)
    fpr = 1 - accepted / len(honest)

    print(f"{len(cases)} cases over {len(docs)} documents "
          f"({len(honest)} honest, {len(bad)} bad)\n")
    print(f"{'mode':<22}{'kind':<8}{'cases':>7}{'correct':>9}{'rate':>9}{'exact label':>13}")
    for mode, (ok, total, exact) in per_mode.items():
        kind = "honest" if any(c.mode == mode and c.honest for c in cases[:len(honest)]) else "bad"
        print(f"{mode:<22}{kind:<8}{total:>7}{ok:>9}{ok / total:>9.4f}{exact / total:>13.4f}")
    print()
    print(f"{'metric':<34}{'vcg_otel':>10}{'original':>10}")
    print(f"{'detection of bad citations':<34}{detection:>10.4f}{ORIGINAL['detection']:>10.4f}")
    print(f"{'false-positive rate (honest)':<34}{fpr:>10.4f}"
          f"{ORIGINAL['false_positive_rate']:>10.4f}")
    for mode in ("ellipsis", "sic"):
        ok, total, _ = per_mode[mode]
        print(f"{mode + ' accepted':<34}{ok / total:>10.4f}{ORIGINAL[mode]:>10.4f}")
    if failures:
        print("\nfirst failures:")
        print("\n".join(failures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
