"""Three real arXiv abstracts and one citation of each kind over them, with a scripted judge
that has a litellm-style model string: the GenAI tests' shared case."""

from __future__ import annotations

import json

from vcg_otel.judge import JudgeResponse, Usage

from .paths import ROOT

ABSTRACTS = json.loads((ROOT / "benchmarks" / "data" / "arxiv_abstracts_295.json").read_text())
IDS = list(ABSTRACTS)[:3]
DOCS = {i: ABSTRACTS[i] for i in IDS}
HONEST = {"claim": "Reasoning Core has 50 generators.", "doc_id": IDS[0],
          "quote": "a collection of 50 generators"}
SKILLS = {"claim": "Long-horizon tasks switch skills.", "doc_id": IDS[1],
          "quote": "switch between distinct skills inside a reasoning chain"}
FABRICATED = {"claim": "Greek retrieval doubles recall.", "doc_id": IDS[2],
              "quote": "doubles recall on every Greek benchmark"}
MISATTRIBUTED = {"claim": "Greek is missing.", "doc_id": IDS[0],
                 "quote": "Modern Greek is absent from NVIDIA's Nemotron retrieval models"}
SECRET_REASONING = "The abstract states the count of generators outright."


class Judge:
    """A judge with a litellm-style model string; its answers are scripted."""

    model = "openai/gpt-4o-mini"

    def __call__(self, system: str, user: str) -> JudgeResponse:
        if "switch skills" in user:
            return JudgeResponse("I cannot decide.", Usage(150, 12), "gpt-4o-mini-2024-07-18")
        text = json.dumps({"verdict": "supports", "confidence": 0.9,
                           "reasoning": SECRET_REASONING})
        return JudgeResponse(text, Usage(200, 30), "gpt-4o-mini-2024-07-18")
