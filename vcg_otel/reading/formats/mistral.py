"""Mistral chat: ``message.content`` as chunks, ``{"type": "reference", "reference_ids": [...]}``.

Recognised by a ``reference`` chunk. The claim of a reference is the text chunks since the
previous reference (the sentence it closes); each id is one quote-less citation. Mistral's
citations guide numbers the sources it gives the model in a tool result, ``{"0": {"url",
"title", "snippet", "description"}, ...}``: those tool messages in the request's ``messages``
are documents named by their key (and URL, title), and a bare number counts 0-based in the
app's documents otherwise.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ...citation import Citation
from ..base import Found, document
from ..walk import document_id, get, listed, text_of

name = "mistral"
#: A mapping with none of these keys is not this shape (checked before reading it).
keys = frozenset({"choices"})


def _tool_documents(arguments: Mapping[str, Any], found: Found) -> None:
    for message in listed(arguments.get("messages")):
        if get(message, "role") != "tool":
            continue
        content = get(message, "content")
        if isinstance(content, str):
            try:
                content = json.loads(content)
            except ValueError:
                continue
        if not isinstance(content, Mapping):
            continue
        for key, entry in content.items():
            if not isinstance(entry, Mapping):
                continue
            text = text_of(entry.get("snippet")) or text_of(entry.get("description"))
            found.documents.append(document(document_id(key), text, text_of(entry.get("url")),
                                            text_of(entry.get("title"))))


def read(obj: Any, arguments: Mapping[str, Any]) -> Found | None:
    messages = [get(c, "message") for c in listed(get(obj, "choices"))]
    chunked = [listed(get(m, "content")) for m in messages]
    if not any(get(ch, "type") == "reference" for chunks in chunked for ch in chunks):
        return None
    found = Found(name, position_base=0)
    _tool_documents(arguments, found)
    for chunks in chunked:
        pending: list[str] = []
        for chunk in chunks:
            kind = get(chunk, "type")
            if kind == "text":
                pending.append(text_of(get(chunk, "text")) or "")
            elif kind == "reference":
                claim = "".join(pending).strip()
                for ref in dict.fromkeys(listed(get(chunk, "reference_ids"))):
                    found.cite(Citation(claim, document_id(ref), None))
                pending = []
    return found
