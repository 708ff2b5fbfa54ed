"""Against a real Phoenix server: quote-less citations read back with the located evidence's
offsets into the cited document, an unknown source annotated as a fabrication."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from support.paths import ROOT
from support.phoenix_server import PhoenixServer, poll

from vcg_otel import audited_citations
from vcg_otel.judge.evidence_prompt import EVIDENCE_PROMPT_VERSION
from vcg_otel.otel import semconv
from vcg_otel.phoenix import PhoenixAnnotationProcessor, register

ABSTRACTS: dict[str, str] = json.loads(
    (ROOT / "benchmarks/data/arxiv_abstracts_295.json").read_text(
        encoding="utf-8"))
KEYS = list(ABSTRACTS)
CLAIM = ABSTRACTS[KEYS[2]].split(". ")[1]
SUPPORTS = json.dumps({"verdict": "supports", "confidence": 0.9, "reasoning": "stated"})


def test_unknown_source_and_judged_quote_less_citation_read_back_from_phoenix(
        phoenix: PhoenixServer) -> None:
    name = f"test-{uuid.uuid4().hex[:8]}"
    notes = PhoenixAnnotationProcessor(phoenix.url)
    provider = register(project_name=name, endpoint=phoenix.url, annotations=notes)

    @audited_citations(judge=lambda system, user: SUPPORTS, tracer_provider=provider)
    def answer(documents: dict[str, str]) -> dict[str, Any]:
        return {"citations": [{"claim": CLAIM, "doc_id": KEYS[2]},
                              {"claim": "It also cures cancer.", "doc_id": "smith-2027"}]}

    answer({k: ABSTRACTS[k] for k in KEYS[:5]})
    provider.force_flush()
    spans = poll(lambda: phoenix.spans(name), lambda s: len(s) == 1 + 2 + 1)
    checks = {s["attributes"]["citation.document.id"]: s for s in spans
              if s["name"] == "citation.check"}
    assert checks[KEYS[2]]["attributes"]["citation.verdict"] == "supports"
    assert checks["smith-2027"]["attributes"]["citation.verdict"] == "unknown_source"
    located = checks[KEYS[2]]["attributes"]
    assert located[semconv.EVIDENCE_DOCUMENT_ID] == KEYS[2]
    start, end = located[semconv.EVIDENCE_START], located[semconv.EVIDENCE_END]
    assert CLAIM in ABSTRACTS[KEYS[2]][start:end]  # offsets index the original abstract
    assert semconv.EVIDENCE_START not in checks["smith-2027"]["attributes"]
    (judge,) = [s for s in spans if s["name"].startswith("chat")]
    assert judge["attributes"][semconv.JUDGE_PROMPT_VERSION] == EVIDENCE_PROMPT_VERSION
    ids = [s["context"]["span_id"] for s in spans]
    annotations = poll(lambda: phoenix.annotations(name, ids), lambda a: len(a) >= 3)
    labels = sorted(a["result"]["label"] for a in annotations if a["name"] == "citation_verdict")
    assert labels == ["supports", "unknown_source"]
    audit = next(a for a in annotations if a["name"] == "citation_fabrication")
    assert audit["result"]["label"] == "fabricated"
    assert audit["result"]["score"] == pytest.approx(1 / 2)
    provider.shutdown()
