"""``Budget.taken(n)``: ``n`` takes in a row, made at once, leave the budget as the ``n`` calls
would (the nodes spent, why it ran out) and say how many succeeded."""

from __future__ import annotations

from vcg_otel.reading.walk import Budget


def _one_by_one(budget: Budget, n: int) -> int:
    for i in range(n):
        if not budget.take():
            return i
    return n


def _state(budget: Budget) -> tuple[int, str | None]:
    return budget.nodes, budget.exhausted


def test_taken_is_n_takes_in_a_row_for_every_budget() -> None:
    for nodes in range(10):
        for n in range(9):
            mine, theirs = Budget(nodes=nodes), Budget(nodes=nodes)
            assert (mine.taken(n), _state(mine)) == (_one_by_one(theirs, n), _state(theirs))


def test_a_spent_budget_takes_nothing() -> None:
    budget = Budget(nodes=0)
    assert not budget.take()
    assert budget.taken(3) == 0
    assert _state(budget) == (-1, "nodes")


def test_time_up_takes_nothing() -> None:
    budget = Budget(seconds=-1.0)
    assert budget.taken(3) == 0
    assert budget.exhausted == "seconds"
