"""One rule per concept: "fabricated" and "inconsistent" on Outcome / AuditReport, and the
judge the environment names, shared by every front end."""

from __future__ import annotations

import pytest

from vcg_otel import Auditor, Citation, Outcome
from vcg_otel.llm import LiteLLMJudge, judge_from_env, judge_model_from_env

DOCS = {"a": "The cat sat on the mat.", "b": "Dogs bark at night."}
CITES = [
    Citation("cat", "a", "The cat sat on the mat"),  # found
    Citation("dog", "a", "Dogs bark at night"),  # misattributed (only in b)
    Citation("bird", "a", "Birds sing at dawn"),  # not_found
]


def test_fabricated_covers_not_found_and_misattributed_and_no_judged_or_found_outcome() -> None:
    assert Outcome.NOT_FOUND.is_fabricated and Outcome.MISATTRIBUTED.is_fabricated
    honest = {Outcome.SUPPORTS, Outcome.PARTIAL, Outcome.UNRELATED, Outcome.CONTRADICTS,
              Outcome.FOUND, Outcome.UNJUDGED, Outcome.UNVERIFIABLE}
    assert not any(o.is_fabricated for o in honest)
    assert Outcome.fabricated() == {o for o in Outcome if o.is_fabricated}


@pytest.mark.parametrize("lenient", [False, True])
def test_fabricated_ignores_misattributed_is_consistent_while_inconsistent_honours_it(
        lenient: bool) -> None:
    report = Auditor(misattributed_is_consistent=lenient).audit(CITES, DOCS)
    assert [r.outcome for r in report.results] == [
        Outcome.FOUND, Outcome.MISATTRIBUTED, Outcome.NOT_FOUND]
    assert [r.index for r in report.fabricated] == [1, 2]
    assert [r.index for r in report.inconsistent] == ([2] if lenient else [1, 2])


def test_judge_from_env_reads_vcg_judge_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VCG_JUDGE_MODEL", raising=False)
    assert judge_from_env() is None
    assert judge_model_from_env() is None
    monkeypatch.setenv("VCG_JUDGE_MODEL", "")
    assert judge_from_env() is None
    monkeypatch.setenv("VCG_JUDGE_MODEL", "openai/from-env")
    judge = judge_from_env()
    assert isinstance(judge, LiteLLMJudge) and judge.model == "openai/from-env"
    explicit = judge_from_env("openai/explicit")
    assert explicit is not None and explicit.model == "openai/explicit"
