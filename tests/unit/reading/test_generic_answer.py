"""The generic reader's own answer shape, read without asking twice what it is.

The registry tells the shape (``{"answer", "citations": [plain dicts of the generic fields]}``,
:func:`vcg_otel.reading.registry.generic_answer`) to let every format reader off; it hands the
list on, and :func:`vcg_otel.reading.generic.generic_answer_citations` reads it without the
walk's questions. The oracle is the walk: the same answer read by
:func:`~vcg_otel.reading.generic.extract_citations` must give the same citations, the same
completeness and leave the budget in the same state, for every budget. Derandomized.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vcg_otel.citation import Citation, plain_citation
from vcg_otel.reading import output
from vcg_otel.reading.generic import _generic
from vcg_otel.reading.output import read_output
from vcg_otel.reading.registry import Recognised, generic_answer
from vcg_otel.reading.walk import Budget, document_id, integer, is_list, text_of

_SETTINGS = settings(derandomize=True, database=None, max_examples=300, deadline=None)


class _Text(str):
    """A ``str`` subclass: read as a text, never trusted to be a plain one."""


_VALUES = st.one_of(st.none(), st.sampled_from(["", "doc-1", "a quote", "x\ny", "7"]),
                    st.builds(_Text, st.sampled_from(["", "doc-2", "q"])),
                    st.integers(-2, 2), st.booleans(), st.just(2 ** 70),
                    st.lists(st.integers(0, 9), max_size=3), st.tuples(st.integers(0, 9),
                                                                       st.booleans()))
_FIELDS = st.sampled_from(["claim", "quote", "doc_id", "document_id", "source_id", "start",
                           "end", "chunk"])
_ITEMS = st.dictionaries(_FIELDS, _VALUES, max_size=8)
_ANSWERS = st.builds(lambda items, answer: {"answer": answer, "citations": items} if answer
                     else {"citations": items},
                     st.lists(_ITEMS, max_size=5), st.sampled_from(["", "It did.", "\"x\" [d]"]))


def _read(answer: dict[str, Any], nodes: int) -> tuple[Any, ...]:
    budget = Budget(nodes=nodes)
    reading = read_output(answer, ({"doc-1": "a quote"},), {}, budget)
    return (reading.citations, reading.completeness, budget.nodes, budget.exhausted,
            [c.key for c in reading.documents.chunks])


def _walked(answer: dict[str, Any], nodes: int) -> tuple[Any, ...]:
    """:func:`_read` with the list not handed on: the walk reads the answer."""
    def without_list(*args: Any) -> Recognised:
        return Recognised(recognised(*args).found)
    recognised: Callable[..., Recognised] = output.recognised
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(output, "recognised", without_list)
        return _read(answer, nodes)


@_SETTINGS
@given(_ANSWERS, st.integers(0, 12))
def test_a_generic_answer_reads_as_the_walk_reads_it(answer: dict[str, Any],
                                                     nodes: int) -> None:
    assert generic_answer(answer) is answer["citations"]
    assert _read(answer, nodes) == _walked(answer, nodes)


def test_the_benchmark_answer_reads_as_the_walk_reads_it_at_every_budget() -> None:
    items = [{"claim": f"claim {i}", "quote": f"quote {i}", "doc_id": f"doc-{i}"}
             for i in range(5)]
    answer = {"answer": "...", "citations": items}
    for nodes in range(30):
        assert _read(answer, nodes) == _walked(answer, nodes), nodes
    assert [c.quote for c in _read(answer, 100)[0]] == [f"quote {i}" for i in range(5)]


def _generic_before(item: dict[str, Any]) -> Citation | None:
    """The generic item reader as it was (each text through :func:`text_of`): the oracle."""
    read = item.get
    quote = text_of(read("quote"))
    raw = None
    for key in ("doc_id", "document_id", "source_id"):
        raw = read(key)
        if raw is not None:
            break
    if quote is None and raw is None:
        return None
    start, end, chunk = read("start"), read("end"), read("chunk")
    if start is not None or end is not None:
        start, end = integer(start), integer(end)
    chunk_pair = None
    if chunk is not None and is_list(chunk) and len(chunk) == 2 and all(
            integer(x) is not None for x in chunk):
        chunk_pair = (chunk[0], chunk[1])
    claim = text_of(read("claim")) or ""
    return plain_citation(claim, None if raw is None else document_id(raw), quote, start, end,
                          chunk_pair)


@_SETTINGS
@given(_ITEMS)
def test_an_item_reads_as_before_aliases_in_the_same_order(item: dict[str, Any]) -> None:
    mine, before = _generic(item, item.get), _generic_before(item)
    assert mine == before
    if mine is not None:
        assert [type(v) for v in (mine.claim, mine.quote, mine.document_id)] == [
            type(v) for v in (before.claim, before.quote, before.document_id)]  # type: ignore[union-attr]


def test_the_first_document_alias_present_names_the_document() -> None:
    item = {"source_id": "s", "document_id": "d", "doc_id": None, "quote": "q"}
    assert _generic(item, item.get) == Citation("", "d", "q")
    item["doc_id"] = "i"
    assert _generic(item, item.get) == Citation("", "i", "q")
