"""Unknown-source detection for quote-less citations: fabricated sources caught, no false alarms.

    python benchmarks/evidence_sources.py [--answers N]

Answers are built from real sentences of the 295 arXiv abstracts in ``benchmarks/data``: each
request retrieves 3 to 8 abstracts (LangChain-style documents with a ``source`` path), and its
answer is 3 to 6 sentences taken from them (some with a second source on the same sentence),
each marked under one app convention:

* ``numbered``: ``[n]``, 1-based positions (detected);
* ``numbered, 0-based``: ``[n]`` from 0, the app passing ``position_base=0`` (a 0-based app
  that never cites ``[0]`` cannot be told from a 1-based one, so it says so);
* ``id``: ``[identifier]`` under one of the names the prompt could show (the arXiv id, the
  file name, the path, the stem);
* ``footnote``: ``[^k]`` with definitions ``[^k]: <file name>, p. 2`` below the answer.

In half of the answers one to three citations are fabricated: a position past the sources
given, the id or file name of a real abstract that was *not* retrieved, an invented
``author-year`` id, a footnote whose definition names a file not retrieved, or a footnote
without definition whose number (20 to 29) is past the sources. The abstracts' own text
carries brackets (``[0.331, 0.382]``, ``[c]``); anything the parser takes for a marker that
the answer did not put there is counted too.

Reported per convention: fabricated citations flagged ``unknown_source`` (detection), honest
ones flagged (false alarms), honest citations the parser missed, and spurious markers.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vcg_otel.documents import DocumentSet
from vcg_otel.evidence import check_source
from vcg_otel.markers import marked_claims

DATA = Path(__file__).parent / "data" / "arxiv_abstracts_295.json"
CONVENTIONS = ("numbered", "numbered, 0-based", "id", "footnote")


def sentences(text: str) -> list[str]:
    return [s.strip() for s in text.split(". ") if len(s.strip()) > 40]


def name_for(key: str, rng: random.Random) -> str:
    return rng.choice([key, f"{key}.pdf", f"papers/{key}.pdf"])


def build(convention: str, abstracts: dict[str, str], rng: random.Random,
          fabricate: bool) -> tuple[str, DocumentSet, list[tuple[str, bool]], int | None]:
    """An answer, its documents, the expected ``(source, fabricated)`` citations, the base."""
    keys = list(abstracts)
    retrieved = rng.sample(keys, rng.randint(3, 8))
    docs = DocumentSet.from_sources([{"page_content": abstracts[k],
                                      "metadata": {"source": f"papers/{k}.pdf"}}
                                     for k in retrieved])
    base = 0 if convention == "numbered, 0-based" else 1
    outside = [k for k in keys if k not in retrieved]
    n_sent = rng.randint(3, 6)
    fake_slots = set(rng.sample(range(n_sent), rng.randint(1, 3))) if fabricate else set()
    parts: list[str] = []
    footnotes: list[str] = []
    expected: list[tuple[str, bool]] = []
    for i in range(n_sent):
        cited = rng.sample(range(len(retrieved)), rng.choice((1, 1, 1, 2)))
        text = rng.choice(sentences(abstracts[retrieved[cited[0]]]))
        marks = []
        for j, pos in enumerate(cited):
            fake = i in fake_slots and j == 0
            if convention.startswith("numbered"):
                label = str(len(retrieved) + base + rng.randint(0, 4) if fake else pos + base)
                marks.append(f"[{label}]")
            elif convention == "id":
                label = (rng.choice([name_for(rng.choice(outside), rng),
                                     f"smith-{rng.randint(1990, 2030)}"]) if fake
                         else name_for(retrieved[pos], rng))
                marks.append(f"[{label}]")
            else:
                label = f"{len(footnotes) + 1}"
                if fake and rng.random() < 0.5:
                    label = str(20 + rng.randint(0, 9))  # no definition, past any source
                else:
                    target = rng.choice(outside) if fake else retrieved[pos]
                    footnotes.append(f"[^{label}]: {target}.pdf, p. 2")
                marks.append(f"[^{label}]")
            expected.append((label, fake))
        parts.append(f"{text.rstrip('.')} {''.join(marks)}.")
    answer = " ".join(parts) + ("\n\n" + "\n".join(footnotes) if footnotes else "")
    return answer, docs, expected, (0 if convention == "numbered, 0-based" else None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=400, help="answers per convention")
    args = parser.parse_args()
    abstracts = json.loads(DATA.read_text(encoding="utf-8"))
    print(f"{'convention':<20}{'fabricated':>11}{'detected':>10}{'honest':>8}"
          f"{'false alarms':>14}{'missed':>8}{'spurious':>10}")
    for convention in CONVENTIONS:
        rng = random.Random(17 + CONVENTIONS.index(convention))
        tally: Counter[str] = Counter()
        for n in range(args.answers):
            answer, docs, expected, base = build(convention, abstracts, rng, n % 2 == 1)
            found = marked_claims(answer, docs, position_base=base)
            want = Counter(label for label, _ in expected)
            got: Counter[str] = Counter()
            for m in found:
                label = m.marker.label
                got[label] += 1
                flagged = check_source(docs, m.citation.document_id,
                                       m.marker.position_base).unknown
                truth = [fake for lab, fake in expected if lab == label]
                if not truth:
                    tally["spurious"] += 1
                    tally["false alarms"] += flagged
                    continue
                fake = truth[0]
                tally["fabricated" if fake else "honest"] += 1
                tally["detected" if fake else "false alarms"] += flagged
            tally["missed"] += sum((want - got).values())
        fab, hon = tally["fabricated"], tally["honest"]
        print(f"{convention:<20}{fab:>11}{tally['detected'] / max(fab, 1):>10.4f}{hon:>8}"
              f"{tally['false alarms']:>14}{tally['missed']:>8}{tally['spurious']:>10}")


if __name__ == "__main__":
    main()
