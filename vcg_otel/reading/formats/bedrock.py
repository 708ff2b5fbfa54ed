"""Amazon Bedrock: Knowledge Bases ``retrieve_and_generate`` and the Converse API's citations.

* ``retrieve_and_generate``: ``citations[]`` of ``{generatedResponsePart: {textResponsePart:
  {text, span}}, retrievedReferences: [{content: {text}, location, metadata}]}``: the part's
  text is the claim, each reference is a document (named by its location's URI) and one
  quote-less citation.
* Converse: ``output.message.content[]`` blocks ``{citationsContent: {content: [{text}],
  citations: [{title, sourceContent: [{text}], location: {documentChar | documentPage |
  documentChunk: {documentIndex, start, end}}}]}}``: ``sourceContent`` is the quote,
  ``documentIndex`` the 0-based index of the request's ``document`` blocks (their ``name``
  is cited first). Documents: the request's ``messages`` document blocks with a text source.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...citation import Citation
from ..base import Found, document
from ..walk import document_id, get, integer, listed, reader, text_of

name = "bedrock"
#: A mapping with none of these keys is not this shape (checked before reading it).
keys = frozenset({"citations", "output"})
_LOCATIONS = ("documentChar", "documentPage", "documentChunk")
_URI_KEYS = (("s3Location", "uri"), ("webLocation", "url"), ("confluenceLocation", "url"),
             ("sharePointLocation", "url"), ("salesforceLocation", "url"),
             ("customDocumentLocation", "id"), ("kendraDocumentLocation", "uri"))


def _uri(location: Any) -> str | None:
    for outer, inner in _URI_KEYS:
        value = document_id(get(get(location, outer), inner))
        if value is not None:
            return value
    return None


def _retrieve_and_generate(obj: Any, found: Found) -> None:
    seen: dict[str, str] = {}
    for item in listed(get(obj, "citations")):
        part = get(get(item, "generatedResponsePart"), "textResponsePart")
        claim = text_of(get(part, "text")) or ""
        refs = listed(get(item, "retrievedReferences"))
        if not refs:
            found.cite(Citation(claim, None, None))
        for ref in refs:
            text = text_of(get(get(ref, "content"), "text"))
            ident = _uri(get(ref, "location")) or f"reference[{len(seen)}]"
            key = f"{ident}\x00{text}"
            if key not in seen:
                seen[key] = ident
                found.documents.append(document(ident, text))
            found.cite(Citation(claim, ident, None))


def _request_documents(arguments: Mapping[str, Any]) -> list[Any]:
    docs: list[Any] = []
    for message in listed(arguments.get("messages")):
        for block in listed(get(message, "content")):
            doc = get(block, "document")
            if doc is None:
                continue
            source = get(doc, "source")
            text = text_of(get(source, "text"))
            if text is None:
                parts = [text_of(get(p, "text")) for p in listed(get(source, "content"))]
                text = "\n".join(p for p in parts if p is not None) or None
            docs.append(document(document_id(get(doc, "name")), text))
    return docs


def _converse(blocks: list[Any] | tuple[Any, ...], found: Found) -> None:
    for block in blocks:
        cc = get(block, "citationsContent")
        if cc is None:
            text = text_of(get(block, "text"))
            if text:
                from ..text import text_citations

                for c in text_citations(text):
                    found.cite(c)
            continue
        claim = "".join(text_of(get(p, "text")) or "" for p in listed(get(cc, "content")))
        for citation in listed(get(cc, "citations")):
            quotes = [text_of(get(s, "text")) for s in listed(get(citation, "sourceContent"))]
            quote = " ".join(q for q in quotes if q) or None
            location = get(citation, "location")
            index = next((integer(get(get(location, k), "documentIndex")) for k in _LOCATIONS
                          if get(location, k) is not None), None)
            title = document_id(get(citation, "title"))
            position = None if index is None else str(index)
            found.cite(Citation(claim, title or position, quote), position)


def _generated(cited: list[Any] | tuple[Any, ...]) -> bool:
    """Whether ``cited`` holds a ``retrieve_and_generate`` citation (a loop, not ``any`` of a
    generator: most citation lists an app returns are someone else's, read to the end)."""
    for c in cited:
        read = reader(c)  # a plain dict's own ``get``: no call through :func:`get` per key
        if read("retrievedReferences") is not None or read("generatedResponsePart") is not None:
            return True
    return False


def read(obj: Any, arguments: Mapping[str, Any]) -> Found | None:
    cited = listed(get(obj, "citations"))
    if cited and _generated(cited):
        found = Found(name)
        _retrieve_and_generate(obj, found)
        return found
    output = get(obj, "output")
    if output is None:  # no Converse message to read (most results that get here)
        return None
    blocks = listed(get(get(output, "message"), "content"))
    if not any(get(b, "citationsContent") is not None for b in blocks):
        return None
    docs = _request_documents(arguments)
    found = Found(name, documents=docs, position_base=0,
                  consumed=frozenset({"messages"}) if docs else frozenset())
    _converse(blocks, found)
    return found
