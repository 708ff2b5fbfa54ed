"""Gate accuracy: plain text (the original gate's own corpus), real Markdown and HTML, PDF text.

    python benchmarks/gate_accuracy.py [--suite plain|markup|pdf|transcription|rejection|all]

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
* transcription: ``transcription_cases.py`` -- real sentences quoted the way models transcribe
  them: per slip (honest) and per meaning change, alone and with a slip (bad).
* rejection: rejected quotes told apart -- ``altered`` (a sentence of the documents with one
  word replaced) vs ``invented`` (a sentence of an abstract not among the documents).
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
    print(f"{'mode':<24}{'kind':<8}{'cases':>7}{'vcg_otel':>10}{'naive':>9}{'exact label':>13}")
    for mode, (ok, ok_naive, total, exact) in per_mode.items():
        kind = "honest" if honest_kind[mode] else "bad"
        print(f"{mode:<24}{kind:<8}{total:>7}{ok / total:>10.4f}{ok_naive / total:>9.4f}"
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


def transcription_suite() -> None:
    from transcription_cases import build_transcription_cases

    docs, cases = build_transcription_cases()
    run_suite("transcription (real sentences, model slips and meaning changes)", docs, cases)


def rejection_suite() -> None:
    from transcription_cases import build_rejection_cases

    docs, cases = build_rejection_cases()
    corpus = Corpus(docs)
    # kind -> [told apart, total, rejected not_found, sum of scores with a closest passage, n]
    rows: dict[str, list[float]] = defaultdict(lambda: [0, 0, 0, 0.0, 0])
    failures: list[str] = []
    for kind, quote, cited in cases:
        m = quote_gate(quote, cited, corpus)
        row = rows[kind]
        row[1] += 1
        row[2] += m == "not_found"
        got = m.rejection.value if m.rejection is not None else "-"
        row[0] += got == kind
        if m.closest is not None:
            row[3] += m.closest.score
            row[4] += 1
        if got != kind and len(failures) < 8:
            score = f"{m.closest.score:.2f}" if m.closest else "-"
            failures.append(f"  {kind}: {quote[:90]!r} -> {m.result.value}/{got} ({score})")
    total = sum(r[1] for r in rows.values())
    print(f"\n== rejection kinds: {total} rejected quotes over {len(docs)} documents\n")
    print(f"{'kind':<12}{'cases':>7}{'not_found':>11}{'told apart':>12}{'mean score':>12}")
    for kind, (ok, n, rejected, scores, scored) in rows.items():
        mean = scores / scored if scored else float("nan")
        print(f"{kind:<12}{n:>7}{rejected / n:>11.4f}{ok / n:>12.4f}{mean:>12.3f}")
    told = sum(r[0] for r in rows.values()) / total
    print(f"\n{'altered and invented told apart':<40}{told:>10.4f}   (target >= 0.95)")
    if failures:
        print("\nfirst failures:")
        print("\n".join(failures))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--suite", default="all",
                        choices=("plain", "markup", "pdf", "transcription", "rejection", "all"))
    args = parser.parse_args()
    if args.suite in ("plain", "all"):
        plain_suite()
    if args.suite in ("markup", "all"):
        markup_suite()
    if args.suite in ("pdf", "all"):
        pdf_suite()
    if args.suite in ("transcription", "all"):
        transcription_suite()
    if args.suite in ("rejection", "all"):
        rejection_suite()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
