"""The registry asks a plain dict with a few keys only the readers whose keys it has, found
from its keys at once: the same readers, in the same order, as asking each reader; and none
of them for the generic reader's own answer shape, which they all decline."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from vcg_otel.reading import registry
from vcg_otel.reading.registry import FORMATS, _asked, generic_answer, recognise
from vcg_otel.reading.walk import MAX_NODES, Budget, charging


def test_the_readers_of_a_few_keys_are_those_whose_keys_they_meet_in_order() -> None:
    keys = sorted({k for reader in FORMATS for k in reader.keys} | {"answer", "other"})
    for size in range(4):
        for chosen in itertools.combinations(keys, size):
            expected = tuple(r for r in FORMATS if not r.keys.isdisjoint(chosen))
            assert _asked(dict.fromkeys(chosen).keys())[0] == expected, chosen


_GENERIC_ITEMS = [{}, {"claim": "c", "quote": "q", "doc_id": "d"}, {"quote": "q", "document_id": 3},
                  {"source_id": "s", "start": 0, "end": 4, "chunk": [0, 9]},
                  {"doc_id": None, "quote": None}]


def test_every_reader_that_looks_at_a_generic_answer_declines_it_after_one_read_of_its_list(
        ) -> None:
    """What lets the registry skip the readers of a generic answer (``generic_answer``):
    each reader whose keys it has declines it, having charged one node per citation."""
    answers = [{"citations": [], "answer": "a"}, {"citations": _GENERIC_ITEMS},
               {"answer": "a", "citations": _GENERIC_ITEMS[1:3]},
               {"answer": {"text": "t"}, "citations": [_GENERIC_ITEMS[0]] * 3}]
    for answer in answers:
        assert generic_answer(answer) is answer["citations"]
        for reader in _asked(answer.keys())[0]:
            budget = Budget()
            with charging(budget):
                assert reader.read(answer, {"documents": ["d"]}) is None, reader.name
            assert budget.nodes == MAX_NODES - len(answer["citations"]), reader.name


def test_a_dict_with_other_keys_or_items_is_no_generic_answer() -> None:
    for answer in [{"citations": [{"claim": "c", "sources": []}]}, {"citations": [1]},
                   {"citations": ({"claim": "c"},)}, {"answer": "a"},
                   {"citations": [], "message": {}}, {"citations": [{"text": "t"}]}]:
        assert generic_answer(answer) is None, answer


@contextmanager
def _no_generic_answers() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(registry, "generic_answer", lambda result: None)
        yield


def test_a_generic_answer_is_recognised_as_the_readers_recognise_it_with_the_same_charges(
        ) -> None:
    cohere_reply = {"text": "t", "citations": [{"start": 0, "end": 1, "text": "t",
                                                "document_ids": ["doc_0"]}]}
    for answer in [{"answer": "a", "citations": _GENERIC_ITEMS},
                   {"answer": cohere_reply, "citations": _GENERIC_ITEMS[:2]}]:
        for nodes in range(20):
            seen = []
            for skip in (True, False):
                budget = Budget(nodes=nodes)
                with charging(budget):
                    if skip:
                        found = recognise(answer, {})
                    else:  # every reader asked, as before the shortcut
                        with _no_generic_answers():
                            found = recognise(answer, {})
                seen.append((None if found is None else (found.format, found.citations),
                             budget.exhausted, budget.nodes if budget.exhausted is None else -1))
            assert seen[0] == seen[1], (answer, nodes)
