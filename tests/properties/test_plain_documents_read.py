"""A plain ``dict`` of id to text is read into the same document set as the general walk reads.

:meth:`vcg_otel.documents.DocumentSet.from_sources` reads a source whose type is exactly
``dict`` (the usual ``documents`` argument) in one loop instead of through the walk's
generators. The walk still reads every other mapping, so a read-only view of the same dict
(``MappingProxyType``) is the oracle: both must give the same chunks (keys, texts, names,
positions) and leave the reading budget in the same state, for any keys (ids that are no
identifier, keys that say the mapping is no document), any values (strings or not), and budgets
that run out before, at and after the dict. Derandomized: the same examples on every run.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from vcg_otel.documents import DocumentSet
from vcg_otel.reading.walk import Budget

_SETTINGS = settings(derandomize=True, database=None, max_examples=500, deadline=None)

_KEYS = st.one_of(
    st.sampled_from(["doc-1", "doc-2", "a.md", "docs/b.txt", "3", "0", " [7] ", "", "x\ny",
                     "answer", "id", "text", "title", "documents", "answers", "query"]),
    st.text(max_size=12),
    st.integers(-3, 300),
)
_VALUES = st.one_of(
    st.text(max_size=60),
    st.sampled_from(["The committee approved the budget.", "Rates fell 3% in May."]),
)
_ODD_VALUES = st.one_of(_VALUES, st.none(), st.integers(), st.lists(_VALUES, max_size=2),
                        st.dictionaries(st.sampled_from(["documents", "text"]), _VALUES,
                                        max_size=2))


def _read(source: Any, nodes: int) -> tuple[list[tuple[Any, ...]], int, str | None]:
    budget = Budget(nodes=nodes)
    documents = DocumentSet.from_sources(source, budget=budget)
    chunks = [(c.key, c.text, c.position, c.names) for c in documents.chunks]
    return chunks, budget.nodes, budget.exhausted


@_SETTINGS
@given(st.dictionaries(_KEYS, _VALUES, max_size=8), st.integers(0, 12))
def test_a_plain_dict_of_texts_reads_as_the_walk_reads_it(source: dict[Any, str],
                                                          nodes: int) -> None:
    assert _read(source, nodes) == _read(MappingProxyType(source), nodes)


@_SETTINGS
@given(st.dictionaries(_KEYS, _ODD_VALUES, max_size=6), st.integers(0, 40))
def test_a_dict_holding_other_values_reads_as_the_walk_reads_it(source: dict[Any, Any],
                                                                nodes: int) -> None:
    assert _read(source, nodes) == _read(MappingProxyType(source), nodes)


def test_the_same_dict_read_twice_gives_the_same_documents() -> None:
    source = {"doc-1": "The committee approved the budget.", "doc-2": "Rates fell 3% in May."}
    first, second = _read(source, 100), _read(source, 100)
    assert first == second
    assert [key for key, *_ in first[0]] == ["doc-1", "doc-2"]
