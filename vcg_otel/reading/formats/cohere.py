"""Cohere Chat: v1 ``NonStreamedChatResponse`` and v2 ``ChatResponse`` citations.

Recognised by citations that carry ``document_ids`` (v1: ``{start, end, text,
document_ids}``) or ``sources`` (v2: ``{start, end, text, sources: [{type, id, document}]}``
under ``message.citations``). Each citation is quote-less: one per cited source, the span's
``text`` as the claim.

Ids: the request's own document ids as given; Cohere's automatic ids (``doc_0`` in v1,
``doc:0`` in v2, for documents given without one) are 0-based positions in the request's
``documents``. Documents: the request's ``documents`` argument (v1 dicts of fields; v2 plain
strings or ``{"id", "data": {...}}``), the v1 response's echoed ``documents``, and v2
``sources[].document`` (tool sources: their ``tool_output``). A document's text is its
``snippet``/``text``/``content`` field, else all its string fields (what the model was shown).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ...citation import Citation
from ..base import Found, document
from ..walk import document_id, field, get, integer, listed, text_of

name = "cohere"
#: A mapping with none of these keys is not this shape (checked before reading it).
keys = frozenset({"citations", "message"})
_AUTO_ID = re.compile(r"^doc[:_](\d{1,6})$")
_TEXT_FIELDS = ("snippet", "text", "content")


def _fields_text(fields: Any) -> str | None:
    if isinstance(fields, str):
        return fields
    for key in _TEXT_FIELDS:
        value = text_of(get(fields, key))
        if value is not None:
            return value
    if isinstance(fields, Mapping):
        parts = [f"{k}: {v}" for k, v in fields.items() if isinstance(v, str) and k != "id"]
        return "\n".join(parts) or None
    return None


def _doc(item: Any) -> dict[str, Any] | None:
    """One Cohere document (a request document, an echoed v1 one, a v2 source's)."""
    if isinstance(item, str):
        return document(None, item)
    data = get(item, "data")  # v2 request: {"id", "data": {...}}
    fields = data if data is not None else item
    ident = document_id(get(item, "id")) or document_id(get(fields, "id"))
    title = text_of(get(fields, "title"))
    return document(ident, _fields_text(fields), title, source=text_of(get(fields, "url")))


def _citations(obj: Any) -> tuple[list[Any] | tuple[Any, ...], str]:
    v1 = listed(get(obj, "citations"))
    if v1 and get(v1[0], "document_ids") is not None:
        return v1, "v1"
    message = get(obj, "message")
    v2 = (listed(get(message, "citations")) if message is not None else ()) or v1
    if v2 and get(v2[0], "sources") is not None:
        return v2, "v2"
    return (), ""


def _answer_text(obj: Any) -> str:
    text = text_of(get(obj, "text"))
    if text is not None:
        return text
    content = listed(get(get(obj, "message"), "content"))
    return "".join(text_of(get(b, "text")) or "" for b in content)


def read(obj: Any, arguments: Mapping[str, Any]) -> Found | None:
    items, version = _citations(obj)
    if not items:
        return None
    requested = listed(arguments.get("documents"))
    found = Found(name, position_base=0,
                  consumed=frozenset({"documents"}) if requested else frozenset())
    found.documents.extend(_doc(d) for d in requested)
    known = {d["id"] for d in found.documents if d is not None and "id" in d}
    for echoed in listed(get(obj, "documents")):  # v1 echoes the documents it used
        doc = _doc(echoed)
        if doc is not None and doc.get("id") not in known and not requested:
            found.documents.append(doc)
    answer = _answer_text(obj)
    for item in items:
        start, end = integer(get(item, "start")), integer(get(item, "end"))
        claim = text_of(get(item, "text"))
        if claim is None:
            ok = start is not None and end is not None
            claim = answer[start:end] if ok else ""
        if version == "v1":
            ids = [document_id(i) for i in listed(get(item, "document_ids"))]
        else:
            ids = []
            for source in listed(get(item, "sources")):
                ident = document_id(get(source, "id"))
                ids.append(ident)
                inner = field(source, "document") or (
                    {"id": ident, "text": _fields_text(get(source, "tool_output"))}
                    if get(source, "type") == "tool" else None)
                doc = _doc(inner) if inner is not None else None
                if doc is not None and ident is not None and ident not in known:
                    doc["id"] = ident
                    known.add(ident)
                    found.documents.append(doc)
        for ident in dict.fromkeys(i for i in ids if i is not None):
            auto = _AUTO_ID.match(ident)
            found.cite(Citation(claim, ident, None), auto.group(1) if auto else None)
    return found
