"""One trace's answer, retrieved documents and request, read from OpenInference attributes.

* **Answer**: the model's reply, from the LLM spans (``llm.output_messages.N.message.content``,
  else ``output.value``), the one that ended last first; when no LLM span's output cites
  anything, the other spans' ``output.value`` (chains, agents), the root first. The span it
  came from is the *answer span*: per-citation annotations and the audit span go there.
* **Documents**: every ``RETRIEVER`` span's ``retrieval.documents.N.document.content``,
  ``.id`` and ``.metadata`` (a JSON object in OTLP; Phoenix hands it back flattened,
  ``.metadata.file_name``: both are read), in the order retrieved. The LangChain
  instrumentor writes no ``.id``: the document's ``id`` is then taken from the retriever's
  ``output.value`` (``{"documents": [{"id", "page_content", ...}]}``) when it lists the same text
  at the same place, so ids are the ones the app's own results carry.
* **Request**: the root span's ``input.value``.

The answer is handed to the same readers a decorated handler's result goes through
(:func:`read_answer`), and the documents to the same document model, so an answer audits the
same whether it was decorated live or read back from its trace.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .model import SpanRecord, TraceRecord

__all__ = ["Assembled", "assemble", "documents_of_span", "span_answers"]

_DOC = re.compile(r"^retrieval\.documents\.(\d+)\.document\.(content|id|metadata)(?:\.(.+))?$")
_MESSAGE = re.compile(r"^llm\.output_messages\.(\d+)\.message\.(role|content)$")
_CONTENTS = re.compile(
    r"^llm\.output_messages\.(\d+)\.message\.contents\.(\d+)\.message_content\.text$")
#: answer texts read per trace at most (a runaway agent loop must not cost unbounded work)
MAX_CANDIDATES = 64


@dataclass
class Assembled:
    """What a trace holds for the audit."""

    trace: TraceRecord
    root: SpanRecord | None
    answer_span: SpanRecord | None = None
    answer: Any = None
    citations: list[Any] = field(default_factory=list)
    documents: list[dict[str, Any]] = field(default_factory=list)
    question: str | None = None
    open_spans: int = 0


def _parsed(text: Any) -> Any:
    """JSON text as its value; anything else as it is."""
    if isinstance(text, str) and text[:1] in "{[":
        try:
            return json.loads(text)
        except ValueError:
            return text
    return text


def span_answers(span: SpanRecord) -> list[Any]:
    """The answers ``span`` carries, most specific first: its output messages' text (the last
    assistant message), then its ``output.value`` (parsed when JSON)."""
    attrs = span.attributes
    messages: dict[int, dict[str, Any]] = {}
    for key, value in attrs.items():
        m = _MESSAGE.match(key)
        if m:
            messages.setdefault(int(m.group(1)), {})[m.group(2)] = value
            continue
        m = _CONTENTS.match(key)
        if m and isinstance(value, str):
            parts = messages.setdefault(int(m.group(1)), {}).setdefault("parts", {})
            parts[int(m.group(2))] = value
    found: list[Any] = []
    for index in sorted(messages, reverse=True):
        message = messages[index]
        if message.get("role") not in (None, "assistant", "model", "ai"):
            continue
        content = message.get("content")
        if not isinstance(content, str) and message.get("parts"):
            content = "".join(message["parts"][i] for i in sorted(message["parts"]))
        if isinstance(content, str) and content:
            found.append(content)
            break
    output = attrs.get("output.value")
    if isinstance(output, str) and output:
        found.append(_parsed(output))
    return found


def _metadata(value: Any) -> dict[str, Any]:
    value = _parsed(value)
    return dict(value) if isinstance(value, Mapping) else {}


def _put(tree: dict[str, Any], path: list[str], value: Any) -> None:
    for part in path[:-1]:
        child = tree.get(part)
        if not isinstance(child, dict):
            child = tree[part] = {}
        tree = child
    tree[path[-1]] = value


def _listed_ids(span: SpanRecord) -> list[tuple[Any, Any]]:
    """``(id, text)`` of the documents a retriever's ``output.value`` lists, when it is JSON
    (LangChain: ``{"documents": [{"id", "page_content", ...}]}``)."""
    output = _parsed(span.attributes.get("output.value"))
    listed = output.get("documents") if isinstance(output, Mapping) else output
    if not isinstance(listed, list):
        return []
    pairs = []
    for item in listed:
        if isinstance(item, Mapping):
            text = next((item[k] for k in ("page_content", "content", "text") if k in item), None)
            pairs.append((item.get("id"), text))
        else:
            pairs.append((None, None))
    return pairs


def documents_of_span(span: SpanRecord) -> list[dict[str, Any]]:
    """A RETRIEVER span's documents: ``{"text", "id"?, "metadata"}`` in retrieved order."""
    by_index: dict[int, dict[str, Any]] = {}
    for key, value in span.attributes.items():
        m = _DOC.match(key)
        if m is None:
            continue
        fields = by_index.setdefault(int(m.group(1)), {})
        if m.group(3) is None:
            fields[m.group(2)] = value
        elif m.group(2) == "metadata":  # Phoenix stores attributes nested: read back flat
            _put(fields.setdefault("metadata_keys", {}), m.group(3).split("."), value)
    listed: list[tuple[Any, Any]] | None = None
    documents = []
    for index in sorted(by_index):
        fields = by_index[index]
        text = fields.get("content")
        if not isinstance(text, str):
            continue
        doc: dict[str, Any] = {"text": text, "metadata": {
            **fields.get("metadata_keys", {}), **_metadata(fields.get("metadata"))}}
        ident = fields.get("id")
        if ident is None:
            if listed is None:
                listed = _listed_ids(span)
            if index < len(listed) and listed[index][1] == text:
                ident = listed[index][0]
        if isinstance(ident, (str, int)) and not isinstance(ident, bool):
            doc["id"] = ident
        documents.append(doc)
    return documents


def assemble(trace: TraceRecord, read: Callable[[Any], list[Any]]) -> Assembled:
    """The answer (the first candidate ``read`` finds citations in), the documents and the
    request of ``trace`` (see the module docstring)."""
    root = trace.root
    found = Assembled(trace, root)
    ended = [s for s in trace.spans if not s.open]
    found.open_spans = len(trace.spans) - len(ended)
    llm = sorted((s for s in ended if s.kind == "LLM"), key=lambda s: -(s.end_ns or 0))
    others = sorted((s for s in ended if s.kind not in ("LLM", "RETRIEVER", "EMBEDDING",
                                                         "RERANKER", "GUARDRAIL",
                                                         "EVALUATOR")),
                    key=lambda s: (s.parent_id is not None, -(s.end_ns or 0)))
    tried = 0
    for span in [*llm, *others]:
        for answer in span_answers(span):
            tried += 1
            citations = read(answer)
            if citations:
                found.answer_span, found.answer, found.citations = span, answer, citations
                break
            if tried >= MAX_CANDIDATES:
                break
        if found.answer_span is not None or tried >= MAX_CANDIDATES:
            break
    for span in sorted((s for s in ended if s.kind == "RETRIEVER"), key=lambda s: s.start_ns):
        found.documents.extend(documents_of_span(span))
    if root is not None:
        question = root.attributes.get("input.value")
        found.question = question if isinstance(question, str) else None
    return found
