"""Evidence location for citations without quotes: does the right passage rank first, how fast?

    python benchmarks/evidence_location.py [--cases N]

Claims are built from real sentences of real documents (the 295 arXiv abstracts in
``benchmarks/data``): for a sentence of at least 60 characters, a third of its words that are
not numbers are dropped (seeded), and the remaining words are cut into three runs which are
put back in another order; numbers are kept. The claim is then located in

* the abstract it came from (a short document), and
* a ~100 kB document: the abstracts concatenated in a seeded order, with the source abstract
  somewhere inside (every other abstract is a realistic distractor on the same topics).

Reported: the share of claims whose top-ranked passage holds the whole source sentence, the
stricter share whose top *sentence* is the source sentence, the share held by one of the
three passages the judge reads, and the time per citation against the 100 kB document, a
request's locator built and the claim located (index cold: the document split and indexed for
this citation; warm: already indexed, as for the second citation of an answer or any later
request with the same document), in CPU time (the machine is shared; wall time would measure
the neighbours).

The source sentences are cut with a naive splitter (``. `` before a capital), independent of
the locator's own, so the check does not grade the locator by its own boundaries.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vcg_otel import evidence
from vcg_otel.evidence import EvidenceLocator

DATA = Path(__file__).parent / "data" / "arxiv_abstracts_295.json"
_NAIVE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
_NUMBER = re.compile(r"\d")


def naive_sentences(text: str) -> list[tuple[int, int]]:
    spans, start = [], 0
    for m in _NAIVE.finditer(text):
        spans.append((start, m.start()))
        start = m.end()
    spans.append((start, len(text)))
    return spans


def make_claim(sentence: str, rng: random.Random) -> str:
    """Drop a third of the non-number words, cut the rest in three runs, reorder the runs."""
    words = sentence.rstrip(".").split()
    droppable = [i for i, w in enumerate(words) if not _NUMBER.search(w)]
    dropped = set(rng.sample(droppable, len(droppable) // 3))
    kept = [w for i, w in enumerate(words) if i not in dropped]
    a, b = sorted(rng.sample(range(1, len(kept)), 2)) if len(kept) > 3 else (1, 2)
    runs = [kept[:a], kept[a:b], kept[b:]]
    order = rng.choice([(2, 0, 1), (1, 2, 0), (2, 1, 0), (1, 0, 2)])
    return " ".join(w for r in order for w in runs[r]) + "."


def cases(n: int, seed: int = 13) -> list[tuple[str, str, tuple[int, int]]]:
    """``(abstract id, claim, source span in the abstract)``, n of them, seeded."""
    abstracts = json.loads(DATA.read_text(encoding="utf-8"))
    rng = random.Random(seed)
    pool = [(k, s) for k, text in abstracts.items() for s in naive_sentences(text)
            if s[1] - s[0] >= 60]
    picked = rng.sample(pool, min(n, len(pool)))
    return [(k, make_claim(abstracts[k][a:b], rng), (a, b)) for k, (a, b) in picked]


def big_document(abstracts: dict[str, str], source: str, size: int,
                 rng: random.Random) -> tuple[str, int]:
    """About ``size`` characters of abstracts with ``source`` inside; its offset."""
    others = [k for k in abstracts if k != source]
    rng.shuffle(others)
    parts, total = [], 0
    for k in others:
        if total >= size:
            break
        parts.append(abstracts[k])
        total += len(abstracts[k]) + 2
    at = rng.randrange(len(parts) + 1)
    parts.insert(at, abstracts[source])
    offset = sum(len(p) + 2 for p in parts[:at])
    return "\n\n".join(parts), offset


def rank(locator: EvidenceLocator, claim: str, key: str,
         span: tuple[int, int]) -> tuple[bool, bool, bool]:
    """(top passage holds the source sentence, top sentence is it, one of top 3 holds it)."""
    found = locator.locate(claim, [key], signal=False)
    a, b = span

    def holds(p: evidence.Passage) -> bool:
        return p.start <= a and b <= p.end

    if not found.passages:
        return False, False, False
    top = found.passages[0]
    overlap = min(b, top.sentence_end) - max(a, top.sentence_start)
    return holds(top), overlap >= (b - a) / 2, any(holds(p) for p in found.passages)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=400)
    args = parser.parse_args()
    abstracts = json.loads(DATA.read_text(encoding="utf-8"))
    made = cases(args.cases)
    rng = random.Random(7)
    print(f"{len(made)} claims from real sentences of {len(abstracts)} arXiv abstracts "
          f"(a third of the words dropped, runs reordered, numbers kept)\n")
    print(f"{'cited document':<24}{'top passage':>12}{'top sentence':>14}{'in top 3':>10}")
    short = [rank(EvidenceLocator({"d": abstracts[k]}), c, "d", s) for k, c, s in made]
    big: list[tuple[bool, bool, bool]] = []
    cold: list[float] = []
    warm: list[float] = []
    sizes: list[int] = []
    for k, claim, (a, b) in made:
        doc, offset = big_document(abstracts, k, 100_000, rng)
        sizes.append(len(doc))
        evidence._INDEXES.clear()
        t0 = time.process_time()
        locator = EvidenceLocator({"d": doc})
        locator.locate(claim, ["d"])
        cold.append(time.process_time() - t0)
        t0 = time.process_time()
        locator = EvidenceLocator({"d": doc})
        locator.locate(claim, ["d"])
        warm.append(time.process_time() - t0)
        big.append(rank(locator, claim, "d", (a + offset, b + offset)))
    for name, rows in (("its abstract (~1.5 kB)", short),
                       (f"~{sum(sizes) // len(sizes) // 1000} kB of abstracts", big)):
        n = len(rows)
        print(f"{name:<24}" + "".join(f"{sum(r[i] for r in rows) / n:>{w}.4f}"
                                      for i, w in ((0, 12), (1, 14), (2, 10))))
    cold.sort()
    warm.sort()
    print(f"\nCPU time per citation against ~100 kB (median; p95): index cold "
          f"{cold[len(cold) // 2] * 1e3:.1f} ms; {cold[int(len(cold) * .95)] * 1e3:.1f} ms"
          f"  |  index warm {warm[len(warm) // 2] * 1e6:.0f} µs; "
          f"{warm[int(len(warm) * .95)] * 1e6:.0f} µs")


if __name__ == "__main__":
    main()
