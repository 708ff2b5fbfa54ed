"""Gate accuracy: plain text (the original gate's own corpus), real Markdown and HTML, PDF text.

    python benchmarks/gate_accuracy.py [--suite plain|markup|pdf|all]

Prints, per suite and mode, how often honest quotes are accepted (``found``) and bad quotes
rejected, for vcg_otel and for a naive baseline that lower-cases, drops punctuation and
collapses whitespace before a substring search (what the original gate does); then detection
(bad quotes not accepted) and the false-positive rate (honest quotes rejected). The plain suite
also shows the original gate's published figures on its corpus.

* plain: ``cases.py`` over ``data/arxiv_abstracts_295.json``.
* markup: ``markup_cases.py`` over ``data/markup_samples.json`` -- real Markdown (package
  READMEs) and real HTML (manuals); honest quotes are the sentences a reader sees (rendered by
  markdown-it-py, read by html.parser), the gate sees the raw text.
* pdf: ``pdf_cases.py`` -- the arXiv abstracts as PDF extraction returns them.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cases import Case, build_cases, load_corpus
from markup_cases import naive_normalize

from vcg_otel import Corpus, quote_gate

ORIGINAL = {"detection": 1.0, "false_positive_rate": 0.1721, "ellipsis": 0.0, "sic": 0.0}

class NaiveGate:
    """The baseline gate over documents normalized once."""

    def __init__(self, docs: dict[str, str]) -> None:
        self.docs = {k: f" {naive_normalize(v)} " for k, v in docs.items()}

    def __call__(self, quote: str, cited: str) -> str:
        q = f" {naive_normalize(quote)} "
        if not q.strip():
            return "not_found"
        if cited in self.docs and q in self.docs[cited]:
            return "found"
        if any(q in text for k, text in self.docs.items() if k != cited):
            return "misattributed"
        return "not_found"


def run_suite(title: str, docs: dict[str, str], cases: list[Case],
              crossing: set[str] | None = None) -> dict[str, float]:
    """Run one suite, print its table, return its summary figures."""
    corpus = Corpus(docs)
    naive = NaiveGate(docs)
    # mode -> [ours ok, naive ok, total, ours exact label]
    per_mode: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    honest_kind: dict[str, bool] = {}
    cross = [0, 0, 0]  # ours ok, naive ok, total
    failures: list[str] = []
    for case in cases:
        got = quote_gate(case.quote, case.cited, corpus)
        base = naive(case.quote, case.cited)
        ok = (got == "found") if case.honest else (got != "found")
        ok_naive = (base == "found") if case.honest else (base != "found")
        row = per_mode[case.mode]
        row[0] += ok
        row[1] += ok_naive
        row[2] += 1
        row[3] += got == case.expected
        honest_kind[case.mode] = case.honest
        if crossing is not None and case.honest and case.quote in crossing:
            cross[0] += ok
            cross[1] += ok_naive
            cross[2] += 1
        if not ok and len(failures) < 10:
            failures.append(f"  {case.mode}: {case.quote[:100]!r} -> {got}")
    honest = sum(per_mode[m][2] for m, h in honest_kind.items() if h)
    bad = sum(per_mode[m][2] for m, h in honest_kind.items() if not h)

    def rate(index: int, want_honest: bool) -> float:
        total = honest if want_honest else bad
        hits = sum(per_mode[m][index] for m, h in honest_kind.items() if h == want_honest)
        return hits / total if total else float("nan")

    summary = {
        "detection": rate(0, False), "fpr": 1 - rate(0, True),
        "naive_detection": rate(1, False), "naive_fpr": 1 - rate(1, True),
    }
    print(f"\n== {title}: {len(cases)} cases over {len(docs)} documents "
          f"({honest} honest, {bad} bad)\n")
    print(f"{'mode':<18}{'kind':<8}{'cases':>7}{'vcg_otel':>10}{'naive':>9}{'exact label':>13}")
    for mode, (ok, ok_naive, total, exact) in per_mode.items():
        kind = "honest" if honest_kind[mode] else "bad"
        print(f"{mode:<18}{kind:<8}{total:>7}{ok / total:>10.4f}{ok_naive / total:>9.4f}"
              f"{exact / total:>13.4f}")
    print(f"\n{'metric':<40}{'vcg_otel':>10}{'naive':>9}")
    print(f"{'detection of bad citations':<40}{summary['detection']:>10.4f}"
          f"{summary['naive_detection']:>9.4f}")
    print(f"{'false-positive rate (honest)':<40}{summary['fpr']:>10.4f}"
          f"{summary['naive_fpr']:>9.4f}")
    if crossing is not None and cross[2]:
        summary["cross_fpr"] = 1 - cross[0] / cross[2]
        summary["naive_cross_fpr"] = 1 - cross[1] / cross[2]
        label = f"false positives, crossing markup ({cross[2]})"
        print(f"{label:<40}{summary['cross_fpr']:>10.4f}{summary['naive_cross_fpr']:>9.4f}")
    if failures:
        print("\nfirst failures:")
        print("\n".join(failures))
    return summary


def plain_suite() -> None:
    docs = load_corpus()
    cases = build_cases(docs)
    run_suite("plain text (arXiv abstracts)", docs, cases)
    corpus = Corpus(docs)
    print(f"\n{'against the published original':<40}{'vcg_otel':>10}{'original':>9}")
    for mode in ("ellipsis", "sic"):
        mode_cases = [c for c in cases if c.mode == mode]
        ok = sum(quote_gate(c.quote, c.cited, corpus) == "found" for c in mode_cases)
        print(f"{mode + ' accepted':<40}{ok / len(mode_cases):>10.4f}{ORIGINAL[mode]:>9.4f}")
    print(f"{'false-positive rate (published)':<40}{'':>10}{ORIGINAL['false_positive_rate']:>9.4f}")


def markup_suite() -> None:
    from markup_cases import build_markup_cases, load_samples

    docs, cases, crossing = build_markup_cases(load_samples())
    run_suite("markup (real Markdown and HTML, raw)", docs, cases, crossing)


def pdf_suite() -> None:
    from pdf_cases import build_pdf_cases

    docs, cases = build_pdf_cases(load_corpus())
    run_suite("PDF text (arXiv abstracts as extracted)", docs, cases)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--suite", choices=("plain", "markup", "pdf", "all"), default="all")
    args = parser.parse_args()
    if args.suite in ("plain", "all"):
        plain_suite()
    if args.suite in ("markup", "all"):
        markup_suite()
    if args.suite in ("pdf", "all"):
        pdf_suite()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
