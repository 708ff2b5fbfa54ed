"""The gate's answers made at once by a caller's makers (a document set's ResolvedMatch) are
the answers the gate's own GateMatch would become, field by field."""

from __future__ import annotations

import dataclasses

import pytest

from vcg_otel.citation import Citation
from vcg_otel.documents import DocumentSet, ResolvedMatch
from vcg_otel.gate import GateMatch, GateResult, NotFoundReason, SearchBudget, quote_gate
from vcg_otel.gate.result import LazyDiagnosis, RejectionKind

DOCS = {
    "a": "The model improves recall on long documents, as the ablation shows.",
    "b": "Retrieval quality degrades sharply when chunks are split mid-sentence.",
}


def test_rejected_builds_what_the_constructor_builds() -> None:
    diagnosis = LazyDiagnosis.known(RejectionKind.INVENTED, None)
    quick = GateMatch.rejected("a", diagnosis)
    full = GateMatch(GateResult.NOT_FOUND, "a", reason=NotFoundReason.NO_MATCH,
                     diagnosis=diagnosis)
    assert type(quick) is GateMatch
    for field in dataclasses.fields(GateMatch):
        assert getattr(quick, field.name) is getattr(full, field.name), field.name
    with pytest.raises(dataclasses.FrozenInstanceError):
        quick.reason = None  # type: ignore[misc]


@pytest.mark.parametrize(("quote", "cited"), [
    ("improves recall on long documents", "a"),  # found, fast path
    ("improves recall, on long documents", "a"),  # found with a slip: the full path
    ("degrades sharply when chunks are split", "a"),  # misattributed
    ("this sentence appears in no document", "a"),  # rejected: no_match
    ("this sentence appears in no document", "b"),  # the same identifier's makers again
])
def test_a_document_set_answers_as_the_plain_gate(quote: str, cited: str) -> None:
    docs = DocumentSet.from_sources(DOCS)
    budget = SearchBudget()
    match = docs.gate(Citation(claim="c", quote=quote, document_id=cited), budget=budget)
    plain_budget = SearchBudget()
    plain = quote_gate(quote, cited, DOCS, budget=plain_budget)
    assert type(match) is ResolvedMatch
    for field in dataclasses.fields(GateMatch):
        if field.name != "diagnosis":
            assert getattr(match, field.name) == getattr(plain, field.name), field.name
    assert (match.rejection, match.closest) == (plain.rejection, plain.closest)
    assert (budget.used, match.resolution, match.group) == (plain_budget.used, "id", (cited,))
