"""Plain dicts read without the walk, and the chunks of several sources gathered, as the walk
gathers them.

:meth:`vcg_otel.documents.DocumentSet.from_sources` reads a source whose type is exactly
``dict`` without walking it when the walk would go into none of its values: a mapping of id
to text, or a dict holding no document (an app's answer: ``{"answer", "citations"}``). The
first plain dict's chunks are kept shared until another source adds to them. The oracle is
the walk itself: a read-only view of the same dict (``MappingProxyType``) is walked; both
must give the same chunks and leave the budget in the same state, whatever the budget.
Derandomized: the same examples on every run.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from vcg_otel.documents import DocumentSet
from vcg_otel.reading.walk import Budget

_SETTINGS = settings(derandomize=True, database=None, max_examples=400, deadline=None)

_TEXTS = st.sampled_from(["The committee approved the budget.", "Rates fell 3% in May.", ""])
_KEYS = st.sampled_from(["doc-1", "doc-2", "answer", "citations", "documents", "docs",
                         "context", "sources", "source_nodes", "answers", "text", "id", "x"])
_LEAVES = st.one_of(st.none(), _TEXTS, st.integers(-2, 2), st.booleans(), st.floats(0, 1),
                    st.just(b"bytes"))
_DOCUMENTS = st.one_of(st.dictionaries(st.sampled_from(["d1", "d2"]), _TEXTS, max_size=2),
                       st.lists(_TEXTS, max_size=2),
                       st.lists(st.fixed_dictionaries({"id": st.sampled_from(["a", "b"]),
                                                       "text": _TEXTS}), max_size=2))
_VALUES = st.one_of(_LEAVES, _DOCUMENTS, st.tuples(_TEXTS),
                    st.lists(st.fixed_dictionaries({"quote": _TEXTS}), max_size=2),
                    st.dictionaries(_KEYS, st.one_of(_LEAVES, _DOCUMENTS), max_size=2))
_DICTS = st.dictionaries(_KEYS, _VALUES, max_size=4)


def _viewed(source: Any) -> Any:
    """``source`` as the walk reads it: a plain dict (its own values too) as a read-only view,
    which is read through the walk, never as a plain dict."""
    if type(source) is dict:
        return MappingProxyType({k: _viewed(v) for k, v in source.items()})
    if type(source) is list:
        return [_viewed(v) for v in source]
    return source


def _read(sources: list[Any], nodes: int) -> tuple[list[tuple[Any, ...]], int, str | None]:
    budget = Budget(nodes=nodes)
    documents = DocumentSet.from_sources(*sources, budget=budget)
    chunks = [(c.key, c.text, c.position, c.names) for c in documents.chunks]
    return chunks, budget.nodes, budget.exhausted


@_SETTINGS
@given(_DICTS, st.integers(0, 30))
def test_a_plain_dict_reads_as_the_walk_reads_it(source: dict[str, Any], nodes: int) -> None:
    assert _read([source], nodes) == _read([_viewed(source)], nodes)


@_SETTINGS
@given(st.lists(st.one_of(_DICTS, _DOCUMENTS), min_size=1, max_size=4), st.integers(0, 40))
def test_the_chunks_of_several_sources_are_gathered_as_the_walk_gathers_them(
        sources: list[Any], nodes: int) -> None:
    assert _read(sources, nodes) == _read([_viewed(s) for s in sources], nodes)


def test_an_answer_holding_no_document_is_charged_and_adds_nothing() -> None:
    documents = {"doc-1": "The committee approved the budget.", "doc-2": "Rates fell 3% in May."}
    answer = {"answer": "It did.", "citations": [{"quote": "approved", "doc_id": "doc-1"}]}
    for _ in range(2):  # the second time, the dict's remembered chunks
        assert _read([documents, answer], 100) == _read([_viewed(documents), _viewed(answer)],
                                                        100)
        chunks, nodes, exhausted = _read([documents, answer], 100)
        assert [key for key, *_ in chunks] == ["doc-1", "doc-2"]
        assert (nodes, exhausted) == (100 - 3 - 3, None)


def test_the_shared_chunks_of_a_dict_are_copied_before_another_source_adds_to_them() -> None:
    documents = {"doc-1": "The committee approved the budget.", "doc-2": "Rates fell 3% in May."}
    alone = _read([documents], 100)
    more = _read([documents, ["Another text."], {"doc-3": "A third one."}], 100)
    assert [key for key, *_ in more[0]] == ["doc-1", "doc-2", "0", "doc-3"]
    assert _read([documents], 100) == alone  # the shared chunks were not changed
    assert DocumentSet.from_sources(documents).chunks == DocumentSet.from_sources(
        MappingProxyType(documents)).chunks
