"""The generic reader: citations and documents from what RAG apps return, by duck typing.

The fallback of :func:`vcg_otel.reading.read_output` for shapes no format reader recognises
(and the reader of ``citations=`` / ``documents=`` extractors' values); public as
:mod:`vcg_otel.extract`, which hands these names on.

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
      ``document_ids``): answer spans without a quote, one citation per source, the span's
      text as the claim (:func:`vcg_otel.markers.cohere_claims`);
    * OpenAI file citations (``annotations`` of type ``file_citation``): no quote unless the
      annotation carries one; the claim is the sentence or clause carrying the annotation
      (:func:`vcg_otel.markers.openai_claims`);
    * plain answer text with inline quotes: ``"quoted text" [doc-id]``; answer text with no
      inline quote is read for numbered, id or footnote markers (``... fell by 30% [3].``,
      :func:`vcg_otel.markers.marked_claims`): quote-less citations, one per source.

Documents: a mapping of id to text; a dict with a ``documents`` list; lists of strings, dicts
(``id`` plus ``text``/``content``/``page_content``), LangChain ``Document`` (``page_content``,
``metadata``), LlamaIndex nodes (``node_id``/``id_``, ``get_content()``/``text``, or
``NodeWithScore.node``) and Haystack ``Document`` (``content``, ``id``).

Ids: a document id is a ``str`` of 1 to
:data:`~vcg_otel.reading.walk.MAX_ID_CHARS` characters with no control
characters (no newlines), or an ``int`` (written in decimal) — what the gate accepts. A value in
a ``doc_id`` field that is not an id (a dict, a list, a 10 kB string) is not turned into one
with ``str()``: the citation keeps its quote and names no document. An inline id is the text in
``[...]`` after a quote: at most 200 characters, no whitespace, no brackets, no control
characters.

Work is bounded by a :class:`Budget` shared by one call's citations and documents, not only by
depth: every container is visited once however often the result refers to it (a result built
as ``a = [a] * n`` costs ``n`` per level, not ``n ** depth``), inline quotes are found in one
pass, and a walk that uses up its nodes, answer-text characters or seconds stops where it is,
keeps what it found and says why (:attr:`Budget.exhausted`); one attribute read slower than
:data:`~vcg_otel.reading.walk.SLOW_READ_SECONDS` ends the walk and that object is not read
again. Extraction never mutates what it reads.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterable, Mapping
from functools import partial
from typing import Any

from .. import markers
from ..citation import Citation, exact_citation
from .walk import (
    Budget,
    charge,
    charged,
    doc_text,
    document_id,
    get,
    integer,
    is_list,
    plain_text,
    reader,
    text_of,
)

# The bounded reading primitives live in :mod:`.walk`; :mod:`vcg_otel.extract` re-exports
# them (``Budget``, ``MAX_NODES``, ...), as it always did.
__all__ = ["DOCUMENT_ARGUMENTS", "MAX_CLAIM_CONTEXT", "MAX_DEPTH", "call_arguments",
           "call_binder", "call_sources", "citation_from_item", "citations_from_item",
           "extract_citations", "extract_documents", "generic_answer_citations"]

#: Nested containers deeper than this are not searched (hostile or cyclic results).
MAX_DEPTH = 6
#: An inline quote's claim is its sentence, cut to this many characters either side.
MAX_CLAIM_CONTEXT = 1_000

_ANTHROPIC_TYPES = frozenset({"char_location", "page_location", "content_block_location",
                              "search_result_location", "web_search_result_location"})
_INLINE = re.compile(
    r"[\"\u201c](?P<quote>[^\"\u201c\u201d]{3,}?)[\"\u201d]\s*"
    r"\[(?P<doc>[^\[\]\s\x00-\x1f\x7f-\x9f]{1,200})\]"
)
_SENTENCE_END = re.compile(r"[.!?](?=\s)|\n")
# Leaves that hold neither citations nor documents: skipped without reading an attribute.
_SCALARS = (int, float, complex, bytes, bytearray, bool, type(None))
_NOT_ITEMS = (*_SCALARS, str)  # what no citations list item is


class _Walk:
    """One traversal: its budget, and the containers it has already visited (kept alive, so
    an id is never reused by a new object while the walk runs)."""

    __slots__ = ("budget", "seen")

    def __init__(self, budget: Budget | None) -> None:
        self.budget = budget if budget is not None else Budget()
        self.seen: dict[int, Any] = {}

    def enter(self, container: Any) -> bool:
        """``True`` the first time ``container`` is reached, while the budget lasts."""
        if id(container) in self.seen or not self.budget.take():
            return False
        self.seen[id(container)] = container
        return True


# --- citations -------------------------------------------------------------------------------


def _generic(item: Any, read: Callable[[str], Any]) -> Citation | None:
    """One citation of ``item`` (read through ``read``, its :func:`reader`), else ``None``."""
    if isinstance(item, Citation):
        return item
    return _fields(read)


def _fields(read: Callable[[str], Any]) -> Citation | None:
    """The citation of an item's generic fields, read through ``read`` (``None``: it has
    neither a quote nor a document; nothing more is read of it then).

    Called for every citation of every audited call, in one frame: what most citations hold
    (plain texts, no offsets) is asked about first, and nothing more. Its texts are made
    plain here, as :class:`Citation` would make them, so that it is built by plain slot
    stores (:func:`~vcg_otel.citation.exact_citation`)."""
    quote, raw = read("quote"), read("doc_id")
    if type(quote) is not str:
        quote = plain_text(quote)
    # the document: the first of doc_id, document_id, source_id present
    if raw is None:
        raw = read("document_id")
        if raw is None:
            raw = read("source_id")
    if quote is None and raw is None:
        return None
    start, end, chunk, claim = read("start"), read("end"), read("chunk"), read("claim")
    if start is not None or end is not None:  # most citations have no offsets: no call then
        start, end = integer(start), integer(end)
    if chunk is not None:
        chunk = _chunk_pair(chunk)
    if type(claim) is not str:
        claim = plain_text(claim) or ""
    return exact_citation(claim, None if raw is None else document_id(raw), quote, start, end,
                          chunk)


def _chunk_pair(chunk: Any) -> tuple[int, int] | None:
    """``chunk`` as a ``(start, end)`` pair when it is a list or tuple of two integers."""
    if is_list(chunk) and len(chunk) == 2 and all(integer(x) is not None for x in chunk):
        return (chunk[0], chunk[1])
    return None


def _anthropic(block_text: str, item: Any) -> Citation | None:
    kind = get(item, "type")
    if not isinstance(kind, str) or kind not in _ANTHROPIC_TYPES:  # a dict type is unhashable
        return None
    index = get(item, "document_index", get(item, "search_result_index"))
    doc = document_id(index) if index is not None else document_id(get(item, "source"))
    doc = doc or document_id(get(item, "url"))
    quote = text_of(get(item, "cited_text"))
    start = end = None
    if kind == "char_location":
        start = integer(get(item, "start_char_index"))
        end = integer(get(item, "end_char_index"))
    return Citation(block_text, doc, quote, start, end)


def _cohere(item: Any, sources: Any, ids: Any) -> list[Citation]:
    """One citation per source of a Cohere span (``item``, whose ``sources`` and
    ``document_ids`` were read, not both ``None``)."""
    listed = sources if is_list(sources) else ids if is_list(ids) else ()
    if not charge(len(listed)):  # each source is read: the walk pays for it
        return []
    found = [m.citation for m in markers.cohere_claims(item)]
    return found or [Citation(text_of(get(item, "text")) or "", None, None)]


def _openai_annotations(text: str, items: list[Any] | tuple[Any, ...]) -> list[Citation]:
    """Citations of ``file_citation`` annotations on ``text``: a quote-less one claims the
    sentence or clause carrying it; one with a quote (Assistants v1) or without usable
    offsets claims the whole text, as before offsets were read."""
    if not charge(len(items)):
        return []
    cited: list[tuple[Any, str | None]] = []  # quote-less: (annotation, document id)
    out: list[Citation] = []
    for item in items:
        kind = get(item, "type")
        if not isinstance(kind, str) or kind != "file_citation":
            continue
        inner = get(item, "file_citation", item)
        doc = document_id(get(inner, "file_id") or get(item, "file_id"))
        quote = text_of(get(inner, "quote"))
        if quote is not None:
            out.append(Citation(text, doc, quote))
        else:
            cited.append((item, doc))
    claims = markers.openai_claims(text, [item for item, _ in cited])
    located = {m.citation.document_id for m in claims}
    out.extend(m.citation for m in claims)
    out.extend(Citation(text, doc, None) for _, doc in cited if doc not in located)
    return out


def _inline(text: str, walk: _Walk) -> list[Citation]:
    """Inline quotes and source markers of one answer text, in one pass each.

    Both are read: an answer that quotes some sources and only marks others (``"..." [a]``
    and ``... fell [3].``) has every citation audited, the markers after the quotes. A text
    longer than the budget's characters is read up to the cut: what was found before it is
    kept, and the budget records the cut (``text_chars``).
    """
    budget = walk.budget
    was = budget.exhausted
    endpos = budget.text(len(text))
    cut = was is None and budget.exhausted == "text_chars"
    if cut:  # read the part allowed, then record the cut
        budget.exhausted = None
    try:
        quoted = _quoted(text, walk, endpos)
        marked = _marked(text, walk, endpos, quoted[1]) if endpos else []
    finally:
        if cut and budget.exhausted is None:
            budget.exhausted = "text_chars"
    return quoted[0] + marked


def _quoted(text: str, walk: _Walk, endpos: int) -> tuple[list[Citation], list[tuple[int, int]]]:
    """Inline quotes (sentence bounds found moving forward, never rescanned), and the spans of
    their ``[doc-id]`` brackets (not markers of their own)."""
    found: list[Citation] = []
    brackets: list[tuple[int, int]] = []
    lo = scanned = 0  # the last sentence start before the match; how far it was looked for
    stop: re.Match[str] | None = None
    stop_known = False  # ``stop`` is the first sentence end at or after the last match's end
    for m in _INLINE.finditer(text, 0, endpos):
        if not walk.budget.take():
            break
        for end in _SENTENCE_END.finditer(text, scanned, m.start()):
            lo = end.end()
        scanned = max(scanned, m.start())
        if not stop_known or (stop is not None and stop.start() < m.end()):
            stop, stop_known = _SENTENCE_END.search(text, m.end()), True
        hi = stop.end() if stop else len(text)
        claim = text[max(lo, m.start() - MAX_CLAIM_CONTEXT):min(hi, m.end() + MAX_CLAIM_CONTEXT)]
        found.append(Citation(claim.strip(), document_id(m.group("doc")), m.group("quote")))
        brackets.append((m.start("doc") - 1, m.end("doc") + 1))
    return found, brackets


def _marked(text: str, walk: _Walk, endpos: int,
            brackets: list[tuple[int, int]]) -> list[Citation]:
    """Numbered, id or footnote markers outside the inline quotes' brackets (a node per
    bracket, paid before the work: the markers' cost is linear in them)."""
    if not walk.budget.take(text.count("[", 0, endpos)):
        return []
    head = text[:endpos]
    if brackets:  # an inline quote's [doc-id] is its citation, not a second one
        pieces, pos = [], 0
        for a, b in brackets:
            pieces.append(head[pos:a])
            pieces.append(" " * (b - a))
            pos = b
        pieces.append(head[pos:])
        head = "".join(pieces)
        if "[" not in head:
            return []
    return [m.citation for m in markers.marked_claims(head)]


def _content_blocks(blocks: Iterable[Any], walk: _Walk, depth: int) -> list[Citation]:
    out: list[Citation] = []
    for block in blocks:
        if not walk.budget.take():
            break
        text = get(block, "text")
        if not isinstance(text, str):  # OpenAI assistants: {"text": {"value", "annotations"}}
            inner = text
            text = text_of(get(inner, "value")) or ""
            annotations = get(inner, "annotations")
        else:
            annotations = get(block, "annotations")
        cited = get(block, "citations")
        for item in cited if is_list(cited) else ():  # anything else is not a citation list
            if not walk.budget.take():
                break
            c = _anthropic(text, item)
            out.extend([c] if c is not None else citations_from_item(item, depth + 1))
        if is_list(annotations):
            out.extend(_openai_annotations(text, annotations))
    return out


def citations_from_item(item: Any, depth: int = 0) -> list[Citation]:
    """The citations of one item of a citations list (``[]`` if unrecognised): one, or one
    per source for a Cohere span citing several."""
    read: Callable[[str], Any]
    if type(item) is dict:  # most items: read through their own ``get`` (:func:`reader`)
        read = item.get
    elif isinstance(item, _NOT_ITEMS):
        return []
    else:
        read = reader(item)
    sources, ids = read("sources"), read("document_ids")
    if sources is not None or ids is not None:
        return _cohere(item, sources, ids)
    single = _generic(item, read)
    return [single] if single is not None else []


def citation_from_item(item: Any, depth: int = 0) -> Citation | None:
    """The first citation of one item of a citations list (``None`` if unrecognised)."""
    found = citations_from_item(item, depth)
    return found[0] if found else None


def _listed(items: Iterable[Any], budget: Budget,
            cited: Callable[[Any], list[Citation]] = citations_from_item) -> list[Citation]:
    """The items of a ``citations`` list, a node each, ``cited`` each (one citation per
    recognised item), in order (the same item twice is two citations: enforce mode keeps or
    drops each by position)."""
    out: list[Citation] = []
    take = budget.take
    for item in items:
        if not take():
            break
        out.extend(cited(item))
    return out


def generic_answer_citations(items: list[dict[str, Any]], budget: Budget) -> list[Citation]:
    """What :func:`extract_citations` reads of the generic reader's own answer shape whose
    ``citations`` are ``items`` (:func:`vcg_otel.reading.registry.generic_answer` told it:
    plain dicts of the generic citation fields), without asking again what the answer and
    its items are: a node for the answer (:meth:`_Walk.enter`), then its list as
    :func:`_listed` reads it, a node an item. Reading a plain dict charges nothing else, so
    the nodes are taken first, in one call (:meth:`Budget.taken`), and the items they cover
    read after. Run with ``budget`` the running one."""
    out: list[Citation] = []
    paid = budget.taken(1 + len(items)) - 1  # items read only once paid for
    for item in items[:max(paid, 0)]:
        single = _fields(item.get)  # no ``sources``/``document_ids``: not a Cohere span
        if single is not None:
            out.append(single)
    return out


def _citations(result: Any, walk: _Walk, depth: int) -> list[Citation]:
    if depth > MAX_DEPTH or result is None or isinstance(result, _SCALARS):
        return []
    if isinstance(result, str):
        return _inline(result, walk)
    if isinstance(result, Citation):
        return [result]
    if not walk.enter(result):  # seen before (shared or cyclic), or out of budget
        return []
    if is_list(result):
        out: list[Citation] = []
        for item in result:
            if isinstance(item, _SCALARS):
                if not walk.budget.take():
                    break
                continue
            items = citations_from_item(item, depth) if not is_list(item) else []
            out.extend(items if items else _citations(item, walk, depth + 1))
            if walk.budget.exhausted is not None:
                break
        return out
    listed = get(result, "citations")
    if is_list(listed):
        return _listed(listed, walk.budget)
    content = get(result, "content")
    if is_list(content):
        found = _content_blocks(content, walk, depth)
        if found:
            return found
    for key in ("message", "output", "choices"):
        inner = get(result, key)
        if inner is not None and inner is not result:
            found = _citations(inner, walk, depth + 1)
            if found:
                return found
    annotations = get(result, "annotations")
    if is_list(annotations):
        text = text_of(content) or ""
        return _openai_annotations(text, annotations)
    if isinstance(content, str):
        return _inline(content, walk)
    single = _generic(result, reader(result))
    return [single] if single is not None else []


def extract_citations(result: Any, budget: Budget | None = None) -> list[Citation]:
    """Citations found in a handler's result (``[]`` when there are none).

    ``budget`` bounds the work (default: a fresh :class:`Budget`); pass one shared with
    :func:`extract_documents` to bound a whole call and to learn whether it ran out.
    """
    walk = _Walk(budget)
    return charged(walk.budget, _citations, result, walk, 0)


# --- documents -------------------------------------------------------------------------------


def _doc_id(item: Any, position: int) -> str:
    for key in ("id", "doc_id", "document_id", "source_id", "node_id", "id_"):
        value = document_id(get(item, key))
        if value is not None:
            return value
    metadata = get(item, "metadata")
    if isinstance(metadata, Mapping):
        for key in ("id", "doc_id", "document_id", "source"):
            value = document_id(metadata.get(key))
            if value is not None:
                return value
    return str(position)


def _documents(obj: Any, walk: _Walk, depth: int) -> dict[str, str]:
    if depth > MAX_DEPTH or obj is None or isinstance(obj, (str, *_SCALARS)):
        return {}
    if not walk.enter(obj):
        return {}
    if isinstance(obj, Mapping):
        if obj and walk.budget.take(len(obj)) and all(isinstance(v, str) for v in obj.values()):
            return {document_id(k) or f"#{position}": v
                    for position, (k, v) in enumerate(obj.items())}
        inner = obj.get("documents")
        return _documents(inner, walk, depth + 1) if inner is not None else {}
    if is_list(obj):
        docs: dict[str, str] = {}
        for position, item in enumerate(obj):
            if not walk.budget.take():
                break
            if isinstance(item, str):
                docs[str(position)] = item
                continue
            if isinstance(item, _SCALARS):
                continue
            node = get(item, "node")  # LlamaIndex NodeWithScore
            target = node if node is not None and doc_text(item) is None else item
            text = doc_text(target)
            if text is not None:
                key = _doc_id(target, position)
                docs[key if key not in docs else f"{key}#{position}"] = text
        return docs
    inner = get(obj, "documents")
    return _documents(inner, walk, depth + 1) if inner is not None else {}


def extract_documents(obj: Any, budget: Budget | None = None) -> dict[str, str]:
    """Documents (id to text) found in an argument or result (``{}`` when there are none).

    ``budget``: as for :func:`extract_citations`.
    """
    walk = _Walk(budget)
    return charged(walk.budget, _documents, obj, walk, 0)


# --- a decorated call's arguments ----------------------------------------------------------

#: Arguments searched for documents when no ``documents=`` extractor is given, in this order.
DOCUMENT_ARGUMENTS = ("documents", "docs", "context", "sources")


class _PlainBinding:
    """How a signature without ``*args``, ``**kwargs`` or positional-only parameters binds a
    call: what :meth:`inspect.Signature.bind_partial` and ``apply_defaults`` give, worked out
    once per signature (binding through ``inspect`` costs the decorator ~4 µs a call)."""

    __slots__ = ("defaults", "known", "names", "positional", "whole")

    def __init__(self, signature: inspect.Signature) -> None:
        params = signature.parameters.values()
        self.positional = tuple(p.name for p in params if p.kind is p.POSITIONAL_OR_KEYWORD)
        self.names = tuple(signature.parameters)
        self.known = frozenset(self.names)
        self.defaults = {p.name: p.default for p in params if p.default is not p.empty}
        # every parameter positional-or-keyword: a call giving all of them positionally (the
        # usual one) binds them in order, with no default or keyword to look at
        self.whole = len(self.positional) == len(self.names)

    def bind(self, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> dict[str, Any]:
        """The call's arguments in parameter order, defaults included; just the keywords when
        ``bind_partial`` would raise (too many positional arguments, an unknown keyword, one
        given twice)."""
        if not kwargs and self.whole and len(args) == len(self.names):
            return dict(zip(self.names, args, strict=True))
        if len(args) > len(self.positional):
            return dict(kwargs)
        given = dict(zip(self.positional, args, strict=False))
        for name in kwargs:
            if name in given or name not in self.known:
                return dict(kwargs)
        given.update(kwargs)
        defaults = self.defaults
        return {name: given[name] if name in given else defaults[name] for name in self.names
                if name in given or name in defaults}


_BINDINGS: dict[int, tuple[inspect.Signature, _PlainBinding | None]] = {}


def _plain_binding(signature: inspect.Signature) -> _PlainBinding | None:
    """``signature``'s :class:`_PlainBinding`, remembered (a decorated function's signature
    is made once); ``None`` for a signature with ``*args``, ``**kwargs`` or positional-only
    parameters, which ``inspect`` binds."""
    hit = _BINDINGS.get(id(signature))
    if hit is not None and hit[0] is signature:
        return hit[1]
    kinds = {p.kind for p in signature.parameters.values()}
    plain = (_PlainBinding(signature) if kinds <= {inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                                   inspect.Parameter.KEYWORD_ONLY} else None)
    if len(_BINDINGS) >= 256:  # signatures made per call (a caller's own): stay bounded
        _BINDINGS.clear()
    _BINDINGS[id(signature)] = (signature, plain)
    return plain


def call_arguments(signature: inspect.Signature | None, args: tuple[Any, ...],
                   kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """A call's arguments by parameter name, defaults included (a default ``documents=...``
    counts too), the keywords a ``**kwargs`` caught under their own names (a wrapper of
    ``client.messages.create(**kwargs)`` passes ``messages=`` on); just the keywords when the
    signature is unknown or does not bind."""
    if signature is None:
        return dict(kwargs)
    plain = _plain_binding(signature)
    if plain is not None:
        return plain.bind(args, kwargs)
    try:
        bound = signature.bind_partial(*args, **kwargs)
    except TypeError:
        return dict(kwargs)
    bound.apply_defaults()
    arguments = dict(bound.arguments)
    for name, param in signature.parameters.items():  # ``**kwargs``: its keywords by name
        extra = arguments.get(name) if param.kind is param.VAR_KEYWORD else None
        if isinstance(extra, dict):
            del arguments[name]
            arguments.update({k: v for k, v in extra.items() if k not in arguments})
    return arguments


def call_binder(signature: inspect.Signature | None
                ) -> Callable[[tuple[Any, ...], Mapping[str, Any]], dict[str, Any]]:
    """:func:`call_arguments` of ``signature``, with what it works out of the signature
    worked out once: for a caller that binds every call of one function (the decorator),
    ``binder(args, kwargs)`` is then the binding itself (:meth:`_PlainBinding.bind`)."""
    plain = _plain_binding(signature) if signature is not None else None
    return plain.bind if plain is not None else partial(call_arguments, signature)


def call_sources(arguments: Mapping[str, Any], result: Any) -> list[Any]:
    """Where a call's documents may be: the :data:`DOCUMENT_ARGUMENTS` it was given (first:
    their order is the context list the prompt showed), then its result."""
    return [arguments[name] for name in DOCUMENT_ARGUMENTS if name in arguments] + [result]
