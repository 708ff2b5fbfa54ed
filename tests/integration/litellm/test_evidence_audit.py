"""The Auditor on citations without quotes: unknown sources are fabrications, never judged;
the others are judged on located passages, under the evidence prompt's own version.

Documents are real arXiv abstracts (benchmarks/data); the litellm test speaks real HTTP to the
scripted OpenAI-compatible server.
"""

from __future__ import annotations

import importlib.util
import json

from support.fake_openai import FakeOpenAI, Reply
from support.paths import ROOT

from vcg_otel.audit import Auditor, Citation, Outcome
from vcg_otel.documents import DocumentSet
from vcg_otel.judge import PROMPT_VERSION, FailReason
from vcg_otel.judge.evidence_prompt import EVIDENCE_PROMPT_VERSION, EVIDENCE_SYSTEM_PROMPT
from vcg_otel.markers import marked_claims

ABSTRACTS: dict[str, str] = json.loads(
    (ROOT / "benchmarks/data/arxiv_abstracts_295.json").read_text(
        encoding="utf-8"))
KEYS = list(ABSTRACTS)
DOCS = {k: ABSTRACTS[k] for k in KEYS[:5]}
CLAIM = ABSTRACTS[KEYS[2]].split(". ")[1]
SUPPORTS = json.dumps({"verdict": "supports", "confidence": 0.9, "reasoning": "stated"})


class Recorder:
    def __init__(self, answer: str = SUPPORTS) -> None:
        self.calls: list[tuple[str, str]] = []
        self.answer = answer

    def __call__(self, system: str, user: str) -> str:
        self.calls.append((system, user))
        return self.answer


def test_a_citation_of_a_source_never_retrieved_is_fabricated_and_never_judged() -> None:
    judge = Recorder()
    report = Auditor(judge).audit([Citation(CLAIM, "7"), Citation(CLAIM, "smith-2027"),
                                   Citation(CLAIM, "3")], DOCS)
    assert [r.outcome for r in report.results] == [
        Outcome.UNKNOWN_SOURCE, Outcome.UNKNOWN_SOURCE, Outcome.SUPPORTS]
    assert len(judge.calls) == 1 and report.results[0].judge_skipped == "gate_rejected"
    assert Outcome.UNKNOWN_SOURCE.is_fabricated
    assert report.counts["unknown_source"] == 2
    assert report.results[0].evidence is not None and report.results[0].evidence.unknown
    assert report.to_dict()["results"][0]["evidence"]["unknown"] is True


def test_a_quote_less_citation_is_judged_on_located_passages_under_its_own_prompt() -> None:
    judge = Recorder()
    auditor = Auditor(judge)
    r = auditor.audit([Citation(CLAIM, KEYS[2])], DOCS).results[0]
    assert r.outcome is Outcome.SUPPORTS and r.judge_called
    system, user = judge.calls[0]
    assert system == EVIDENCE_SYSTEM_PROMPT and CLAIM in user
    assert r.evidence is not None and r.evidence.evidence is not None
    top = r.evidence.evidence.passages[0]
    assert DOCS[KEYS[2]][top.start:top.end] == top.text and CLAIM in top.text
    again = auditor.audit([Citation(CLAIM, KEYS[2])], DOCS).results[0]
    assert again.cached and len(judge.calls) == 1  # the cache key holds the evidence version
    assert EVIDENCE_PROMPT_VERSION != PROMPT_VERSION


def test_without_documents_or_without_a_judge_a_quote_less_citation_stays_unverifiable() -> None:
    judge = Recorder()
    none = Auditor(judge).audit([Citation(CLAIM, "3")], {}).results[0]
    assert none.outcome is Outcome.UNVERIFIABLE and none.evidence is None and not judge.calls
    gate_only = Auditor().audit([Citation(CLAIM, "3")], DOCS).results[0]
    assert gate_only.outcome is Outcome.UNVERIFIABLE and gate_only.judge_skipped == "no_judge"
    assert gate_only.evidence is not None and gate_only.evidence.evidence is not None
    unknown = Auditor().audit([Citation(CLAIM, "9")], DOCS).results[0]
    assert unknown.outcome is Outcome.UNKNOWN_SOURCE  # stage 1 needs no judge


def test_a_broken_judge_on_located_evidence_fails_closed() -> None:
    report = Auditor(Recorder("supports!!")).audit([Citation(CLAIM, "3")], DOCS)
    r = report.results[0]
    assert r.outcome is Outcome.UNJUDGED and r.fail_reason is FailReason.NO_JSON
    long_claim = Auditor(Recorder()).audit([Citation(CLAIM + " x" * 2_000, "3")],
                                           DOCS).results[0]
    assert long_claim.outcome is Outcome.UNJUDGED
    assert long_claim.fail_reason is FailReason.OVERSIZED_INPUT


def test_quoted_and_quote_less_citations_audit_together() -> None:
    quote = ABSTRACTS[KEYS[1]].split(". ")[0]
    citations = [Citation("The paper says so.", KEYS[1], quote), Citation(CLAIM, "3"),
                 Citation(CLAIM, "12")]
    judge = Recorder()
    report = Auditor(judge).audit(citations, DocumentSet.from_sources(DOCS))
    assert [r.outcome.value for r in report.results] == ["supports", "supports",
                                                          "unknown_source"]
    assert report.results[0].evidence is None
    assert sorted(system == EVIDENCE_SYSTEM_PROMPT for system, _ in judge.calls) == [
        False, True]  # the quote under the quoted prompt, the claim under the evidence one


def test_an_answer_with_numbered_markers_audited_through_litellm_over_http(
        openai_server: FakeOpenAI) -> None:
    if importlib.util.find_spec("litellm") is None:
        import pytest

        pytest.skip("litellm not installed")
    from vcg_otel.llm import LiteLLMJudge

    docs = DocumentSet.from_sources([{"page_content": ABSTRACTS[k],
                                      "metadata": {"source": f"papers/{k}.pdf"}}
                                     for k in KEYS[:5]])
    answer = (f"{CLAIM} [3]. The authors also report a cure for cancer [7]. "
              f"{ABSTRACTS[KEYS[0]].split('. ')[0]} [{KEYS[0]}].")
    openai_server.responder = lambda body: Reply(SUPPORTS, 420, 25)
    judge = LiteLLMJudge("openai/test-judge", api_base=openai_server.base_url,
                         api_key="sk-test", timeout=5.0, max_retries=0)
    citations = [m.citation for m in marked_claims(answer, docs)]
    report = Auditor(judge).audit(citations, docs)
    assert [r.outcome.value for r in report.results] == ["supports", "unknown_source",
                                                          "supports"]
    assert len(openai_server.requests) == 2 and report.usage.prompt_tokens == 840
    for request in openai_server.requests:
        assert request["messages"][0]["content"] == EVIDENCE_SYSTEM_PROMPT
        assert "cure for cancer" not in request["messages"][1]["content"]


def test_a_claim_sharing_no_word_with_its_source_is_unrelated_without_a_call() -> None:
    judge = Recorder()  # would say "supports" to anything
    r = Auditor(judge).audit([Citation("zebra xylophone", "3")], DOCS).results[0]
    assert r.outcome is Outcome.UNRELATED and r.judge_skipped == "no_evidence"
    assert not judge.calls and r.verdict is None


def test_the_decorator_records_unknown_sources_as_fabrications_in_spans_and_metrics() -> None:
    from support.telemetry import Telemetry

    from vcg_otel import audited_citations
    from vcg_otel.otel import semconv

    telemetry = Telemetry()
    judge = Recorder()

    @audited_citations(judge=judge, **telemetry.providers,
                       citations=lambda args, result: [
                           m.citation for m in marked_claims(result["answer"])])
    def answer(question: str) -> dict[str, object]:
        return {"answer": f"{CLAIM} [3]. It also cures cancer [7].",
                "documents": [{"id": k, "text": ABSTRACTS[k]} for k in KEYS[:5]]}

    answer("what?")
    checks = sorted(telemetry.spans(semconv.SPAN_CHECK),
                    key=lambda s: (s.attributes or {})[semconv.CITATION_INDEX])
    labels = [((s.attributes or {})[semconv.EVAL_LABEL], (s.attributes or {})[semconv.EVAL_SCORE])
              for s in checks]
    assert labels == [("supports", 0.0), ("unknown_source", 1.0)]
    finals = {p["citation.verdict"]: v for p, v in telemetry.metric_points(semconv.METRIC_AUDITS)
              if p[semconv.ATTR_STAGE] == semconv.STAGE_FINAL}
    assert finals == {"supports": 1, "unknown_source": 1}
    assert len(judge.calls) == 1


def test_a_numbered_marker_answer_is_audited_by_the_decorator_with_no_glue() -> None:
    """A plain answer with ``[n]`` markers: one check span per marker, the evidence located
    in the cited document on its span, the judge span under the evidence prompt's version."""
    from support.telemetry import Telemetry

    from vcg_otel import audited_citations
    from vcg_otel.otel import semconv

    telemetry = Telemetry()
    judge = Recorder()
    other = ABSTRACTS[KEYS[0]].split(". ")[0]

    @audited_citations(judge=judge, **telemetry.providers)
    def answer(question: str, documents: list[dict[str, str]]) -> str:
        return f"{CLAIM} [3]. It also cures cancer [7]. {other} [1]."

    answer("what?", [{"id": k, "text": ABSTRACTS[k]} for k in KEYS[:5]])
    checks = sorted(telemetry.spans(semconv.SPAN_CHECK),
                    key=lambda s: (s.attributes or {})[semconv.CITATION_INDEX])
    attrs = [dict(s.attributes or {}) for s in checks]
    assert [(a[semconv.CITATION_DOCUMENT_ID], a[semconv.VERDICT]) for a in attrs] == [
        ("3", "supports"), ("7", "unknown_source"), ("1", "supports")]
    located = attrs[0]
    assert located[semconv.EVIDENCE_DOCUMENT_ID] == KEYS[2]
    passage = ABSTRACTS[KEYS[2]][located[semconv.EVIDENCE_START]:located[semconv.EVIDENCE_END]]
    assert CLAIM in passage
    assert located[semconv.EVIDENCE_PASSAGES] >= 1 and located[semconv.EVIDENCE_COVERAGE] > 0.5
    assert located[semconv.CITATION_DOCUMENT_RESOLUTION] == "position"
    assert semconv.EVIDENCE_START not in attrs[1]  # an unknown source has no evidence
    assert attrs[1][semconv.CITATION_DOCUMENT_GROUP_SIZE] == 0
    versions = {(s.attributes or {})[semconv.JUDGE_PROMPT_VERSION] for s in telemetry.judges()}
    assert versions == {EVIDENCE_PROMPT_VERSION} and len(judge.calls) == 2


def test_enforce_mode_drops_a_cohere_span_when_any_of_its_sources_is_unknown() -> None:
    """One item citing two sources is two results: enforce mode keeps the item only when
    both are consistent, and the items after it still line up with their own results."""
    from vcg_otel import audited_citations

    second = ABSTRACTS[KEYS[0]].split(". ")[0]
    spans = [{"text": CLAIM, "sources": [{"id": KEYS[2]}, {"id": "smith-2027"}]},
             {"text": second, "sources": [{"id": KEYS[0]}]}]

    @audited_citations(mode="enforce", judge=Recorder())
    def answer(documents: dict[str, str]) -> dict[str, object]:
        return {"text": "...", "citations": spans}

    result = answer(DOCS)
    assert result["citations"] == [spans[1]]
    outcomes = [r["outcome"] for r in result["citation_audit"]["results"]]
    assert outcomes == ["supports", "unknown_source", "supports"]
