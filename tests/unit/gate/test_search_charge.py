"""SearchBudget.charge: one call that leaves a budget exactly as the spends it stands for."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from vcg_otel.gate.search import SearchBudget, SearchLimitReached


class _Deadline:
    """Counts its looks; expired from the ``after``-th look on."""

    def __init__(self, after: int) -> None:
        self.after = after
        self.looks = 0

    def expired(self) -> bool:
        self.looks += 1
        return self.looks >= self.after


def _budget(limit: int, used: int, next_look: int, after: int | None) -> SearchBudget:
    budget = SearchBudget(limit, None if after is None else _Deadline(after))
    budget.used, budget.next_look = used, next_look
    return budget


def _state(budget: SearchBudget, raised: bool) -> tuple[int, int, int, bool]:
    looks = budget.deadline.looks if isinstance(budget.deadline, _Deadline) else -1
    return budget.used, budget.next_look, looks, raised


@settings(derandomize=True, database=None, max_examples=2000, deadline=None)
@given(limit=st.integers(1, 40), used=st.integers(0, 45), next_look=st.integers(0, 50),
       after=st.none() | st.integers(1, 3), steps=st.integers(0, 4), scans=st.integers(0, 3),
       chars=st.sampled_from([0, 100, 65535, 65536, 70_000, 200_000, 10**6]))
def test_a_charge_leaves_the_budget_as_its_spends_would(
        limit: int, used: int, next_look: int, after: int | None, steps: int, scans: int,
        chars: int) -> None:
    at_once = _budget(limit, used, next_look, after)
    one_by_one = _budget(limit, used, next_look, after)
    try:
        at_once.charge(steps, scans, chars)
        raised = False
    except SearchLimitReached:
        raised = True
    try:
        one_by_one.spend(steps)
        for _ in range(scans):
            one_by_one.scan(chars)
        raised_too = False
    except SearchLimitReached:
        raised_too = True
    assert _state(at_once, raised) == _state(one_by_one, raised_too)
