"""The document model: every retrieved chunk under every name a prompt could have shown for it.

An answer cites a document the way its prompt showed it: a file name, a ``source`` path, a
``doc_id`` in metadata, a framework id, a position in the context list. Frameworks key their
documents by ids the model never saw (LangChain's in-memory store: UUIDs; Haystack: content
hashes; LlamaIndex: node UUIDs). Keying documents by one chosen id therefore turns honest
quotes into ``misattributed`` ones. Here each chunk is reachable under all of its identifiers:

========================  ================================================================
resolution (telemetry)    identifiers
========================  ================================================================
``id``                    the framework id (``id``, ``node_id``/``id_``, a mapping's key), a
                          top-level ``doc_id``/``document_id``/``source_id``, metadata
                          (``metadata`` or Haystack's ``meta``) ``id``/``doc_id``/
                          ``document_id``/``source_id``, LlamaIndex ``ref_doc_id``, and any
                          ``id_keys=`` the app names
``path``                  metadata ``source``, ``file_path``, ``file_name`` as given
``basename``              their last path component (``papers/smith-2026.pdf``: ``smith-2026.pdf``)
``stem``                  that without its suffix (``smith-2026``)
``position``              the chunk's place in the list it was retrieved in (see below)
``case_insensitive``      any of ``id``/``path``/``basename``/``stem``, ignoring case
========================  ================================================================

Rules (deliberate, and tested):

* A cited identifier resolves to the **group** of chunks that carry it at the strongest level
  that matches anything (the order of the table). Chunks of one file share its ``source`` and
  so form one group; the quote is ``found`` if it is in any chunk of the group, and the match
  names that chunk (:attr:`GateMatch.document_id`) and the offsets in its text. An identifier
  several files share (two ``README.md`` in different folders cited as ``README``) resolves to
  all of them: the answer could not have been more precise under that name.
* **Chunks of one file are one text.** A splitter cuts sentences; a quote crossing the cut
  is in no chunk. Chunks naming the same file (LlamaIndex ``ref_doc_id``, metadata
  ``file_path``/``source``/``file_name``, Haystack's ``source_id`` next to ``split_id``) that
  are *proven* consecutive (by the splitter's offsets, or an exact overlap: see
  :mod:`vcg_otel.stitch`) are also searched as the file's rebuilt text, after each chunk; a
  match there names the chunks it lies in and its offsets in them and in the file
  (:class:`ResolvedMatch`). A gap (chunk 3 and chunk 7) is never bridged, so a quote joining
  places that are not adjacent stays ``not_found``. A citation joins only the chunks it names.
* **Positions**: apps number their context from 0 (LangChain's citation how-to, Anthropic's
  ``document_index``) or from 1 (LlamaIndex's ``CitationQueryEngine``, "[1]" styles). By
  default a cited number ``n`` resolves to the chunks at 0-based positions ``n`` *and*
  ``n - 1``: an honest citation is found under either convention, at the price of not
  calling a quote from the neighbouring chunk misattributed. ``position_base=0`` or ``1``
  makes it strict. A number that is also an explicit identifier (``id`` level) of some chunk
  means that identifier only; positions are never consulted then.
* ``misattributed`` means the quote is in a chunk that carries none of the cited identifiers;
  a quote in no chunk at all is ``not_found`` with reason ``no_match`` when the identifier
  resolved, ``unknown_document`` only when it did not.
* A citation that names no document is searched in all of them (resolution ``any``): ``found``
  or ``not_found``, never ``misattributed`` (it attributed nothing).
* With no documents at all nothing can be checked: :meth:`DocumentSet.gate` returns ``None``
  and the citation is ``unverifiable`` (never ``not_found``: no false fabrication).

The same chunk reached twice (in the arguments and in the result, or in two outputs of one
Haystack pipeline) is kept once, with the position of its first list.
"""

from __future__ import annotations

import posixpath
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, fields
from functools import lru_cache
from itertools import repeat
from operator import attrgetter, is_
from typing import Any

from ._frozen import slot_builder
from ._lru import BoundedLRU
from .citation import Citation
from .gate import Corpus, GateMatch, GateResult, NotFoundReason, parse_quote, quote_gate, span_gate
from .gate.api import MAX_QUOTE_CHARS, Rejected, checked_quote_gate, search_arguments
from .gate.corpus import ContentKey
from .gate.fast import Located
from .gate.quote import ParsedQuote
from .gate.result import NO_DIAGNOSIS, LazyDiagnosis
from .gate.search import DEFAULT_MAX_GAP, SearchBudget, SearchLimitReached, Span, find_quote
from .otel import semconv
from .places import Run
from .reading.walk import Budget, charged, doc_text, document_id, get
from .stitch import Locus, runs

__all__ = [
    "DOCUMENT_KEYS",
    "Chunk",
    "DocumentSet",
    "Resolution",
    "ResolvedMatch",
    "find_chunks",
]

#: Keys and attributes under which results and arguments hold their documents.
DOCUMENT_KEYS = ("documents", "docs", "context", "source_documents", "sources", "source_nodes")
# Containers whose *values* are searched for documents too (Haystack ``Pipeline.run`` outputs
# are ``{component: {socket: value}}``; ``answers`` hold ``GeneratedAnswer.documents``).
_NESTED_KEYS = ("answers", "answer")
# A mapping of strings with one of these keys is an answer ({"input", "answer"}) or one
# document described by its fields (Cohere's {"id", "title", "snippet"}), not a mapping of
# document id to text: neither its answer nor its field names may become documents.
_NOT_DOCUMENTS = frozenset({"input", "query", "question", "answer", "result", "response",
                            "output", "text", "data", "replies", "reply", "message",
                            "id", "title", "snippet", "url", "uri", "source", "content",
                            "doc_id", "document_id", "source_id", "filename", "file_id",
                            "type"})
_ID_ATTRS = ("id", "node_id", "id_", "doc_id", "document_id", "source_id")
_META_IDS = ("id", "doc_id", "document_id", "source_id")
_META_PATHS = ("source", "file_path", "file_name")
_MAX_DEPTH = 6

_LEVELS = ("id", "path", "basename", "stem", "position", "case_insensitive")
Resolution = str  # one of _LEVELS, "any" (no id cited) or "unresolved"
Names = list[tuple[str, str]]  # (identifier, level), strongest first
Found = tuple[str, "int | None", Names]  # (text, position, names)
_Located = tuple[str, "int | None", Names, "Locus | None"]  # ... and where it sits in its file
# One chunk to add: (text, position, names, locus), in the order of DocumentSet.add_chunk's
# effect.
_Entry = tuple[str, "int | None", tuple[tuple[str, str], ...], "Locus | None"]
# The file a chunk was split from, strongest first: LlamaIndex's SOURCE relationship, then the
# metadata paths; Haystack's ``source_id`` only next to its splitter's ``split_id`` (elsewhere
# apps use ``source_id`` for the chunk's own id).
_FILE_PATHS = ("file_path", "source", "file_name")
# Splitter offsets of a chunk's first character in its file (LangChain, Haystack), and
# LlamaIndex's node attributes.
_META_STARTS = ("start_index", "split_idx_start")


def _ident(value: Any) -> str | None:
    ident = document_id(value)  # what extraction accepts as an id (no control chars, bounded)
    if ident is None:
        return None
    return ident.strip() or None


@lru_cache(maxsize=4096)
def _str_ident(key: str) -> str | None:
    """:func:`_ident` of a ``str`` key, remembered: the keys of a mapping of id to text
    recur call after call."""
    return _ident(key)


def _key_ident(key: Any) -> str | None:
    """:func:`_ident` of a mapping's key (a ``str`` key's remembered: :func:`_str_ident`)."""
    return _str_ident(key) if type(key) is str else _ident(key)


def _metadata(item: Any) -> Mapping[str, Any]:
    for key in ("metadata", "meta"):
        value = get(item, key)
        if isinstance(value, Mapping):
            return value
    return {}


@dataclass(frozen=True, slots=True)
class Chunk:
    """One retrieved document or chunk.

    Attributes:
        key: unique within its set; the name the gate, reports and telemetry use for it.
        text: what the prompt could show.
        position: 0-based place in the list it came from (``None`` for a mapping entry).
        names: ``(identifier, level)`` pairs, strongest first (levels as in the module doc).
        locus: the file it was split from and the splitter's offset in it
            (:mod:`vcg_otel.stitch`: chunks of one file proven consecutive are searched as
            one text); ``None`` when it names no file.
    """

    key: str
    text: str
    position: int | None
    names: tuple[tuple[str, str], ...]
    locus: Locus | None = None


def _offset(value: Any) -> int | None:
    return value if type(value) is int and value >= 0 else None


def _locus(item: Any, meta: Mapping[str, Any], text: str) -> Locus | None:
    """Where a framework chunk says it sits: its file (see :data:`_FILE_PATHS`) and the
    splitter's offset, kept only when consistent with its text (an end offset, if given,
    ``len(text)`` after the start)."""
    file = _ident(get(item, "ref_doc_id"))
    for key in _FILE_PATHS:
        if file is None:
            file = _ident(meta.get(key))
            page = meta.get("page")  # page-per-document loaders (LangChain's PDF loaders):
            if file is not None and isinstance(page, (int, str)):  # the splitter split a page
                file = f"{file}\x00page {page}"
    if file is None and "split_id" in meta:
        file = _ident(meta.get("source_id"))
    if file is None:
        return None
    start = end = None
    for key in _META_STARTS:
        if start is None:
            start = _offset(meta.get(key))
    if start is None:
        start, end = _offset(get(item, "start_char_idx")), _offset(get(item, "end_char_idx"))
    if start is not None and end is not None and end - start != len(text):
        start = None  # the text was changed after splitting: the offset is not its own
    return Locus(file, start)


def _names(item: Any, id_keys: Sequence[str], meta: Mapping[str, Any]) -> Names:
    names: Names = []
    for attr in _ID_ATTRS:
        ident = _ident(get(item, attr))
        if ident is not None:
            names.append((ident, "id"))
    ref = _ident(get(item, "ref_doc_id"))  # LlamaIndex: the file a node was split from
    if ref is not None:
        names.append((ref, "id"))
    for key in (*id_keys, *_META_IDS):
        ident = _ident(meta.get(key))
        if ident is not None:
            names.append((ident, "id"))
    paths = [p for p in (_ident(meta.get(k)) for k in _META_PATHS) if p is not None]
    names.extend((p, "path") for p in paths)
    for p in paths:
        base = posixpath.basename(p.replace("\\", "/").rstrip("/"))
        if base:
            names.append((base, "basename"))
            stem = base.rsplit(".", 1)[0] if "." in base.lstrip(".") else base
            names.append((stem, "stem"))
    seen: set[str] = set()
    unique = []
    for ident, level in names:
        if ident not in seen:
            seen.add(ident)
            unique.append((ident, level))
    return unique


def _chunk_of(item: Any, id_keys: Sequence[str]) -> tuple[str, Names, Locus | None] | None:
    if isinstance(item, str):
        return item, [], None
    node = get(item, "node")  # LlamaIndex NodeWithScore: the node carries ref_doc_id
    target = node if node is not None and doc_text(node) is not None else item
    text = doc_text(target)
    if text is None:
        return None
    meta = _metadata(target)
    return text, _names(target, id_keys, meta), _locus(target, meta, text)


def find_chunks(obj: Any, id_keys: Sequence[str] = (),
                budget: Budget | None = None) -> Iterator[Found]:
    """Every document found in ``obj``: ``(text, position, names)``, in order.

    Reads a mapping of id to text; lists of strings, dicts or framework documents (LangChain
    ``Document``, Haystack ``Document``, LlamaIndex nodes and ``NodeWithScore``); and, nested,
    the keys and attributes in :data:`DOCUMENT_KEYS` (plus ``answers``/``answer`` and
    Haystack's ``{component: {socket: value}}`` pipeline outputs). Nothing framework-specific
    is imported: everything is duck-typed. The work is bounded by ``budget`` (extraction's
    :class:`~vcg_otel.reading.walk.Budget`: a node per container and item; each container is
    visited once); when it runs out the walk stops and keeps what it found. The walk is made
    whole before the first document is yielded.
    """
    for text, position, names, _ in _located_chunks(obj, id_keys, budget):
        yield text, position, names


def _located_chunks(obj: Any, id_keys: Sequence[str],
                    budget: Budget | None) -> list[_Located]:
    """:func:`find_chunks`, with each chunk's :class:`~vcg_otel.stitch.Locus`: the whole walk,
    made at once (within ``budget``)."""
    walk = _Walker(tuple(id_keys), budget if budget is not None else Budget())
    charged(walk.budget, walk.walk, obj, 0)  # attribute reads of app objects are charged to it
    return walk.out


# Where documents are looked for under a mapping or object, in order.
_INNER_KEYS = (*DOCUMENT_KEYS, *_NESTED_KEYS)
_INNER_SET = frozenset(_INNER_KEYS)
# Exact types that are never a Mapping: told so without ``isinstance(value, Mapping)``, an
# abstract class's check (a call into Python for every type that is not a dict).
_NO_MAPPINGS = frozenset({str, list, tuple, int, float, bool, bytes, type(None)})
# What the walk goes into none of (besides ``None``).
_LEAVES = (str, bytes, int, float)

# The key that keeps the same chunk found twice once (:meth:`DocumentSet.from_sources`).
_Seen = tuple[str, tuple[tuple[str, str], ...]]
# A plain dict's chunks: its entries, each chunk once, and their keys.
_Plain = tuple[Sequence[_Entry], frozenset[_Seen]]
_NOTHING: _Plain = ((), frozenset())
# The plain dict of id to text read last, as its keys then its values (exact ``str`` all), and
# its chunks: the same documents passed again (the usual ``documents`` argument of an app whose
# retrieval repeats) are not read into chunks again, and their entries, the very same objects,
# find the set built from them at once (:class:`_BuiltSets`).
_last_plain: tuple[list[str], _Plain] | None = None


def _plain_chunks(obj: Any, budget: Budget) -> _Plain | None:
    """The chunks of ``obj`` when it is a plain ``dict`` that the walk reads without going
    into any of its values: a mapping of id to text (the usual ``documents`` argument), or a
    dict holding no document (an app's answer, ``{"answer": "...", "citations": [...]}``:
    no chunk, :func:`_no_chunks`). Exactly what :func:`_located_chunks` yields for it, with
    the same charges to ``budget``, each chunk once (the same text under the same name twice:
    ids that are the same once stripped) and with its key in
    :meth:`DocumentSet.from_sources`'s ``seen``. ``None`` for any other object (the walk
    reads it). Shared: never changed.

    The walk's own conditions, in its order: a new walker has seen nothing, so it takes one
    node for the dict, then one per item, and reads the items as ``(text, None, [(id, "id")])``
    when every value is a ``str`` and no key says it is no document; a budget that runs out
    leaves nothing read (the walk would then look at the dict's keys for nested documents and
    find only strings). A plain dict reads no attribute, so the walk's charging of attribute
    reads has nothing to charge.

    The dict read last is remembered by content (:data:`_last_plain`): the same keys and
    texts, each the same object or an equal exact ``str`` (never a subclass, which may compare
    as it likes), are the same chunks. Only a dict whose texts the built sets' cache could
    hold is remembered (it keeps them alive)."""
    global _last_plain
    if type(obj) is not dict or not obj:
        return None
    last = _last_plain
    flat: list[Any] | None = None  # keys then texts: made only to compare or to remember
    all_str: bool | None = None  # every key and text an exact ``str``: scanned once, if asked
    if last is not None and len(last[0]) == 2 * len(obj):
        flat = [*obj, *obj.values()]
        if all(map(is_, flat, last[0])) or (
                (all_str := all(map(is_, map(type, flat), repeat(str)))) and flat == last[0]):
            return last[1] if budget.take() and budget.take(len(obj)) else _NOTHING
    if (not all(map(isinstance, obj.values(), repeat(str)))
            or not _NOT_DOCUMENTS.isdisjoint(obj)):
        return _no_chunks(obj, budget)
    if not (budget.take() and budget.take(len(obj))):
        return _NOTHING
    entries: list[_Entry] = []
    seen: set[_Seen] = set()
    for k, v in obj.items():
        ident = _key_ident(k)
        names = () if ident is None else ((ident, "id"),)
        if (v, names) not in seen:
            seen.add((v, names))
            entries.append((v, None, names, None))
    chunks = (entries, frozenset(seen))
    if flat is None:
        flat = [*obj, *obj.values()]
    if all_str is None:
        all_str = all(map(is_, map(type, flat), repeat(str)))
    if all_str and sum(map(len, obj.values())) <= _built_sets.max_size:
        _last_plain = (flat, chunks)
    return chunks


def _no_chunks(obj: dict[Any, Any], budget: Budget) -> _Plain | None:
    """No chunk, charged as the walk charges it, when the walk of ``obj`` (a plain dict not
    of id to text) would go into none of its values, else ``None``: the walk takes a node for
    the dict and one per item, then walks the values under :data:`_INNER_KEYS` and the
    mappings among its values (:meth:`_Walker._mapping`), each of which it leaves at once
    when it is ``None``, a string or a number. Which of them it would go into first does not
    matter here: each item is looked at once, in the dict's order."""
    for key, value in obj.items():
        kind = type(value)
        if ((key in _INNER_SET or kind is dict
             or (kind not in _NO_MAPPINGS and isinstance(value, Mapping)))
                and not _leaf(value)):
            return None
    if budget.take():
        budget.take(len(obj))
    return _NOTHING


def _leaf(obj: Any) -> bool:
    """Whether the walk leaves ``obj`` at once (:meth:`_Walker.walk`'s first test)."""
    return obj is None or isinstance(obj, _LEAVES)


def _only_ids(names: tuple[tuple[str, str], ...]) -> bool:
    """Whether every name is an ``id`` (a mapping of id to text's one name per chunk): the
    names are then their own ``id`` names, with no list to filter them into."""
    return not names or (len(names) == 1 and names[0][1] == "id")




class _Walker:
    """One walk of :func:`_located_chunks`: the chunks found (:attr:`out`, in order), made by
    plain calls that append to one list (a chunk is not passed up a generator per level)."""

    __slots__ = ("budget", "id_keys", "out", "seen")

    def __init__(self, id_keys: tuple[str, ...], budget: Budget) -> None:
        self.id_keys = id_keys
        self.budget = budget
        self.seen: dict[int, Any] = {}  # kept alive: an id is never reused during the walk
        self.out: list[_Located] = []

    def enter(self, obj: Any) -> bool:
        if id(obj) in self.seen or not self.budget.take():
            return False
        self.seen[id(obj)] = obj
        return True

    def walk(self, obj: Any, depth: int) -> None:
        if depth > _MAX_DEPTH or obj is None or isinstance(obj, _LEAVES):
            return
        if not self.enter(obj):
            return
        kind = type(obj)  # the usual containers told without the abstract classes' checks
        if kind is dict or (kind not in _NO_MAPPINGS and isinstance(obj, Mapping)):
            self._mapping(obj, depth)
        elif isinstance(obj, (list, tuple)):
            self._sequence(obj, depth)
        else:
            self._object(obj, depth)

    def _mapping(self, obj: Mapping[Any, Any], depth: int) -> None:
        if (obj and self.budget.take(len(obj)) and all(map(isinstance, obj.values(), repeat(str)))
                and not _NOT_DOCUMENTS.intersection(obj)):
            out = self.out
            for k, v in obj.items():
                ident = _key_ident(k)
                out.append((v, None, [] if ident is None else [(ident, "id")], None))
            return
        for key in _INNER_KEYS:
            if key in obj:
                self.walk(obj[key], depth + 1)
        for value in obj.values():  # Haystack pipeline outputs: {component: {socket: value}}
            kind = type(value)
            if kind is dict or (kind not in _NO_MAPPINGS and isinstance(value, Mapping)):
                self.walk(value, depth + 1)

    def _sequence(self, obj: Sequence[Any], depth: int) -> None:
        for position, item in enumerate(obj):
            if not self.budget.take():
                return
            found = _chunk_of(item, self.id_keys)
            if found is not None:
                self.out.append((found[0], position, found[1], found[2]))
            elif not isinstance(item, str):
                self.walk(item, depth + 1)  # e.g. a list of GeneratedAnswer

    def _object(self, obj: Any, depth: int) -> None:
        if doc_text(obj) is not None and (get(obj, "id") is not None or _metadata(obj)):
            found = _chunk_of(obj, self.id_keys)  # a single document returned on its own
            if found is not None:
                self.out.append((found[0], 0, found[1], found[2]))
                return
        for key in _INNER_KEYS:
            inner = get(obj, key)
            if inner is not None and inner is not obj:
                self.walk(inner, depth + 1)


@dataclass(frozen=True, slots=True, eq=False)
class ResolvedMatch(GateMatch):
    """A gate match that also says how the cited identifier was resolved.

    Attributes:
        resolution: the level that matched (``id``, ``path``, ``basename``, ``stem``,
            ``position``, ``case_insensitive``), ``any`` (no id cited) or ``unresolved``.
        group: keys of every chunk the identifier resolved to (the quote was searched in all).
        chunks: for a match that crosses chunk boundaries (found in the text of consecutive
            chunks of one file, rebuilt by :mod:`vcg_otel.stitch`; :attr:`document_id` then
            names that text, whose offsets ``start``/``end`` index it, and
            :meth:`DocumentSet.text` returns it): the chunks it lies in, in file order.
            Empty for a match inside one chunk.
        chunk_start, chunk_end: for such a match, its start in the first of those chunks and
            its end in the last.
        file_start, file_end: the match's offsets in the file, when the splitter gave the
            chunk's (or chunks') offsets; ``None`` otherwise.
    """

    resolution: Resolution = "unresolved"
    group: tuple[str, ...] = ()
    chunks: tuple[str, ...] = ()
    chunk_start: int | None = None
    chunk_end: int | None = None
    file_start: int | None = None
    file_end: int | None = None

    def to_dict(self) -> dict[str, object]:
        data = GateMatch.to_dict(self)
        data["resolution"] = self.resolution
        data["group"] = list(self.group)
        if self.chunks:
            data.update(chunks=list(self.chunks), chunk_start=self.chunk_start,
                        chunk_end=self.chunk_end)
        if self.file_start is not None:
            data.update(file_start=self.file_start, file_end=self.file_end)
        return data


def match_attributes(match: GateMatch | None) -> dict[str, Any]:
    """The ``citation.check`` attributes saying where a match lies in chunks and file (names
    in :mod:`vcg_otel.otel.semconv`): for a match across chunks, how many and which, with its
    offsets in the first and last; the file offsets whenever the splitter gave them."""
    if not isinstance(match, ResolvedMatch):
        return {}
    attrs: dict[str, Any] = {}
    if match.chunks:
        attrs[semconv.GATE_MATCH_CHUNKS] = len(match.chunks)
        attrs[semconv.GATE_MATCH_CHUNK_IDS] = list(match.chunks)
        attrs[semconv.GATE_MATCH_CHUNK_START] = match.chunk_start
        attrs[semconv.GATE_MATCH_CHUNK_END] = match.chunk_end
    if match.file_start is not None and match.file_end is not None:
        attrs[semconv.GATE_MATCH_FILE_START] = match.file_start
        attrs[semconv.GATE_MATCH_FILE_END] = match.file_end
    return attrs


# GateMatch's fields in order (ResolvedMatch's first ones), read in one call.
_match_values = attrgetter(*(f.name for f in fields(GateMatch)))
assert fields(GateMatch)[1].name == "cited_document_id"
# ResolvedMatch(...) with every field given, at the cost of plain slot stores (a match is
# resolved once per citation of every audited call).
_build_resolved = slot_builder(ResolvedMatch)


def _resolved(match: GateMatch, cited: str | None, how: Resolution,
              group: tuple[str, ...], docs: DocumentSet | None = None) -> ResolvedMatch:
    """``match`` as a :class:`ResolvedMatch` of the identifier as cited (with its file
    offsets when ``docs`` knows the splitter offset of the chunk it is in)."""
    values = _match_values(match)
    if docs is not None and match.document_id is not None and match.start is not None:
        base = docs.file_offset(match.document_id)
        if base is not None and match.end is not None:
            return _build_resolved(values[0], cited, *values[2:], how, group, (), None, None,
                                   base + match.start, base + match.end)
    return _build_resolved(values[0], cited, *values[2:], how, group, (), None, None, None,
                           None)


# No file offset told yet for a document (``None`` is an answer: a chunk of no known file).
_UNKNOWN_BASE: Any = object()


def _resolving(docs: DocumentSet, cited: str | None, how: Resolution,
               group: tuple[str, ...]) -> Located:
    """A maker of the gate's found answer (:mod:`vcg_otel.gate.fast`) that makes it the
    :class:`ResolvedMatch` :func:`_resolved` would make of it (with ``docs``), at once: the
    common found quote is then one object built, not a ``GateMatch`` built and copied."""

    # DocumentSet.file_offset's answer, asked of its table without the method in between, and
    # kept per document: the set's rebuilt texts and its makers are replaced together when a
    # chunk is added (DocumentSet.add), so each document's answer stays what it was
    file_start, chunks = docs._joined.file_start, docs.chunks
    bases: dict[str, int | None] = {}

    def located(result: GateResult, cited_document_id: str | None, document_id: str,
                start: int, end: int, text: str, elided: bool,
                pieces: tuple[tuple[int, int], ...], source_document_ids: tuple[str, ...],
                forgiven: tuple[str, ...] = ()) -> ResolvedMatch:
        base = bases.get(document_id, _UNKNOWN_BASE)
        if base is _UNKNOWN_BASE:
            base = bases[document_id] = file_start(chunks, document_id)
        return _build_resolved(result, cited, document_id, start, end, text, elided, pieces,
                               source_document_ids, None, forgiven, NO_DIAGNOSIS, how, group,
                               (), None, None, None if base is None else base + start,
                               None if base is None else base + end)

    return located


def _rejecting(cited: str | None, how: Resolution, group: tuple[str, ...]) -> Rejected:
    """A maker of the gate's answer for a quote shown absent (:func:`vcg_otel.gate.api.
    full_quote_gate`) that makes it the :class:`ResolvedMatch` :func:`_resolved` would make
    of it, at once (as :func:`_resolving` does for a passage found)."""

    def rejected(cited_document_id: str, diagnosis: LazyDiagnosis) -> ResolvedMatch:
        return _build_resolved(_NOT_FOUND, cited, None, None, None, None, False, (), (),
                               _NO_MATCH, (), diagnosis, how, group, (), None, None, None, None)

    return rejected


# A set's resolution of one cited identifier (DocumentSet._resolution): the chunk keys, the
# level, and the makers of its found and rejected answers.
_Resolved = tuple[tuple[str, ...], Resolution, Located, Rejected]
_NOT_FOUND, _NO_MATCH = GateResult.NOT_FOUND, NotFoundReason.NO_MATCH  # read once


def _joined(result: GateResult, cited: str | None, run: Run, span: Span, how: Resolution,
            group: tuple[str, ...], normalized: Any) -> ResolvedMatch:
    """A match in a rebuilt text (``normalized``: the run's normalized form)."""
    start, end = normalized.original_span(span.start, span.end)
    where = run.places(start, end)
    return ResolvedMatch(
        result, cited, run.key, start, end, run.text[start:end], span.elided,
        tuple(normalized.original_span(s, e) for s, e in span.pieces), where.chunks,
        forgiven=span.forgiven, resolution=how, group=group, chunks=where.chunks,
        chunk_start=where.chunk_start, chunk_end=where.chunk_end,
        file_start=where.file_start, file_end=where.file_end)


# The reasons a quote was not searched for where cited (nor will be across chunks), as one
# set: its members read off their enum class once, not per rejected quote (about 0.15 µs each).
_NOT_SEARCHED = frozenset({NotFoundReason.EMPTY_QUOTE, NotFoundReason.QUOTE_TOO_LONG,
                           NotFoundReason.SEARCH_LIMIT})


class _Gathered:
    """The chunks :meth:`DocumentSet.from_sources` gathers, in order, the same chunk once
    (same text, same ``id`` names); a set's or a corpus' chunks are taken as they are.

    The first chunks, when a plain dict's (:func:`_plain_chunks`), are kept as its shared
    entries, and copied only when another source adds to them: the usual call (one
    ``documents`` dict, and a result holding none) copies nothing, and the same dict read
    again gives the very same entries (:meth:`_BuiltSets.recent`)."""

    __slots__ = ("entries", "seen", "shared")

    def __init__(self) -> None:
        self.entries: list[_Entry] = []
        self.seen: set[_Seen] = set()
        self.shared: _Plain | None = None  # the first plain dict's chunks, while they are all

    @property
    def all(self) -> Sequence[_Entry]:
        """Every chunk gathered, in order (shared: never changed)."""
        return self.shared[0] if self.shared is not None else self.entries

    def _own(self) -> None:
        """Copy the shared chunks into this gathering's own, before adding to them."""
        if self.shared is not None:
            self.entries.extend(self.shared[0])
            self.seen.update(self.shared[1])
            self.shared = None

    def extend(self, entries: list[_Entry]) -> None:
        """Add ``entries`` as they are (a set's or a corpus' chunks)."""
        self._own()
        self.entries.extend(entries)

    def add_plain(self, plain: _Plain) -> None:
        """Add a plain dict's chunks (each once already, with their keys)."""
        if not plain[0]:
            return
        if self.shared is None and not self.entries:  # the first chunks: shared
            self.shared = plain
            return
        self._own()
        if not self.seen:  # the first chunks read: all of them (their keys hashed already)
            self.entries.extend(plain[0])
            self.seen.update(plain[1])
            return
        entries, seen = self.entries, self.seen
        for entry in plain[0]:
            if (entry[0], entry[2]) not in seen:
                seen.add((entry[0], entry[2]))
                entries.append(entry)

    def add_walked(self, located: list[_Located]) -> None:
        """Add the chunks a walk found, but those found already."""
        if not located:
            return
        self._own()
        entries, seen = self.entries, self.seen
        for text, position, names, locus in located:
            named = tuple(names)
            ident = (text, named if _only_ids(named) else
                     tuple([n for n in named if n[1] == "id"]))
            if ident in seen:
                continue
            seen.add(ident)
            entries.append((text, position, named, locus))


def _cacheable(entries: Sequence[_Entry], position_base: int | None) -> bool:
    """Whether equal keys over ``entries`` mean equal document sets: exact ``str`` texts and
    names, exact ``int`` positions (``True == 1``, and a ``str`` subclass may compare as it
    likes)."""
    if position_base is not None and type(position_base) is not int:
        return False
    for text, position, names, locus in entries:
        if type(text) is not str or (position is not None and type(position) is not int):
            return False
        if locus is not None and (type(locus.file) is not str or (
                locus.start is not None and type(locus.start) is not int)):
            return False
        for ident, level in names:
            if type(ident) is not str or type(level) is not str:
                return False
    return True


class DocumentSet(Corpus):
    """The retrieved chunks of one request, reachable under every identifier they carry.

    A :class:`~vcg_otel.gate.Corpus` keyed by :attr:`Chunk.key` (so the judge's source window
    and every gate function work on it unchanged), plus an identifier table. Pass it wherever
    documents are accepted; :meth:`gate` checks a citation against the group its identifier
    names.

    Args:
        chunks: from :meth:`from_sources` (usual) or built by hand.
        position_base: ``None`` (default) accepts 0- and 1-based positions; ``0`` or ``1``
            accepts only that one.
    """

    def __init__(self, chunks: Iterable[Chunk] = (), *, position_base: int | None = None) -> None:
        super().__init__()
        if position_base not in (None, 0, 1):
            raise ValueError("position_base must be None, 0 or 1")
        self.position_base = position_base
        self.chunks: list[Chunk] = []
        self._table: dict[str, dict[str, list[str]]] = {level: {} for level in _LEVELS}
        # _resolution()'s answers by (identifier, position base): shared with the table
        self._resolutions: dict[tuple[str | None, int | None], _Resolved] = {}
        self._joined = _Joined()
        for chunk in chunks:
            self._add_chunk(chunk)

    @classmethod
    def from_sources(cls, *sources: Any, id_keys: Sequence[str] = (),
                     position_base: int | None = None,
                     budget: Budget | None = None) -> DocumentSet:
        """Gather the documents of several arguments/results (see :func:`find_chunks`), all
        within one ``budget``. A source that is a :class:`DocumentSet` (e.g. built with
        ``id_keys=`` by a ``documents=`` extractor) or a :class:`Corpus` is taken as it is.

        The same chunk found twice (same framework identifiers and text) is kept once.

        The sources are read on every call (within ``budget``), but a set of chunks seen
        recently (same texts, names, positions and ``position_base``) is not built again: the
        set returned shares the earlier one's tables and normalized texts, copied on its first
        change (at most 16 such sets, 4 M characters in all, least recently used dropped; with
        their normalized forms about 14 MB for mostly-ASCII text). Searches start afresh in
        each, so results and budgets are those of a new set.
        """
        gathered = _Gathered()
        budget = budget if budget is not None else Budget()
        for source in sources:
            if isinstance(source, DocumentSet):  # already resolved: kept as it is
                gathered.extend([(c.text, c.position, c.names, c.locus) for c in source.chunks])
            elif isinstance(source, Corpus):  # a plain corpus: its ids
                gathered.extend([(source.text(key), None, ((key, "id"),), None)
                                 for key in source])
            else:
                plain = _plain_chunks(source, budget)
                if plain is not None:
                    gathered.add_plain(plain)
                else:
                    gathered.add_walked(_located_chunks(source, id_keys, budget))
        return cls._built(gathered.all, position_base)

    @classmethod
    def _built(cls, entries: Sequence[_Entry], position_base: int | None) -> DocumentSet:
        """The set of ``entries`` (added in order), from :data:`_built_sets` when it was built
        recently (its last one when the very same entries made it: :class:`_BuiltSets`)."""
        recent = _built_sets.recent(cls, position_base, entries)
        if recent is not None:
            return recent._fork()
        key = None
        if _cacheable(entries, position_base):
            key = ContentKey((cls, position_base, tuple([(p, n, c) for _, p, n, c in entries])),
                             tuple([t for t, _, _, _ in entries]))
            original = _built_sets.get(key)
            if original is not None:
                _built_sets.remember(cls, position_base, entries, key, original)
                return original._fork()
        made = cls(position_base=position_base)
        for text, position, names, locus in entries:
            made.add_chunk(text, names, position, locus)
        if key is None:
            return made
        _built_sets.put(key, made)  # kept unchanged as the original: callers get forks
        _built_sets.remember(cls, position_base, entries, key, made)
        return made._fork()

    # -- building ------------------------------------------------------------------------------

    def add_chunk(self, text: str, names: Sequence[tuple[str, str]] = (),
                  position: int | None = None, locus: Locus | None = None) -> Chunk:
        """Add one chunk; its key is its first name (made unique), else ``str(position)``.
        ``locus`` says which file it was split from (and where): see :mod:`vcg_otel.stitch`."""
        primary = names[0][0] if names else (str(position) if position is not None
                                             else str(len(self.chunks)))
        key = primary
        if key in self:
            key = f"{primary}#{position if position is not None else len(self.chunks)}"
            while key in self:
                key += "'"
        chunk = Chunk(key, text, position, tuple(names), locus)
        self._add_chunk(chunk)
        return chunk

    def _unshare(self) -> None:
        super()._unshare()
        self.chunks = list(self.chunks)
        self._table = {level: {ident: list(keys) for ident, keys in table.items()}
                       for level, table in self._table.items()}
        self._resolutions = {}  # the shared one answers for the shared table

    def _add_chunk(self, chunk: Chunk) -> None:
        if chunk.key in self:
            raise ValueError(f"duplicate chunk key {chunk.key!r}")
        self.add(chunk.key, chunk.text)
        self.chunks.append(chunk)
        self._joined = _Joined()  # the rebuilt texts are rebuilt on next use
        self._resolutions.clear()  # an id may now name this chunk too
        for ident, level in chunk.names:  # the key itself is a name only if it is one
            self._table[level].setdefault(ident, []).append(chunk.key)
            if level != "position":
                self._table["case_insensitive"].setdefault(ident.casefold(), []).append(chunk.key)
        if chunk.position is not None:
            self._table["position"].setdefault(str(chunk.position), []).append(chunk.key)

    # -- chunks of one file, joined (vcg_otel.stitch) --------------------------------------------

    @property
    def runs(self) -> tuple[Run, ...]:
        """The texts rebuilt from consecutive chunks of one file (:mod:`vcg_otel.stitch`),
        built on first use and kept with the set: a set of chunks built again by
        :meth:`from_sources` (the same retrieval) shares them, normalized forms included."""
        return self._joined.built(self.chunks)

    def joined_parts(self, keys: Collection[str] | None = None) -> list[Run]:
        """The rebuilt texts made only of chunks in ``keys`` (all of them when ``None``): a
        citation joins only chunks it named. Their keys resolve in :meth:`text`."""
        if keys is None:
            return list(self.runs)
        wanted = keys if isinstance(keys, frozenset) else frozenset(keys)
        return [part for run in self.runs for part in self._joined.segments(run, wanted)]

    def text(self, doc_id: Any) -> str:
        """The original text of a chunk, or of a rebuilt text a match names (``KeyError`` if
        neither)."""
        key = str(doc_id)
        if key in self._texts:
            return self._texts[key]
        run = self._joined.named(key)
        if run is None:
            raise KeyError(doc_id)
        return run.text

    def file_offset(self, key: str) -> int | None:
        """The file offset of a chunk's (or rebuilt text's) first character, when the
        splitter gave it."""
        return self._joined.file_start(self.chunks, key)

    def _in_runs(self, quote: ParsedQuote, keys: frozenset[str] | None, skip: frozenset[str],
                 max_gap: int, budget: SearchBudget) -> tuple[Run, Span, Any] | None:
        """The first rebuilt text holding ``quote``: of the runs' parts made of ``keys`` only
        (all runs when ``None``), skipping runs made only of ``skip``. Raises
        :class:`SearchLimitReached` when ``budget`` runs out."""
        for run in self.runs:
            if skip.issuperset(run.keys):
                continue
            for part in (run,) if keys is None else self._joined.segments(run, keys):
                budget.spend()
                normalized = self._cache.get(part.text)
                span = find_quote(normalized, quote, max_gap, budget)
                if span is not None:
                    return part, span, normalized
        return None

    def _gate_joined(self, quote: str, match: GateMatch, cited: str | None, how: Resolution,
                     group: tuple[str, ...], max_gap: int,
                     budget: SearchBudget) -> ResolvedMatch:
        """After the chunk-by-chunk gate (``match``) failed to find the quote where cited (and,
        for a group of several chunks, across them: :meth:`gate` searched that first): one
        crossing chunk boundaries of another file makes a ``not_found`` quote
        ``misattributed``. A frankenquote stays what ``match`` says: only chunks proven
        consecutive are joined."""
        reason = match.reason
        if reason in _NOT_SEARCHED or not self.runs:
            return self._as_resolved(match, cited, how, group)
        parsed = parse_quote(quote)
        mine = frozenset(group)
        try:
            if match.result is GateResult.NOT_FOUND:
                hit = self._in_runs(parsed, None, mine, max_gap, budget)
                if hit is not None:
                    return _joined(GateResult.MISATTRIBUTED, cited, hit[0], hit[1], how, group,
                                   hit[2])
        except SearchLimitReached:
            if match.result is GateResult.NOT_FOUND:
                match = GateMatch(GateResult.NOT_FOUND, cited, reason=NotFoundReason.SEARCH_LIMIT)
        return self._as_resolved(match, cited, how, group)

    def _as_resolved(self, match: GateMatch, cited: str | None, how: Resolution,
                     group: tuple[str, ...]) -> ResolvedMatch:
        """``match`` as :func:`_resolved` makes it: itself when the gate's makers made it so
        (:meth:`_resolution`'s, for ``cited``, ``how`` and ``group``)."""
        if isinstance(match, ResolvedMatch):
            return match
        return _resolved(match, cited, how, group, self)

    # -- resolving -----------------------------------------------------------------------------

    def resolve(self, cited: str | None) -> tuple[tuple[str, ...], Resolution]:
        """The chunk keys a cited identifier names, and at which level (module doc rules)."""
        group, how, _, _ = self._resolution(cited)
        return group, how

    def _resolution(self, cited: str | None) -> _Resolved:
        """:meth:`resolve`'s answer and the makers of the gate's answers for the identifier
        (:func:`_resolving`, :func:`_rejecting`).

        Remembered per identifier with the identifier table, which the sets built again from
        the same chunks share (:meth:`from_sources`), as they share the chunks and the file
        offsets the makers read: a recurring retrieval's citations, which name the same ids
        call after call, are resolved once, and their makers made once."""
        key = (cited, self.position_base)
        known = self._resolutions.get(key)
        if known is not None:
            return known
        group, how = self._resolve(cited)
        resolved = (group, how, _resolving(self, cited, how, group),
                    _rejecting(cited, how, group))
        if len(self._resolutions) >= _MAX_RESOLUTIONS:  # answers citing ever new ids
            self._resolutions.clear()
        self._resolutions[key] = resolved
        return resolved

    def _resolve(self, cited: str | None) -> tuple[tuple[str, ...], Resolution]:
        if cited is None:  # a citation naming no document: it can be in any of them
            return tuple(c.key for c in self.chunks), "any"
        ident = cited.strip()
        if ident.startswith("[") and ident.endswith("]"):
            ident = ident[1:-1].strip()
        for level in ("id", "path", "basename", "stem"):
            keys = self._table[level].get(ident)
            if keys:
                return _unique(keys), level
        positions = self._positions(ident)
        if positions:
            return positions, "position"
        folded = self._table["case_insensitive"].get(ident.casefold())
        if folded:
            return _unique(folded), "case_insensitive"
        return (), "unresolved"

    def _positions(self, ident: str) -> tuple[str, ...]:
        if not ident.isdigit() or len(ident) > 9:
            return ()
        n = int(ident)
        wanted = [n] if self.position_base == 0 else [n - 1] if self.position_base == 1 else [
            n, n - 1]
        table = self._table["position"]
        return _unique([k for p in wanted if p >= 0 for k in table.get(str(p), ())])

    # -- the gate ------------------------------------------------------------------------------

    def gate(self, citation: Citation, max_gap: int = DEFAULT_MAX_GAP,
             budget: SearchBudget | None = None) -> ResolvedMatch | None:
        """Check one citation against the chunks its identifier names.

        Returns ``None`` when nothing can be checked: the citation has neither a quote nor
        offsets, or there are no documents at all (the citation is then ``unverifiable``).
        ``budget`` bounds the search of the whole group (by default one quote's budget per
        gate call); when it runs out the result is ``not_found`` with reason
        ``search_limit``, never ``found`` and never ``no_match``.
        """
        if not self._texts:  # no documents at all
            return None
        cited = citation.document_id
        group, how, located, rejected = self._resolution(cited)
        if citation.has_offsets:
            assert citation.start is not None and citation.end is not None
            last = None
            for key in group or (cited or "",):
                last = span_gate(key, citation.start, citation.end, self, quote=citation.quote,
                                 chunk=citation.chunk, max_gap=max_gap, budget=budget)
                if last.found:
                    break
            assert last is not None
            return _resolved(last, cited, how, group)
        quote = citation.quote
        if quote is None:
            return None
        if not group:  # unresolvable: the plain gate says misattributed or unknown_document
            match = quote_gate(quote, None, self, max_gap=max_gap, budget=budget)
            return self._gate_joined(quote, match, cited, how, group, max_gap,
                                     search_arguments(max_gap, budget))
        # one budget for the whole group, as for one quote_gate call; arguments checked once
        # (the auditor's, an int gap and a budget it made, told by exact types, which no
        # wrong argument has)
        if type(budget) is not SearchBudget or type(max_gap) is not int or max_gap < 0:
            budget = search_arguments(max_gap, budget)
        if len(group) > 1 and len(quote) <= MAX_QUOTE_CHARS:
            parsed = parse_quote(quote)
            if not parsed.empty:
                for key in group:
                    try:
                        where = self.find_in(key, parsed, max_gap, budget)
                    except SearchLimitReached:
                        limited = GateMatch(GateResult.NOT_FOUND, key,
                                            reason=NotFoundReason.SEARCH_LIMIT)
                        return _resolved(limited, cited, how, group)
                    if where is not None:
                        match = checked_quote_gate(quote, key, self, max_gap, budget, located,
                                                   rejected)
                        return self._as_resolved(match, cited, how, group)
                if self.runs:  # in no chunk of the group: across its chunks, before elsewhere
                    try:
                        hit = self._in_runs(parsed, frozenset(group), frozenset(), max_gap,
                                            budget)
                    except SearchLimitReached:
                        limited = GateMatch(GateResult.NOT_FOUND, cited,
                                            reason=NotFoundReason.SEARCH_LIMIT)
                        return _resolved(limited, cited, how, group)
                    if hit is not None:
                        return _joined(GateResult.FOUND, cited, hit[0], hit[1], how, group,
                                       hit[2])
        # One chunk (the common case: one search, not two), or in no chunk of the group: the
        # plain gate against the first one excludes it, and any others were just searched, so
        # anything it finds is outside the group.
        # A passage found, or a quote shown absent, comes as the ResolvedMatch it becomes,
        # made at once by the resolution's makers; any other answer as the gate's GateMatch.
        match = checked_quote_gate(quote, group[0], self, max_gap, budget, located, rejected)
        if match.found:
            return match  # type: ignore[return-value]  # made by located
        # in no chunk where cited: in another file's consecutive chunks?
        return self._gate_joined(quote, match, cited, how, group, max_gap, budget)


class _Joined:
    """The rebuilt texts of one set of chunks, made on first use. Shared by the forks of a
    cached set (:meth:`DocumentSet._fork` copies the reference), so a recurring retrieval
    rebuilds nothing; a set that changes gets a new one."""

    __slots__ = ("_by_key", "_parts", "_runs", "_starts")

    def __init__(self) -> None:
        self._runs: tuple[Run, ...] | None = None
        self._by_key: dict[str, Run] = {}
        self._starts: dict[str, int | None] | None = None
        self._parts: dict[tuple[str, frozenset[str]], list[Run]] = {}

    def built(self, chunks: Sequence[Chunk]) -> tuple[Run, ...]:
        made = self._runs
        if made is None:
            located = [(c.key, c.text, c.locus) for c in chunks if c.locus is not None]
            made = runs(located, [c.key for c in chunks]) if len(located) > 1 else ()
            self._by_key.update((r.key, r) for r in made)
            self._runs = made
        return made

    def named(self, key: str) -> Run | None:
        return self._by_key.get(key)

    def file_start(self, chunks: Sequence[Chunk], key: str) -> int | None:
        """:meth:`DocumentSet.file_offset`: a rebuilt text's, else the chunk's splitter
        offset, from a table made on first use (every found quote asks for it)."""
        run = self._by_key.get(key)
        if run is not None:
            return run.file_start
        starts = self._starts
        if starts is None:
            starts = self._starts = {c.key: None if c.locus is None else c.locus.start
                                     for c in chunks}
        return starts.get(key)

    def segments(self, run: Run, keys: frozenset[str]) -> list[Run]:
        """``run``'s parts made of ``keys`` only (remembered, and their keys resolvable)."""
        if keys.issuperset(run.keys):
            return [run]
        cached = self._parts.get((run.key, keys))
        if cached is None:
            if len(self._parts) > 256:  # many different citations of one set: stay bounded
                self._parts.clear()
            cached = self._parts[run.key, keys] = run.segments(keys)
            for part in cached:
                self._by_key.setdefault(part.key, part)
        return cached


def _unique(keys: list[str]) -> tuple[str, ...]:
    return (keys[0],) if len(keys) == 1 else tuple(dict.fromkeys(keys))


#: The most cited identifiers a document set remembers the resolution of.
_MAX_RESOLUTIONS = 1024


class _BuiltSets(BoundedLRU[ContentKey, "DocumentSet"]):
    """:data:`_built_sets`: the LRU, and which of its sets :meth:`DocumentSet._built` returned
    last, and for which entries. Entries that are the very same objects as the last ones (a
    plain dict read again: :func:`_plain_chunks`; often the very same list of them,
    :class:`_Gathered`) are the same set, found without making and
    hashing a key: they are tuples of immutable values, kept alive here, so the same objects
    cannot have changed. Only a set the LRU still holds is served (and made its most recent,
    as a hit there is); one dropped since is forgotten here when next asked for."""

    _last: tuple[type[DocumentSet], int | None, Sequence[_Entry], ContentKey, DocumentSet] | None
    _last = None

    def recent(self, cls: type[DocumentSet], position_base: int | None,
               entries: Sequence[_Entry]) -> DocumentSet | None:
        """The original of the set last returned, when it is of the very same ``entries``."""
        last = self._last
        if (last is None or last[0] is not cls or last[1] != position_base
                or (last[2] is not entries and (len(last[2]) != len(entries)
                                                or not all(map(is_, entries, last[2]))))):
            return None
        hit = self.get(last[3])
        if hit is not last[4]:  # dropped since: built again
            self._last = None
            return None
        return hit

    def remember(self, cls: type[DocumentSet], position_base: int | None,
                 entries: Sequence[_Entry], key: ContentKey, original: DocumentSet) -> None:
        """Note the set returned for ``entries`` (``key`` its key in the LRU)."""
        self._last = (cls, position_base, entries, key, original)

    def clear(self) -> None:
        self._last = None
        super().clear()


#: Document sets built recently, by their chunks (:meth:`DocumentSet.from_sources`): an app
#: that retrieves the same documents again (or passes the same dict on every call) gets them
#: resolved and normalized already. The keys hold the texts, so the bound is on characters.
_built_sets = _BuiltSets(16, 4_000_000, ContentKey.size)
