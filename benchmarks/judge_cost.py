"""What the judge costs: prompt tokens per judged citation, and wall time for many citations.

    python benchmarks/judge_cost.py

1. Prompt tokens per judged citation as the cited document grows from 1 kB to 100 kB: ours
   (a bounded window around the matched passage) against sending the whole document (what the
   original gate does), measured through a recording judge. Tokens are counted with litellm's
   bundled tokenizer (``gpt-4o`` encoding) when litellm is installed, else estimated as
   characters / 4.
2. Wall time for 20 found citations against a judge with 200 ms latency: one after another
   (the original's loop) against the auditor's bounded concurrency.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vcg_otel.audit import Auditor, Citation
from vcg_otel.judge import SYSTEM_PROMPT, build_user_prompt, judge_support

ANSWER = json.dumps({"verdict": "supports", "confidence": 0.9, "reasoning": "stated"})
DATA = Path(__file__).parent / "data" / "arxiv_abstracts_295.json"


def token_counter() -> tuple[Callable[[str], int], str]:
    try:
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        import litellm

        litellm.suppress_debug_info = True
        return (lambda text: int(litellm.token_counter(model="gpt-4o", text=text)),
                "litellm gpt-4o tokenizer")
    except ImportError:
        return (lambda text: len(text) // 4), "estimate: characters / 4"


class RecordingJudge:
    def __init__(self, delay: float = 0.0) -> None:
        self.prompts: list[str] = []
        self.delay = delay

    def __call__(self, system: str, user: str) -> str:
        self.prompts.append(system + "\n" + user)
        if self.delay:
            time.sleep(self.delay)
        return ANSWER


def prompt_tokens(count: Callable[[str], int]) -> None:
    abstracts = list(json.loads(DATA.read_text(encoding="utf-8")).values())
    quote_doc = abstracts[0]
    quote = quote_doc.split(". ")[1]
    filler = " ".join(abstracts[1:])
    print(f"{'document':>10}{'ours: prompt tokens':>22}{'whole document':>17}{'ratio':>8}")
    for size in (1_000, 10_000, 30_000, 100_000):
        # the cited abstract sits in the middle of a document of the given size
        half = max(0, (size - len(quote_doc)) // 2)
        doc = (filler[:half] + " " + quote_doc + " " + filler[half:2 * half])[:max(size, 1)]
        if quote not in doc:
            doc = quote_doc
        judge = RecordingJudge()
        report = Auditor(judge).audit([Citation("The claim under audit.", "d", quote)], {"d": doc})
        assert report.results[0].outcome.value == "supports", report.results[0]
        ours = count(judge.prompts[0])
        full_prompt = build_user_prompt("The claim under audit.", quote, doc)
        whole = count(SYSTEM_PROMPT + "\n" + full_prompt)
        print(f"{len(doc) // 1000:>8} kB{ours:>22,}{whole:>17,}{whole / ours:>7.1f}x")


def wall_time() -> None:
    doc = "The reranker improves accuracy by 4.2% over the baseline on three benchmarks."
    citations = [Citation(f"claim {i}", "d", "improves accuracy by 4.2%") for i in range(20)]
    judge = RecordingJudge(delay=0.2)
    t0 = time.perf_counter()
    for c in citations:  # the original: one judge call after another
        judge_support(c.claim, c.quote or "", doc, judge)
    sequential = time.perf_counter() - t0
    t0 = time.perf_counter()
    report = Auditor(RecordingJudge(delay=0.2), max_concurrency=20, cache=False).audit(
        citations, {"d": doc})
    ours = time.perf_counter() - t0
    assert report.counts == {"supports": 20}
    print(f"{'20 found citations, 200 ms judge':<36}{'seconds':>9}")
    print(f"{'sequential (original)':<36}{sequential:>9.2f}")
    label = "vcg_otel Auditor (max_concurrency=20)"
    print(f"{label:<36}{ours:>9.2f}   {sequential / ours:.1f}x faster")


def main() -> int:
    count, how = token_counter()
    print(f"== prompt tokens per judged citation ({how})")
    prompt_tokens(count)
    print("\n== wall time")
    wall_time()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
