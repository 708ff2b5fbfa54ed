"""OpenAI: the Responses API, Chat Completions (web search) and Assistants messages.

Recognised by their documented shapes:

* Responses: ``output`` items typed ``message`` (``content`` of ``output_text`` parts with
  ``annotations``) and ``file_search_call`` (``results`` when requested with ``include``);
* Chat Completions: ``choices[].message`` with ``annotations`` (``url_citation`` from the
  search models) and a ``content`` string;
* Assistants: ``content`` parts ``{"type": "text", "text": {"value", "annotations"}}``.

Annotations are quote-less citations (an Assistants v1 ``file_citation.quote`` is a quote):
``file_citation`` names ``file_id`` (then ``filename``), ``container_file_citation`` the same,
``url_citation`` its ``url`` (then ``title``). The claim is the sentence or clause carrying the
annotation (its ``start_index``/``end_index`` span, or the Responses ``index``). Documents:
``file_search_call.results`` (``file_id``, ``filename``, ``text``). A URL cited without its
page text is unverifiable unless the app holds the page under its URL.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...citation import Citation
from ...markers import Marker, claims_for
from ..base import Found, document
from ..walk import document_id, get, integer, listed, text_of

name = "openai"
#: A mapping with none of these keys is not this shape (checked before reading it).
keys = frozenset({"output", "choices", "content"})
_FILE_KINDS = frozenset({"file_citation", "container_file_citation"})


def _parts(obj: Any) -> list[tuple[str, Any]] | None:
    """``(text, annotations)`` of every text part of a recognised response, else ``None``."""
    output = listed(get(obj, "output"))
    if output and any(get(i, "type") in ("message", "file_search_call") for i in output):
        parts = []
        for item in output:
            if get(item, "type") == "message":
                for part in listed(get(item, "content")):
                    if get(part, "type") == "output_text":
                        parts.append((text_of(get(part, "text")) or "", get(part, "annotations")))
        return parts
    choices = listed(get(obj, "choices"))
    if choices and get(get(choices[0], "message"), "annotations") is not None:
        return [(text_of(get(get(c, "message"), "content")) or "",
                 get(get(c, "message"), "annotations")) for c in choices]
    content = listed(get(obj, "content"))
    if content and any(get(p, "type") == "text" and get(get(p, "text"), "value") is not None
                       for p in content):
        return [(text_of(get(get(p, "text"), "value")) or "", get(get(p, "text"), "annotations"))
                for p in content if get(p, "type") == "text"]
    return None


def _documents(obj: Any, found: Found) -> None:
    for item in listed(get(obj, "output")):
        if get(item, "type") != "file_search_call":
            continue
        for result in listed(get(item, "results")):
            found.documents.append(document(document_id(get(result, "file_id")),
                                            text_of(get(result, "text")),
                                            source=text_of(get(result, "filename"))))


def _annotations(text: str, annotations: Any, found: Found) -> None:
    markers: list[Marker] = []
    others: dict[str, str | None] = {}
    for item in listed(annotations):
        kind = get(item, "type")
        if kind in _FILE_KINDS:
            inner = get(item, kind) or item  # Assistants nest {"file_citation": {...}}
            ident = document_id(get(inner, "file_id")) or document_id(get(item, "file_id"))
            other = document_id(get(item, "filename"))
            quote = text_of(get(inner, "quote"))
            if quote is not None:  # Assistants v1: the quoted passage
                found.cite(Citation(text, ident or other, quote), other)
                continue
        elif kind == "url_citation":
            inner = get(item, "url_citation") or item  # Chat Completions nest it
            ident = document_id(get(inner, "url"))
            other = document_id(get(inner, "title"))
            if ident is not None:
                found.textless.add(ident)
            item = inner
        else:
            continue
        source = ident or other
        if source is None:
            found.cite(Citation(text, None, None))
            continue
        start, end = integer(get(item, "start_index")), integer(get(item, "end_index"))
        if start is None or end is None:
            start = end = integer(get(item, "index"))
        if start is None or end is None or not 0 <= start <= end <= len(text):
            found.cite(Citation(text, source, None), other)
            continue
        others[source] = other
        markers.append(Marker(start, end, source, source, "id"))
    for claim in claims_for(text, markers):
        found.cite(claim.citation, others.get(claim.marker.source))


def read(obj: Any, arguments: Mapping[str, Any]) -> Found | None:
    parts = _parts(obj)
    if parts is None:
        return None
    found = Found(name)
    _documents(obj, found)
    from ..text import text_citations

    for text, marks in parts:
        if listed(marks):
            _annotations(text, marks, found)
        else:
            for c in text_citations(text):
                found.cite(c)
    return found
