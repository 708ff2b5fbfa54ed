"""Anthropic Messages: text blocks with ``citations`` (Citations API, search results, web search).

Recognised by ``type == "message"`` with typed ``content`` blocks. Ids (documented):

* ``char_location`` / ``page_location`` / ``content_block_location``: ``document_index`` is
  the 0-based index of the request's ``document`` blocks (strict: no +-1), ``document_title``
  the block's title; the title is cited first, the index when the title names nothing;
* ``search_result_location``: ``source`` (the search result's own source), then its title,
  then ``search_result_index``;
* ``web_search_result_location``: ``url``; ``cited_text`` is at most ~150 characters and may
  end in ``...`` inside a word (the ellipsis and the cut word are dropped: the gate checks the
  words that were quoted whole). The page's text is not in
  the response (``encrypted_content``): unverifiable unless the app holds it under its URL.

Documents: the request's ``messages`` (when the call's arguments hold them): ``document``
blocks (``source`` of type ``text`` → ``data``; ``content`` → a string or text blocks; PDFs
keep their place, no text) and ``search_result`` blocks (``content`` text blocks).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...citation import Citation
from ..base import Found, document
from ..walk import document_id, get, integer, listed, text_of

name = "anthropic"
#: A mapping with none of these keys is not this shape (checked before reading it).
keys = frozenset({"type"})
_DOCUMENT_LOCATIONS = frozenset({"char_location", "page_location", "content_block_location"})
_ELLIPSES = ("...", "\u2026")


def _is_message(obj: Any) -> bool:
    return get(obj, "type") == "message" and bool(listed(get(obj, "content")))


def _block_texts(content: Any) -> str | None:
    if isinstance(content, str):
        return content
    parts = [text_of(get(b, "text")) for b in listed(content) if get(b, "type") == "text"]
    texts = [p for p in parts if p is not None]
    return "\n".join(texts) if texts else None


def _request_documents(arguments: Mapping[str, Any]) -> tuple[list[Any], list[Any]]:
    """The request's ``document`` blocks (in order, ``None`` for those without text) and its
    ``search_result`` blocks."""
    docs: list[Any] = []
    results: list[Any] = []
    for message in listed(arguments.get("messages")):
        for block in listed(get(message, "content")):
            kind = get(block, "type")
            if kind == "document":
                source = get(block, "source")
                stype = get(source, "type")
                text = (text_of(get(source, "data")) if stype == "text"
                        else _block_texts(get(source, "content")) if stype == "content" else None)
                title = text_of(get(block, "title"))
                docs.append(document(title, text))
            elif kind == "search_result":
                src, title = text_of(get(block, "source")), text_of(get(block, "title"))
                results.append(document(src, _block_texts(get(block, "content")), title))
    return docs, results


def _quote(kind: str, cited: Any) -> str | None:
    quote = text_of(cited)
    if quote is not None and kind == "web_search_result_location":
        for mark in _ELLIPSES:
            if quote.endswith(mark):  # cut at ~150 characters, maybe inside a word: the
                head = quote[: -len(mark)].rstrip()  # words before the last are checked
                return head.rsplit(None, 1)[0] if " " in head else head
    return quote


def read(obj: Any, arguments: Mapping[str, Any]) -> Found | None:
    if not _is_message(obj):
        return None
    docs, results = _request_documents(arguments)
    found = Found(name, documents=[*docs, *results], position_base=0,
                  consumed=frozenset({"messages"}) if docs or results else frozenset())
    from ..text import text_citations

    for block in listed(get(obj, "content")):
        if get(block, "type") != "text":
            continue
        text = (text_of(get(block, "text")) or "").strip()
        cited = listed(get(block, "citations"))
        if not cited:
            for c in text_citations(text):  # an answer quoting inline, uncited by the API
                found.cite(c)
            continue
        for item in cited:
            kind = get(item, "type")
            if not isinstance(kind, str):
                continue
            quote = _quote(kind, get(item, "cited_text"))
            if kind in _DOCUMENT_LOCATIONS:
                index = integer(get(item, "document_index"))
                title = document_id(get(item, "document_title"))
                start = end = None
                if kind == "char_location":
                    start = integer(get(item, "start_char_index"))
                    end = integer(get(item, "end_char_index"))
                position = None if index is None else str(index)
                found.cite(Citation(text, title or position, quote, start, end), position)
            elif kind == "search_result_location":
                index = integer(get(item, "search_result_index"))
                source = document_id(get(item, "source"))
                title = document_id(get(item, "title"))
                found.cite(Citation(text, source or title, quote), title)
            elif kind == "web_search_result_location":
                url = document_id(get(item, "url"))
                if url is not None:
                    found.textless.add(url)
                found.cite(Citation(text, url, quote), document_id(get(item, "title")))
    return found
