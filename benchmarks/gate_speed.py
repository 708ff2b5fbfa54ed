"""Gate speed, each figure side by side with a naive baseline measured in the same run.

    python benchmarks/gate_speed.py            # full run (about a minute)
    python benchmarks/gate_speed.py --quick    # smaller sizes, for a smoke test

The naive baseline is what the original gate does: normalize with a per-character Python loop
(``unicodedata.category`` on every character, two NFKC passes) and re-normalize every document
on every call. A second baseline caches each normalized document once ("naive, cached").
"""

from __future__ import annotations

import argparse
import gc
import random
import re
import sys
import time
import tracemalloc
import unicodedata
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cases import Case, build_cases, load_corpus

from vcg_otel import Corpus, DocumentCache, normalize, quote_gate

# --- the baseline ------------------------------------------------------------------------------


def naive_normalize(text: str) -> str:
    """The original's approach: per-character loop, two NFKC passes."""
    text = unicodedata.normalize("NFKC", text)
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if cat == "Cf":
            continue
        if cat.startswith("Z") or ch.isspace():
            out.append(" ")
        elif ch in "\u2018\u2019":
            out.append("'")
        elif ch in "\u201c\u201d":
            out.append('"')
        elif ch in "\u2013\u2014":
            out.append("-")
        else:
            out.append(ch)
    text = unicodedata.normalize("NFKC", "".join(out)).casefold()
    return re.sub(r"\s+", " ", text).strip()


def naive_gate(quote: str, cited: str, docs: dict[str, str]) -> str:
    q = naive_normalize(quote)
    if cited in docs and q in naive_normalize(docs[cited]):
        return "found"
    for doc_id, text in docs.items():
        if doc_id != cited and q in naive_normalize(text):
            return "misattributed"
    return "not_found"


def cached_naive_gate(quote: str, cited: str, normed: dict[str, str]) -> str:
    q = naive_normalize(quote)
    if cited in normed and q in normed[cited]:
        return "found"
    for doc_id, text in normed.items():
        if doc_id != cited and q in text:
            return "misattributed"
    return "not_found"


# --- helpers -----------------------------------------------------------------------------------


def timed(fn: Callable[[], object]) -> float:
    gc.collect()
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def synthetic_docs(real: dict[str, str], n: int, size: int = 1500, seed: int = 7) -> dict[str, str]:
    """``n`` documents of about ``size`` characters: the real abstracts first, then documents
    drawn word by word from the corpus' own word frequencies (a unigram model)."""
    rng = random.Random(seed)
    words = " ".join(real.values()).split()
    docs = dict(list(real.items())[:n])
    k = 0
    while len(docs) < n:
        out: list[str] = []
        length = 0
        while length < size:
            w = rng.choice(words)
            out.append(w)
            length += len(w) + 1
        docs[f"synthetic-{k}"] = " ".join(out)
        k += 1
    return docs


def section(title: str) -> None:
    print(f"\n== {title}")


# --- the three measurements ----------------------------------------------------------------------


def throughput(docs: dict[str, str], cases: list[Case], baseline_sample: int) -> None:
    section(f"citations/s, all {len(cases)} cases against all {len(docs)} documents")

    def ours() -> None:
        corpus = Corpus(docs, cache=DocumentCache())  # cold: normalization and index included
        for c in cases:
            quote_gate(c.quote, c.cited, corpus)

    t_ours = min(timed(ours) for _ in range(3))
    sample = cases[:: max(1, len(cases) // baseline_sample)]
    t_naive = timed(lambda: [naive_gate(c.quote, c.cited, docs) for c in sample])

    def cached() -> None:
        normed = {k: naive_normalize(v) for k, v in docs.items()}
        for c in cases:
            cached_naive_gate(c.quote, c.cited, normed)

    t_cached = timed(cached)
    rows = [
        ("vcg_otel (Corpus, cold)", len(cases) / t_ours),
        (f"naive, re-normalizing ({len(sample)} sampled)", len(sample) / t_naive),
        ("naive, cached normalization", len(cases) / t_cached),
    ]
    print(f"{'implementation':<42}{'citations/s':>14}{'vs naive':>10}")
    for name, rate in rows:
        print(f"{name:<42}{rate:>14,.0f}{rate / rows[1][1]:>9.0f}x")


def scaling(real: dict[str, str], cases: list[Case], sizes: list[int]) -> None:
    section("time per not_found quote as the corpus grows (1.5 kB documents)")
    bad = [c for c in cases if c.expected == "not_found"]
    head = list(real)[:10]
    quotes = [c for c in bad if c.cited in head]
    print(f"{len(quotes)} not_found quotes cited to documents present at every size")
    print(f"{'documents':>10}{'index build ms':>16}{'index MiB':>11}{'ours µs':>10}"
          f"{'cached naive µs':>17}{'naive µs':>11}{'ratio':>9}")
    for n in sizes:
        docs = synthetic_docs(real, n)
        corpus = Corpus(docs, cache=DocumentCache())
        gc.collect()
        tracemalloc.start()
        t_build = timed(corpus.build_index)
        index_mib = tracemalloc.get_traced_memory()[0] / 2**20
        tracemalloc.stop()
        for c in quotes:  # warm: verify correctness while at it
            assert quote_gate(c.quote, c.cited, corpus) == "not_found", c
        reps = 5
        t_ours = min(
            timed(lambda: [quote_gate(c.quote, c.cited, corpus) for c in quotes])
            for _ in range(reps)
        ) / len(quotes)
        normed = {k: naive_normalize(v) for k, v in docs.items()}
        t_cached = timed(lambda: [cached_naive_gate(c.quote, c.cited, normed) for c in quotes])
        t_cached /= len(quotes)
        few = quotes[: max(1, 2000 // n)]
        t_naive = timed(lambda: [naive_gate(c.quote, c.cited, docs) for c in few]) / len(few)
        print(f"{n:>10,}{t_build * 1e3:>16.1f}{index_mib:>11.1f}{t_ours * 1e6:>10.1f}"
              f"{t_cached * 1e6:>17.1f}{t_naive * 1e6:>11.0f}{t_naive / t_ours:>8.0f}x")


def big_document(real: dict[str, str], sizes: list[int]) -> None:
    section("one document growing: normalize throughput and peak memory")
    text = " ".join(real.values())
    print(f"{'size':>8}{'ours MB/s':>11}{'naive MB/s':>12}{'ratio':>8}{'ours peak':>11}"
          f"{'naive peak':>12}")
    for size in sizes:
        doc = (text * (size // len(text) + 1))[:size]
        runs = max(1, 2_000_000 // size)
        t_ours = min(timed(lambda: normalize(doc)) for _ in range(runs))
        t_naive = timed(lambda: naive_normalize(doc))
        peaks = []
        for fn in (normalize, naive_normalize):
            gc.collect()
            tracemalloc.start()
            fn(doc)
            peaks.append(tracemalloc.get_traced_memory()[1] / size)
            tracemalloc.stop()
        label = f"{size / 1e6:g} MB" if size >= 1_000_000 else f"{size // 1000} kB"
        print(f"{label:>8}{size / t_ours / 1e6:>11.1f}{size / t_naive / 1e6:>12.1f}"
              f"{t_naive / t_ours:>7.1f}x{peaks[0]:>10.2f}x{peaks[1]:>11.2f}x")
    print("(peak = peak traced allocation during the call, as a multiple of the text's size)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes (smoke test)")
    args = parser.parse_args()
    real = load_corpus()
    cases = build_cases(real)
    if args.quick:
        throughput(real, cases, baseline_sample=20)
        scaling(real, cases, [10, 100])
        big_document(real, [10_000, 100_000])
    else:
        throughput(real, cases, baseline_sample=150)
        scaling(real, cases, [10, 100, 1_000, 10_000])
        big_document(real, [10_000, 100_000, 1_000_000, 10_000_000])
    print(f"\nPython {sys.version.split()[0]}; ours: best of repeated runs; baselines: one run")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
