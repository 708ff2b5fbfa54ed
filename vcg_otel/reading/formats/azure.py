"""Azure OpenAI "On Your Data": ``choices[].message.context.citations`` and ``[docN]`` markers.

Recognised by a message whose ``context`` holds a ``citations`` list. ``[docN]`` in the
answer is the N-th entry of that list, **1-based** (documented): ``[doc1]`` is
``citations[0]``. Each entry (``content``, ``title``, ``url``, ``filepath``, ``chunk_id``) is a
document, named ``docN`` and by its filepath, url and title, so the app's own copies of the
chunks resolve too. A ``[docN]`` beyond the list is a source never retrieved.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ...markers import claims_for, find_markers
from ..base import Found, document
from ..walk import get, listed, text_of

name = "azure"
#: A mapping with none of these keys is not this shape (checked before reading it).
keys = frozenset({"choices"})
_DOC = re.compile(r"^doc(\d{1,6})$")


def read(obj: Any, arguments: Mapping[str, Any]) -> Found | None:
    messages = [get(c, "message") for c in listed(get(obj, "choices"))]
    contexts = [(m, get(m, "context")) for m in messages]
    if not any(listed(get(ctx, "citations")) for _, ctx in contexts):
        return None
    found = Found(name)
    for message, ctx in contexts:
        entries = listed(get(ctx, "citations"))
        for n, entry in enumerate(entries, 1):
            found.documents.append(document(
                f"doc{n}", text_of(get(entry, "content")), text_of(get(entry, "url")),
                text_of(get(entry, "title")), text_of(get(entry, "chunk_id")),
                source=text_of(get(entry, "filepath"))))
        text = text_of(get(message, "content")) or ""
        markers = [m for m in find_markers(text, convention="id") if _DOC.match(m.source)]
        for claim in claims_for(text, markers):
            found.cite(claim.citation)
        if not markers:
            from ..text import text_citations

            for c in text_citations(text):
                found.cite(c)
    return found
