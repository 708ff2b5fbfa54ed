"""What the judge costs per citation without a quote: prompt tokens as the document grows.

    python benchmarks/evidence_cost.py

A claim built from a real sentence (as in ``evidence_location.py``) cites a document of 1 kB
to 100 kB made of arXiv abstracts, the source abstract in the middle. The evidence is located
and the judge called through a recording judge; its system plus user prompt is counted with
litellm's bundled tokenizer (``gpt-4o`` encoding), as ``judge_cost.py`` counts quoted
citations, against sending the whole document. Median over 50 claims per size.
"""

from __future__ import annotations

import json
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from evidence_location import big_document, cases
from judge_cost import ANSWER, DATA, token_counter

from vcg_otel.evidence import EvidenceLocator
from vcg_otel.judge.evidence_prompt import (
    EVIDENCE_SYSTEM_PROMPT,
    build_evidence_prompt,
    judge_evidence,
)


def main() -> None:
    count, how = token_counter()
    abstracts = json.loads(DATA.read_text(encoding="utf-8"))
    made = cases(50, seed=21)
    print(f"prompt tokens per quote-less citation ({how}), median of {len(made)} claims\n")
    print(f"{'document':>10}{'ours':>8}{'max':>7}{'whole document':>17}{'ratio':>8}")
    for size in (1_000, 10_000, 30_000, 100_000):
        rng = random.Random(size)
        ours, whole = [], []
        for key, claim, _ in made:
            doc = abstracts[key] if size <= 2_000 else big_document(abstracts, key, size, rng)[0]
            doc = doc[:size] if size <= 2_000 else doc
            prompts: list[str] = []

            def judge(system: str, user: str, sink: list[str] = prompts) -> str:
                sink.append(system + "\n" + user)
                return ANSWER

            evidence = EvidenceLocator({"d": doc}).locate(claim, ["d"])
            verdict = judge_evidence(claim, evidence, judge, timeout=10)
            assert verdict.verdict.value == "supports", verdict
            ours.append(count(prompts[0]))
            whole.append(count(EVIDENCE_SYSTEM_PROMPT + "\n"
                               + build_evidence_prompt(claim, [doc])))
        mid, full = statistics.median(ours), statistics.median(whole)
        print(f"{size // 1000:>8} kB{mid:>8,.0f}{max(ours):>7,}{full:>17,.0f}"
              f"{full / mid:>7.1f}x")


if __name__ == "__main__":
    main()
