"""One audit's gate work is bounded as a whole, and a search cut short is never counted as a
fabrication (issue 10: the host never waits; a false fabrication is the worst error)."""

from __future__ import annotations

from typing import Any

import pytest
from cases import COMMON_WORDS, common_words_docs  # the benchmark's documents

from vcg_otel.audit import Auditor, Citation, Outcome
from vcg_otel.audit import auditor as auditor_module
from vcg_otel.audit.auditor import AUDIT_SEARCH_STEPS
from vcg_otel.documents import DocumentSet
from vcg_otel.gate import Corpus, DocumentCache, NotFoundReason, SearchBudget
from vcg_otel.gate.search import DEFAULT_SEARCH_STEPS

# "wit" occurs in every document only inside "with": every chain of pieces fails at its end,
# so each such quote spends its whole budget without showing it absent.
_UNFINISHABLE = " \u2026 ".join(COMMON_WORDS[:10]) + " \u2026 wit"


def _corpus() -> Corpus:
    return Corpus(common_words_docs(50, seed=3), cache=DocumentCache())


def test_a_search_cut_short_is_unverifiable_never_a_fabrication() -> None:
    report = Auditor().audit([Citation("c", "d0", _UNFINISHABLE)], _corpus())
    (result,) = report.results
    assert result.gate is not None and result.gate.reason is NotFoundReason.SEARCH_LIMIT
    assert result.outcome is Outcome.UNVERIFIABLE and not result.outcome.is_fabricated
    assert result.judge_skipped == "search_limit"
    assert report.counts == {"unverifiable": 1}


def test_one_audit_spends_at_most_its_budget_then_stops_searching(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    budgets: list[SearchBudget] = []

    class Recorded(SearchBudget):
        def __init__(self, steps: int = DEFAULT_SEARCH_STEPS, deadline: Any = None) -> None:
            super().__init__(steps, deadline)
            budgets.append(self)

    monkeypatch.setattr(auditor_module, "SearchBudget", Recorded)
    corpus = _corpus()
    honest = corpus.text("d7")[:60].rsplit(" ", 1)[0]
    many = 3 * (AUDIT_SEARCH_STEPS // DEFAULT_SEARCH_STEPS)
    citations = [Citation("c", "d0", _UNFINISHABLE) for _ in range(many)]
    citations.append(Citation("c", "d7", honest))
    report = Auditor().audit(citations, corpus)
    # The whole audit's work stays within its budget (plus what one step can overshoot per
    # citation), however many unfinishable quotes the answer holds.
    assert sum(b.used for b in budgets) <= AUDIT_SEARCH_STEPS + 2 * 4096 * len(citations)
    assert sum(b.limit for b in budgets) <= AUDIT_SEARCH_STEPS + len(citations)
    # None of it is reported as a fabrication: cut short is unverifiable, and the honest
    # quote is found (a trivial search still fits in a spent audit's last step) or, at worst,
    # unverifiable -- never not_found.
    assert not any(r.outcome.is_fabricated for r in report.results)
    assert {r.outcome for r in report.results[:-1]} == {Outcome.UNVERIFIABLE}
    assert report.results[-1].outcome in (Outcome.FOUND, Outcome.UNVERIFIABLE)


def test_a_chunk_group_search_cut_short_is_unverifiable_not_an_exception() -> None:
    chunks = [{"id": f"c{i}", "text": text, "metadata": {"source": "manual.pdf"}}
              for i, text in enumerate(common_words_docs(30, seed=5).values())]
    documents = DocumentSet.from_sources(chunks)
    report = Auditor().audit([Citation("c", "manual.pdf", _UNFINISHABLE)], documents)
    (result,) = report.results
    assert result.outcome is Outcome.UNVERIFIABLE
    assert result.gate is not None and result.gate.reason is NotFoundReason.SEARCH_LIMIT
