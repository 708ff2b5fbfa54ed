"""Citations and documents from what RAG apps actually return, by duck typing.

Nothing here imports a framework: LangChain, LlamaIndex, Haystack, Anthropic, Cohere and
OpenAI objects are recognised by their attribute or key names. Anything unrecognised is
skipped, never an error — an answer with nothing auditable simply yields no citations.

Citations:
    * ``Citation`` objects; dicts, dataclasses or pydantic models with ``claim``, ``quote`` and
      ``doc_id`` (``document_id`` and ``source_id`` accepted), optional ``start``/``end``/``chunk``;
    * a dict with a ``citations`` list, or an object with a ``citations`` attribute;
    * Anthropic messages: text blocks with ``citations`` (``char_location`` with offsets,
      ``page_location``, ``content_block_location``, search-result locations) — the claim is
      the block's text, the document id is ``str(document_index)``;
    * Cohere responses (``message.citations`` or ``citations`` with ``sources`` /
      ``document_ids``): answer spans without a quote — recorded as unverifiable;
    * OpenAI file citations (``annotations`` of type ``file_citation``): no quote unless the
      annotation carries one — recorded as unverifiable, never as found;
    * plain answer text with inline quotes: ``"quoted text" [doc-id]``.

Documents: a mapping of id to text; a dict with a ``documents`` list; lists of strings, dicts
(``id`` plus ``text``/``content``/``page_content``), LangChain ``Document`` (``page_content``,
``metadata``), LlamaIndex nodes (``node_id``/``id_``, ``get_content()``/``text``, or
``NodeWithScore.node``) and Haystack ``Document`` (``content``, ``id``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from .audit.models import Citation

__all__ = ["MAX_DEPTH", "citation_from_item", "extract_citations", "extract_documents"]

#: Nested containers deeper than this are not searched (hostile or cyclic results).
MAX_DEPTH = 6
_MISSING = object()
_DOC_KEYS = ("doc_id", "document_id", "source_id")
_ANTHROPIC_TYPES = frozenset({"char_location", "page_location", "content_block_location",
                              "search_result_location", "web_search_result_location"})
_INLINE = re.compile(
    r"[\"\u201c](?P<quote>[^\"\u201c\u201d]{3,}?)[\"\u201d]\s*\[(?P<doc>[^\[\]\s]{1,200})\]"
)
_SENTENCE_END = re.compile(r"[.!?](?=\s)|\n")


def _get(obj: Any, key: str, default: Any = None) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(key, default)
    if isinstance(obj, (str, bytes, int, float, bool)) or obj is None:
        return default
    try:
        return getattr(obj, key, default)
    except Exception:  # a property that raises is simply not there
        return default


def _is_list(value: Any) -> bool:
    return isinstance(value, (list, tuple))


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


# --- citations -------------------------------------------------------------------------------


def _generic(item: Any) -> Citation | None:
    if isinstance(item, Citation):
        return item
    quote = _str_or_none(_get(item, "quote"))
    doc = next((d for d in (_get(item, k) for k in _DOC_KEYS) if d is not None), None)
    start, end = _int_or_none(_get(item, "start")), _int_or_none(_get(item, "end"))
    if quote is None and doc is None:
        return None
    chunk = _get(item, "chunk")
    chunk_pair = None
    if _is_list(chunk) and len(chunk) == 2 and all(_int_or_none(x) is not None for x in chunk):
        chunk_pair = (chunk[0], chunk[1])
    claim = _str_or_none(_get(item, "claim")) or ""
    return Citation(claim, None if doc is None else str(doc), quote, start, end, chunk_pair)


def _anthropic(block_text: str, item: Any) -> Citation | None:
    kind = _get(item, "type")
    if kind not in _ANTHROPIC_TYPES:
        return None
    index = _get(item, "document_index", _get(item, "search_result_index"))
    doc = str(index) if index is not None else _str_or_none(_get(item, "source"))
    doc = doc or _str_or_none(_get(item, "url"))
    quote = _str_or_none(_get(item, "cited_text"))
    start = end = None
    if kind == "char_location":
        start = _int_or_none(_get(item, "start_char_index"))
        end = _int_or_none(_get(item, "end_char_index"))
    return Citation(block_text, doc, quote, start, end)


def _cohere(item: Any) -> Citation | None:
    sources = _get(item, "sources")
    ids = _get(item, "document_ids")
    if sources is None and ids is None:
        return None
    doc = None
    if _is_list(sources) and sources:
        doc = _get(sources[0], "id")
    elif _is_list(ids) and ids:
        doc = ids[0]
    claim = _str_or_none(_get(item, "text")) or ""
    return Citation(claim, None if doc is None else str(doc), None)


def _openai_annotation(text: str, item: Any) -> Citation | None:
    if _get(item, "type") != "file_citation":
        return None
    inner = _get(item, "file_citation", item)
    doc = _get(inner, "file_id") or _get(item, "file_id")
    quote = _str_or_none(_get(inner, "quote"))
    return Citation(text, None if doc is None else str(doc), quote)


def _inline(text: str) -> list[Citation]:
    found = []
    for m in _INLINE.finditer(text):
        lo = max((e.end() for e in _SENTENCE_END.finditer(text, 0, m.start())), default=0)
        stop = _SENTENCE_END.search(text, m.end())
        hi = stop.end() if stop else len(text)
        found.append(Citation(text[lo:hi].strip(), m.group("doc"), m.group("quote")))
    return found


def _content_blocks(blocks: Iterable[Any], depth: int) -> list[Citation]:
    out: list[Citation] = []
    for block in blocks:
        text = _get(block, "text")
        if not isinstance(text, str):  # OpenAI assistants: {"text": {"value", "annotations"}}
            inner = text
            text = _str_or_none(_get(inner, "value")) or ""
            annotations = _get(inner, "annotations")
        else:
            annotations = _get(block, "annotations")
        cited = _get(block, "citations")
        for item in cited if _is_list(cited) else ():  # anything else is not a citation list
            c = _anthropic(text, item) or citation_from_item(item, depth + 1)
            if c is not None:
                out.append(c)
        for item in annotations if _is_list(annotations) else ():
            c = _openai_annotation(text, item)
            if c is not None:
                out.append(c)
    return out


def citation_from_item(item: Any, depth: int = 0) -> Citation | None:
    """One item of a citations list as a :class:`Citation` (``None`` if unrecognised)."""
    return _cohere(item) or _generic(item)


def _citations(result: Any, depth: int) -> list[Citation]:
    if depth > MAX_DEPTH or result is None:
        return []
    if isinstance(result, str):
        return _inline(result)
    if isinstance(result, Citation):
        return [result]
    if _is_list(result):
        out: list[Citation] = []
        for item in result:
            single = citation_from_item(item, depth) if not _is_list(item) else None
            out.extend([single] if single is not None else _citations(item, depth + 1))
        return out
    listed = _get(result, "citations")
    if _is_list(listed):
        return [c for c in (citation_from_item(i, depth) for i in listed) if c is not None]
    content = _get(result, "content")
    if _is_list(content):
        found = _content_blocks(content, depth)
        if found:
            return found
    for key in ("message", "output", "choices"):
        inner = _get(result, key)
        if inner is not None and inner is not result:
            found = _citations(inner, depth + 1)
            if found:
                return found
    annotations = _get(result, "annotations")
    if _is_list(annotations):
        text = _str_or_none(content) or ""
        return [c for c in (_openai_annotation(text, a) for a in annotations) if c is not None]
    if isinstance(content, str):
        return _inline(content)
    single = _generic(result)
    return [single] if single is not None else []


def extract_citations(result: Any) -> list[Citation]:
    """Citations found in a handler's result (``[]`` when there are none)."""
    return _citations(result, 0)


# --- documents -------------------------------------------------------------------------------


def _doc_text(item: Any) -> str | None:
    for key in ("text", "content", "page_content"):
        value = _get(item, key)
        if isinstance(value, str):
            return value
    getter = _get(item, "get_content")
    if callable(getter):
        try:
            value = getter()
        except Exception:
            return None
        return value if isinstance(value, str) else None
    return None


def _doc_id(item: Any, position: int) -> str:
    for key in ("id", "doc_id", "document_id", "source_id", "node_id", "id_"):
        value = _get(item, key)
        if isinstance(value, (str, int)) and not isinstance(value, bool) and value != "":
            return str(value)
    metadata = _get(item, "metadata")
    if isinstance(metadata, Mapping):
        for key in ("id", "doc_id", "document_id", "source"):
            value = metadata.get(key)
            if isinstance(value, (str, int)) and not isinstance(value, bool):
                return str(value)
    return str(position)


def _documents(obj: Any, depth: int) -> dict[str, str]:
    if depth > MAX_DEPTH or obj is None or isinstance(obj, (str, bytes)):
        return {}
    if isinstance(obj, Mapping):
        if obj and all(isinstance(v, str) for v in obj.values()):
            return {str(k): v for k, v in obj.items()}
        inner = obj.get("documents")
        return _documents(inner, depth + 1) if inner is not None else {}
    if _is_list(obj):
        docs: dict[str, str] = {}
        for position, item in enumerate(obj):
            if isinstance(item, str):
                docs[str(position)] = item
                continue
            node = _get(item, "node")  # LlamaIndex NodeWithScore
            target = node if node is not None and _doc_text(item) is None else item
            text = _doc_text(target)
            if text is not None:
                key = _doc_id(target, position)
                docs[key if key not in docs else f"{key}#{position}"] = text
        return docs
    inner = _get(obj, "documents")
    return _documents(inner, depth + 1) if inner is not None else {}


def extract_documents(obj: Any) -> dict[str, str]:
    """Documents (id to text) found in an argument or result (``{}`` when there are none)."""
    return _documents(obj, 0)
