"""LlamaIndex ``CitationQueryEngine``: source nodes whose text starts ``Source N:``.

Recognised by a ``response`` string and ``source_nodes`` whose first node's text begins with
``Source 1:`` — the engine's 1-based numbering, which the answer's ``[N]`` markers follow.
The markers are read 1-based (strict: ``[N]`` past the nodes is a source never retrieved);
the nodes are documents as the document model reads them (their ``Source N:`` prefix kept:
the engine showed the model that text).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..base import Found
from ..walk import get, listed, text_of

name = "llamaindex"
#: A mapping with none of these keys is not this shape (checked before reading it).
keys = frozenset({"source_nodes"})
_SOURCE = re.compile(r"^\s*Source (\d{1,6}):")


def _node_text(item: Any) -> str | None:
    node = get(item, "node")
    target = node if node is not None else item
    text = text_of(get(target, "text"))
    if text is None:
        getter = get(target, "get_content")
        if callable(getter):
            try:
                text = text_of(getter())
            except Exception:
                return None
    return text


def read(obj: Any, arguments: Mapping[str, Any]) -> Found | None:
    response = text_of(get(obj, "response"))
    nodes = listed(get(obj, "source_nodes"))
    if response is None or not nodes:
        return None
    first = _SOURCE.match(_node_text(nodes[0]) or "")
    if first is None or first.group(1) != "1":
        return None
    from ..text import text_citations

    found = Found(name, position_base=1, result_documents=True)
    for c in text_citations(response):
        found.cite(c)
    return found
