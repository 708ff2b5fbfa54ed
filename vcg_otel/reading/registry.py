"""The format readers, in the order they are tried, and where in a result they look.

Each reader recognises its shape only by the fields that define it, so the order matters only
where one shape contains another's fields: Azure On Your Data is a Chat Completion with a
``context`` (before OpenAI), Perplexity a Chat Completion with top-level ``citations`` (before
OpenAI), Mistral's reference chunks a Chat Completion whose content is a list.

A result that no reader recognises at its top is looked into one level down, under the keys
frameworks and apps wrap answers in (``answer``, ``response``, ``output``, ``result``,
``raw``... — a handler returning ``{"response": message, "documents": docs}``), at most
:data:`MAX_WRAPPING` levels. Nothing recognised: ``None``, and the generic reader runs.

The generic reader's own answer shape (``{"answer", "citations": [{"claim", "quote",
"doc_id"}, ...]}``, :func:`generic_answer`) is one that every reader declines: it is told by
its keys, and no reader is asked (nor the budget charged less than their reads would cost);
when nothing it wraps is recognised either, its list is handed to the generic reader
(:func:`recognised`), which then reads it without asking again what it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from .base import Format, Found
from .formats import (
    anthropic,
    azure,
    bedrock,
    cohere,
    gemini,
    langchain,
    llamaindex,
    mistral,
    openai,
    perplexity,
)
from .walk import charge, get

__all__ = ["FORMATS", "MAX_WRAPPING", "Recognised", "recognise", "recognised"]

#: Every format reader, in the order tried.
FORMATS: tuple[Format, ...] = (anthropic, cohere, azure, perplexity, mistral, openai, gemini,
                               bedrock, langchain, llamaindex)
#: Keys under which apps and frameworks wrap a provider's response.
WRAPPERS = ("response", "answer", "output", "result", "raw_response", "completion", "message")
#: How many wrapping levels are looked into.
MAX_WRAPPING = 2
_SCALARS = (str, bytes, int, float, bool, type(None))
_UNRECOGNISED = (*_SCALARS, list, tuple)  # no reader's shape is one of these


def _key_bits() -> dict[str, int]:
    """For each key some reader recognises a mapping by, a bit for every reader that does
    (its place in :data:`FORMATS`); for each of the :data:`WRAPPERS`, a bit of its own (its
    place in them, after the readers')."""
    bits: dict[str, int] = {}
    for place, reader in enumerate(FORMATS):
        for key in reader.keys:
            bits[key] = bits.get(key, 0) | 1 << place
    for place, key in enumerate(WRAPPERS, len(FORMATS)):
        bits[key] = bits.get(key, 0) | 1 << place
    return bits


_BITS = _key_bits()
# What a plain dict is asked for each set of bits its keys made so far: the readers that look
# at it, in FORMATS order, and the wrapper keys it has, in WRAPPERS order. A dict with a few
# keys finds them without asking each reader or looking up each wrapper key.
_ASKED: dict[int, tuple[tuple[Format, ...], tuple[str, ...]]] = {}
_FEW_KEYS = 8


def _asked(keys: Any) -> tuple[tuple[Format, ...], tuple[str, ...]]:
    """The readers whose keys a plain dict with ``keys`` (at most :data:`_FEW_KEYS`) has, and
    the :data:`WRAPPERS` among its keys."""
    bits = 0
    for key in keys:
        bits |= _BITS.get(key, 0)
    asked = _ASKED.get(bits)
    if asked is None:
        asked = _ASKED[bits] = (
            tuple(r for i, r in enumerate(FORMATS) if bits >> i & 1),
            tuple(k for i, k in enumerate(WRAPPERS, len(FORMATS)) if bits >> i & 1))
    return asked


#: The keys of the generic reader's own answer shape, and the fields of its citation dicts
#: (:func:`vcg_otel.reading.generic.citations_from_item`).
_GENERIC_ANSWER = frozenset({"answer", "citations"})
_GENERIC_FIELDS = frozenset({"claim", "quote", "doc_id", "document_id", "source_id", "start",
                             "end", "chunk"})


def generic_answer(result: dict[Any, Any]) -> list[Any] | None:
    """The ``citations`` of ``result`` when it is the generic reader's own answer shape: no
    key but ``answer`` and ``citations``, a list of plain dicts with no key but the generic
    citation fields. Every reader whose keys it has declines it having read that list once
    through :func:`~vcg_otel.reading.walk.listed` (Cohere looks for ``document_ids`` or
    ``sources``, Bedrock for ``retrievedReferences`` or ``generatedResponsePart``, LangChain
    for integer citations): tests/unit/reading/test_registry.py holds each reader to it."""
    if not result.keys() <= _GENERIC_ANSWER:
        return None
    cited = result.get("citations")
    if type(cited) is not list:
        return None
    for item in cited:
        if type(item) is not dict or not _GENERIC_FIELDS.issuperset(item):
            return None
    return cited


def recognise(result: Any, arguments: Mapping[str, Any], depth: int = 0) -> Found | None:
    """The first format that recognises ``result`` (or what it wraps), else ``None``."""
    return recognised(result, arguments, depth).found


class Recognised(NamedTuple):
    """What :func:`recognised` found: the format's reading, else (``found`` ``None``), when
    the result is the generic reader's own answer shape, its ``citations`` list (plain dicts
    of the generic citation fields, :func:`generic_answer`), so that the generic reader
    reads them without asking again what they are."""

    found: Found | None
    generic: list[Any] | None = None


_NOT_RECOGNISED = Recognised(None)


def recognised(result: Any, arguments: Mapping[str, Any], depth: int = 0) -> Recognised:
    """:func:`recognise`, with the generic answer's citations when no format recognised
    ``result`` (nor what it wraps)."""
    plain = type(result) is dict  # most results: told without the abstract-class checks
    if (not plain and isinstance(result, _UNRECOGNISED)) or not charge(1):
        return _NOT_RECOGNISED
    present = result.keys() if plain or isinstance(result, Mapping) else None
    few = plain and len(result) <= _FEW_KEYS  # a dict: as many keys as ``present``
    readers, wrappers = _asked(present) if few else (FORMATS, WRAPPERS)
    cited = generic_answer(result) if few else None
    if cited is not None:  # every reader declines it: charged what their reads of it cost
        if cited:
            charge(len(readers) * len(cited))
        readers = ()
    for reader in readers:
        if not few and present is not None and present.isdisjoint(reader.keys):
            continue  # a plain mapping: only the readers whose keys it has look at it
        found = reader.read(result, arguments)
        if found is not None:
            return Recognised(found)
    if depth >= MAX_WRAPPING:
        return _NOT_RECOGNISED if cited is None else Recognised(None, cited)
    for key in wrappers:
        if present is not None and key not in present:
            continue
        inner = result.get(key) if plain else get(result, key)  # a dict's read: no call
        # what :func:`recognised` turns away at once (uncharged) is not asked: the answer
        # text a wrapper key usually holds
        if inner is not None and inner is not result and not isinstance(inner, _UNRECOGNISED):
            found = recognise(inner, arguments, depth + 1)
            if found is not None:
                found.result_documents = True  # the wrapper may carry the app's documents
                return Recognised(found)
    return _NOT_RECOGNISED if cited is None else Recognised(None, cited)
