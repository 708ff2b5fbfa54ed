"""Issue 19, item 1: a verdict is reused only for a request that showed the judge the same
thing: the quote (or the located passages), the claim, the source window, the prompt
version and the model. Two inline quotes of one sentence share their claim, and over a short
document their window: each still gets its own verdict, with the cache on or off."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vcg_otel.audit import Auditor, Citation, Outcome
from vcg_otel.evidence import Evidence, Passage
from vcg_otel.extract import extract_citations
from vcg_otel.judge.evidence_prompt import EVIDENCE_PROMPT_VERSION, prepare_evidence
from vcg_otel.judge.prompt import PROMPT_VERSION
from vcg_otel.judge.runner import JudgeCall, WindowConfig, prepare

ANSWER = 'Better: "improves accuracy by 4.2%" [d] and "gains shrink on long documents" [d].'
DOCS = {"d": "The proposed reranker improves accuracy by 4.2% over the baseline, although "
             "gains shrink on long documents."}


def quoted(user: str) -> str:
    """The text inside the QUOTE fence of a user prompt."""
    return user.split("<<<QUOTE ", 1)[1].split(">>>\n", 1)[1].split("\n<<<END QUOTE", 1)[0]


class QuoteReader:
    """A judge that answers by the quote it is shown: ``supports`` for the one holding
    4.2%, ``contradicts`` for any other."""

    def __init__(self) -> None:
        self.quotes: list[str] = []

    def __call__(self, system: str, user: str) -> str:
        quote = quoted(user)
        self.quotes.append(quote)
        verdict = "supports" if "4.2%" in quote else "contradicts"
        return json.dumps({"verdict": verdict, "confidence": 0.9, "reasoning": "scripted"})


@pytest.mark.parametrize("cache", [True, False])
def test_two_quotes_of_one_sentence_over_one_window_each_get_their_own_verdict(
        cache: bool) -> None:
    citations = extract_citations(ANSWER)
    assert [c.quote for c in citations] == ["improves accuracy by 4.2%",
                                            "gains shrink on long documents"]
    assert citations[0].claim == citations[1].claim  # one sentence: one claim
    judge = QuoteReader()
    report = Auditor(judge, cache=cache).audit(citations, DOCS)
    assert [r.outcome for r in report.results] == [Outcome.SUPPORTS, Outcome.CONTRADICTS]
    assert [r.cached for r in report.results] == [False, False]
    assert sorted(judge.quotes) == sorted(c.quote for c in citations)
    alone = Auditor(QuoteReader(), cache=cache).audit(citations[1:], DOCS)
    assert alone.results[0].outcome is report.results[1].outcome  # as judged alone


def test_the_same_request_twice_is_still_one_model_call() -> None:
    quote = "improves accuracy by 4.2%"
    twice = [Citation("It is better.", "d", quote), Citation("It is better.", "d", quote)]
    judge = QuoteReader()
    report = Auditor(judge, cache=False).audit(twice, DOCS)
    assert [r.outcome for r in report.results] == [Outcome.SUPPORTS, Outcome.SUPPORTS]
    assert [r.cached for r in report.results] == [False, True] and len(judge.quotes) == 1


def test_a_cached_verdict_is_never_served_for_another_quote_in_a_later_audit() -> None:
    judge = QuoteReader()
    auditor = Auditor(judge)
    citations = extract_citations(ANSWER)
    auditor.audit(citations[:1], DOCS)
    later = auditor.audit(citations[1:], DOCS).results[0]
    assert (later.outcome, later.cached) == (Outcome.CONTRADICTS, False)


texts = st.text(alphabet="ab .%4", max_size=12)


@given(texts, texts, texts, texts, texts, texts)
def test_requests_with_one_key_show_the_judge_the_same_prompts(
        claim: str, quote: str, source: str, claim2: str, quote2: str, source2: str) -> None:
    from vcg_otel.audit.cache import verdict_key

    window = WindowConfig()
    one, two = prepare(claim, quote, source, window), prepare(claim2, quote2, source2, window)
    assert isinstance(one, JudgeCall) and isinstance(two, JudgeCall)
    same_key = verdict_key("m", one) == verdict_key("m", two)
    assert same_key == ((one.system, one.user) == (two.system, two.user))
    assert verdict_key("m", one) != verdict_key("other-model", one)


def test_the_key_names_the_prompt_and_a_quoted_request_is_never_a_passage_request() -> None:
    from vcg_otel.audit.cache import verdict_key

    passage = Passage("d", 22, 47, 22, 47, 1.0, "improves accuracy by 4.2%")
    on_passages = prepare_evidence("It is better.", Evidence((passage,), 1.0, 1.0))
    on_quote = prepare("It is better.", "improves accuracy by 4.2%", passage.text,
                       WindowConfig())
    assert isinstance(on_passages, JudgeCall) and isinstance(on_quote, JudgeCall)
    assert verdict_key("m", on_passages)[1] == EVIDENCE_PROMPT_VERSION
    assert verdict_key("m", on_quote)[1] == PROMPT_VERSION
    assert verdict_key("m", on_passages) != verdict_key("m", on_quote)
