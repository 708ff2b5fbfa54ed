"""``call_binder(signature)`` is ``call_arguments`` of that signature with what it works out
of the signature done once (the decorator binds every call of one function): the same
arguments, in the same order, for plain signatures, ``*args``/``**kwargs`` ones and none;
and ``read_output`` given the bound ``arguments=`` reads as it does binding them itself."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import pytest

from vcg_otel.reading.generic import call_arguments, call_binder
from vcg_otel.reading.output import read_output
from vcg_otel.reading.walk import Budget


def plain(query, documents=None, *, k=3): ...  # type: ignore[no-untyped-def]
def variadic(*args, documents=None, **kwargs): ...  # type: ignore[no-untyped-def]
def positional_only(documents, /, query=""): ...  # type: ignore[no-untyped-def]


ARGS = [(), ("q",), ("q", {"d": "text"}), ("q", 1, 2, 3)]
KWARGS = [{}, {"documents": {"d": "text"}}, {"k": 4}, {"unknown": 1}, {"query": "q"}]


@pytest.mark.parametrize("fn", [plain, variadic, positional_only, None])
def test_a_binder_binds_as_call_arguments(fn: Callable[..., Any] | None) -> None:
    signature = inspect.signature(fn) if fn is not None else None
    bind = call_binder(signature)
    for args in ARGS:
        for kwargs in KWARGS:
            expected = call_arguments(signature, args, kwargs)
            got = bind(args, kwargs)
            assert got == expected and list(got) == list(expected), (args, kwargs)


def test_read_output_with_bound_arguments_reads_as_it_binds_them() -> None:
    signature = inspect.signature(plain)
    answer = {"answer": "...", "citations": [{"claim": "c", "quote": "a quote", "doc_id": "d"}]}
    for args, kwargs in [(("q", {"d": "a quote here"}), {}), (("q",), {"documents": ["x"]}),
                         (("q",), {})]:
        readings = []
        for bound in (False, True):
            budget = Budget()
            reading = (read_output(answer, budget=budget,
                                   arguments=call_binder(signature)(args, kwargs)) if bound
                       else read_output(answer, args, kwargs, budget, signature=signature))
            readings.append((reading.citations, reading.completeness, budget.nodes,
                             [(c.key, c.text) for c in reading.documents.chunks]))
        assert readings[0] == readings[1], (args, kwargs)
