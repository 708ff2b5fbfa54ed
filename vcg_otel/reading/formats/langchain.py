"""LangChain's citation how-to: ``CitedAnswer`` and ``with_structured_output(include_raw=True)``.

* ``CitedAnswer``: ``{"answer": str, "citations": List[int]}`` (a pydantic model or its dict):
  each integer is a source id, the 0-based position in the context list the prompt showed
  (the how-to's ``Source ID: {i}``); one quote-less citation each, the answer as the claim.
* ``include_raw=True``: ``{"raw": AIMessage, "parsed": ..., "parsing_error": ...}``: the
  ``parsed`` answer is read (a ``CitedAnswer``, or ``QuotedAnswer``'s ``{source_id, quote}``
  citations, which the generic reader knows).

The documents are the call's and the result's (``context``), read by the document model.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...citation import Citation
from ..base import Found
from ..walk import current, get, integer, listed, text_of

name = "langchain"
#: A mapping with none of these keys is not this shape (checked before reading it).
keys = frozenset({"parsed", "answer"})


def _cited_answer(obj: Any) -> Found | None:
    answer = text_of(get(obj, "answer"))
    ids = listed(get(obj, "citations"))
    if answer is None or not ids or not all(integer(i) is not None for i in ids):
        return None
    found = Found(name, position_base=0, result_documents=True)
    for i in dict.fromkeys(ids):
        found.cite(Citation(answer, str(i), None))
    return found


def read(obj: Any, arguments: Mapping[str, Any]) -> Found | None:
    if (type(obj) is dict or isinstance(obj, Mapping)) and "parsed" in obj and "raw" in obj:
        parsed = obj.get("parsed")
        found = _cited_answer(parsed)
        if found is not None:
            return found
        from ..generic import extract_citations

        found = Found(name, result_documents=True)
        for c in extract_citations(parsed, current()) if parsed is not None else ():
            found.cite(c)
        return found
    return _cited_answer(obj)
