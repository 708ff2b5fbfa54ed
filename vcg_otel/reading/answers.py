"""Citations in the answers frameworks return, by duck typing (no framework imported).

:func:`vcg_otel.reading.generic.extract_citations` reads citation lists, provider citation
blocks and inline quotes. Framework results wrap the answer one level deeper, under a key or
attribute of their own; this module unwraps them:

* LangChain ``create_retrieval_chain`` (``{"input", "context", "answer"}``), ``RetrievalQA``
  (``{"query", "result", "source_documents"}``), the structured-output citation how-to
  (``{"answer": str, "citations": [{"source_id": int, "quote": str}]}`` as a dict or pydantic
  model; ``source_id`` is a position in the context list) and chat messages (``content``);
* LlamaIndex ``Response`` / ``StreamingResponse`` (after the stream) / ``PydanticResponse``
  (``response``: text with inline quotes, or the structured answer);
* Haystack ``GeneratedAnswer`` (``data``), generator ``replies`` (``ChatMessage.text`` or
  strings) and ``Pipeline.run`` outputs (``{component: {socket: value}}``).

Answer text is read as JSON first (a ``{"citations": [...]}`` object, in a markdown fence or
not), then for inline ``"quote" [doc-id]``. A citation without a claim gets the answer text it
came from as its claim, so a judge has something to weigh.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ..citation import Citation
from ..reading.walk import Budget, get
from .generic import extract_citations

__all__ = ["ANSWER_KEYS", "answer_citations", "citations_in_text"]

#: Keys and attributes under which frameworks put the answer.
ANSWER_KEYS = ("answer", "result", "response", "response_txt", "data", "output", "replies",
               "answers")
_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)
_MAX_DEPTH = 5


def citations_in_text(text: str, budget: Budget | None = None) -> list[Citation]:
    """The citations of one answer text: JSON with a citations list, else inline quotes."""
    budget = budget if budget is not None else Budget()
    fenced = _FENCE.match(text)
    body = fenced.group(1) if fenced else text.strip()
    if body[:1] in "{[":
        try:
            parsed = json.loads(body)
        except ValueError:
            parsed = None
        if parsed is not None:
            found = answer_citations(parsed, budget)
            if found:
                return found
    return extract_citations(text, budget)


def _text_of(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    text = get(value, "text")  # Haystack ChatMessage.text, LangChain AIMessage.text
    if isinstance(text, str):
        return text
    content = get(value, "content")
    return content if isinstance(content, str) else None


def _with_claims(found: list[Citation], claim: str | None) -> list[Citation]:
    if not claim:
        return found
    return [c if c.claim else replace(c, claim=claim) for c in found]


def answer_citations(result: Any, budget: Budget | None = None) -> list[Citation]:
    """Every citation in a framework result (``[]`` when there is none), within ``budget``
    (:class:`~vcg_otel.reading.walk.Budget`, shared by every level)."""
    return _answer(result, budget if budget is not None else Budget(), 0)


def _answer(result: Any, budget: Budget, depth: int) -> list[Citation]:
    if depth > _MAX_DEPTH or result is None or not budget.take():
        return []
    if isinstance(result, str):
        return citations_in_text(result, budget)
    if isinstance(result, (list, tuple)):
        return [c for item in result for c in _answer(item, budget, depth + 1)]
    listed = get(result, "citations")
    if isinstance(listed, (list, tuple)):
        own = get(result, "answer")
        return _with_claims(extract_citations(result, budget),
                            own if isinstance(own, str) else None)
    text = _text_of(result)
    if text is not None and not isinstance(result, Mapping):  # a message or a document-like
        found = citations_in_text(text, budget)
        if found:
            return found
    found = extract_citations(result, budget)
    if found:
        return found
    for key in ANSWER_KEYS:
        inner = get(result, key)
        if inner is not None and inner is not result:
            found = _answer(inner, budget, depth + 1)
            if found:
                return found
    if isinstance(result, Mapping):  # Haystack pipeline outputs: {component: {socket: value}}
        for value in result.values():
            if isinstance(value, Mapping):
                found = _answer(value, budget, depth + 1)
                if found:
                    return found
    return []
