"""``call_arguments`` binds a plain signature (no ``*args``, ``**kwargs`` or positional-only
parameter) without ``inspect``: the same arguments, in the same order, as
``Signature.bind_partial`` + ``apply_defaults``, and just the keywords wherever binding
raises."""

from __future__ import annotations

import inspect
import itertools
from collections.abc import Callable
from typing import Any

import pytest

from vcg_otel.reading.generic import call_arguments


def _inspected(signature: inspect.Signature, args: tuple[Any, ...],
               kwargs: dict[str, Any]) -> dict[str, Any]:
    try:
        bound = signature.bind_partial(*args, **kwargs)
    except TypeError:
        return dict(kwargs)
    bound.apply_defaults()
    return dict(bound.arguments)


def one(documents): ...  # type: ignore[no-untyped-def]
def defaults(query, documents=None, *, k=3, docs=[]): ...  # type: ignore[no-untyped-def]  # noqa: B006
def keyword_only(a, b, c=1, d=2, *, e, f=5): ...  # type: ignore[no-untyped-def]
def nothing(): ...  # type: ignore[no-untyped-def]


ARGS = [(), (1,), (1, 2), (1, 2, 3), (1, 2, 3, 4, 5)]
KWARGS = [{}, {"documents": 5}, {"query": 1}, {"k": 4, "docs": 2}, {"e": 1, "f": 0},
          {"b": 2}, {"a": 1, "b": 2}, {"unknown": 1}]


@pytest.mark.parametrize("fn", [one, defaults, keyword_only, nothing])
def test_a_plain_signature_binds_as_inspect_binds_it(fn: Callable[..., Any]) -> None:
    signature = inspect.signature(fn)
    for args, kwargs in itertools.product(ARGS, KWARGS):
        got = call_arguments(signature, args, kwargs)
        expected = _inspected(signature, args, kwargs)
        assert list(got.items()) == list(expected.items()), (args, kwargs)
