"""Claims and cited sources from answers that cite without quoting.

Most answers mark their sources instead of quoting them: ``... fell by 30% [3].``,
``[smith-2026]``, Markdown footnotes ``[^1]`` with ``[^1]: smith-2026.pdf`` below, Cohere's
citation spans, OpenAI's ``file_citation`` annotations. This module turns each into
:class:`MarkedClaim` records: the claim text, where it is in the answer, and the identifier of
the source as the app cited it (resolved later by :func:`vcg_otel.evidence.check_source`).

The claim of a marker (rules, tested):

* the **sentence** that carries it; markers right after a sentence's final period
  (``... 30%. [3]``) belong to that sentence;
* when one sentence carries marker groups at several places (``A rose [1], while B fell
  [2].``), each group's claim is its **clause**: the text from the previous group (or the
  sentence start) to it; text after the last group goes with the last clause;
* several markers in one group (``[1][2]``, ``[1, 2]``, ``[1-3]``): one citation per source,
  all with the same claim; the same source twice on one claim is one citation;
* the claim text has the markers removed; its offsets cover the raw span in the answer.

Conventions (``convention="auto"``, the default, detects them per marker; an app overrides):

* ``position``: a number of 1 to 3 digits is a position in the list of sources, **1-based**
  unless the answer cites ``[0]`` somewhere (then 0-based); ``position_base=`` fixes it.
  A number that is also an explicit identifier of a document means that identifier (the
  document model's rule). Longer numbers (``[2020]``) are markers only when they resolve.
* ``id``: ``[doc-id]``; a label is a marker when it names a retrieved document, or when it
  looks like an identifier (no whitespace, and a digit or one of ``- _ . / : #``), so a
  fabricated ``[smith-2027]`` is caught while ``[sic]``, ``[x]``, ``[...]`` and numbers
  that are not integers (``[0.33, 0.38]``, ``[-0.9, +0.06]``: intervals) are prose. A bracket
  with one label that is prose is prose as a whole (``[+0.17, +0.23, domain-clustered]``).
  Markdown links ``[text](url)`` are never markers.
* ``footnote``: ``[^label]``; the source is the footnote's definition (``[^1]: text``) when
  there is one, resolved as an identifier (whole, then its first word, then any word that
  resolves), else the label as a position.

``convention="position"`` takes only numbers (as positions), ``"id"`` takes every label as an
identifier (``[3]`` names the document whose id is ``3``), ``"footnote"`` only footnotes.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .citation import Citation
from .documents import DocumentSet
from .evidence import MAX_SENTENCE_CHARS, check_source, sentence_spans
from .reading.walk import document_id, get, within_budget

__all__ = ["Convention", "MarkedClaim", "Marker", "cohere_claims", "find_markers",
           "marked_claims", "openai_claims"]

Convention = Literal["auto", "position", "id", "footnote"]

#: Labels in one bracket group beyond this are ignored (``[1-100000]`` is not 100,000 citations).
MAX_LABELS_PER_GROUP = 20

_BRACKET = re.compile(r"\[(?P<foot>\^)?(?P<body>[^\[\]\n]{1,200})\](?!\()(?P<deflike>:)?")
_FOOTNOTE_DEF = re.compile(r"^[ \t]*\[\^(?P<label>[^\]\n]{1,200})\]:[ \t]*(?P<text>.*)$",
                           re.MULTILINE)
_RANGE = re.compile(r"^(\d{1,3})\s*[-\u2013]\s*(\d{1,3})$")
_ID_LIKE = re.compile(r"^(?=.*[A-Za-z0-9])(?=.*[\d\-_./:#])[^\s\[\]]+$")
_GROUP_GAP = re.compile(r"^[\s.,;:]*$")
_WORD = re.compile(r"\w")
_NUMBER_LIKE = re.compile(r"^[+\-\u2212]?\d*(?:[.,]\d+)+%?$|^[+\-\u2212]\d+%?$|^\d+%$")


@dataclass(frozen=True, slots=True)
class Marker:
    """One cited source at one place of the answer.

    Attributes:
        start, end: the marker's span in the answer (``end == start`` for an index-only
            annotation).
        label: the label as written (``3``, ``smith-2026``, footnote ``1``).
        source: the identifier of the source (the label, or a footnote's definition).
        kind: ``position``, ``id`` or ``footnote``.
        position_base: the base a numeric source is counted from (``None`` for ids).
    """

    start: int
    end: int
    label: str
    source: str
    kind: str
    position_base: int | None = None


@dataclass(frozen=True, slots=True)
class MarkedClaim:
    """A quote-less citation read from an answer, with where its claim is.

    ``citation`` carries the claim text and the cited identifier (``quote`` is ``None``);
    ``claim_start``/``claim_end`` index the answer text; ``marker`` is how it was cited.
    """

    citation: Citation
    claim_start: int
    claim_end: int
    marker: Marker

    def to_dict(self) -> dict[str, Any]:
        return {"citation": self.citation.to_dict(), "claim_start": self.claim_start,
                "claim_end": self.claim_end, "marker": {
                    "label": self.marker.label, "source": self.marker.source,
                    "kind": self.marker.kind, "position_base": self.marker.position_base,
                    "start": self.marker.start, "end": self.marker.end}}


def _resolves(documents: DocumentSet | None, ident: str) -> bool:
    if documents is None:
        return False
    group, how = documents.resolve(ident)
    return bool(group) and how != "position"


def _footnote_sources(text: str, documents: DocumentSet | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for m in _FOOTNOTE_DEF.finditer(text):
        definition = m.group("text").strip()
        if not definition:
            continue
        words = [w.strip(".,;:()<>\"'") for w in definition.split()]
        candidates = [definition, *(w for w in words if w)]
        chosen = next((c for c in candidates if _resolves(documents, c)), None)
        out[m.group("label").strip()] = chosen or (words[0] if words and words[0] else
                                                   definition)
    return out


def _labels(body: str) -> list[str]:
    labels: list[str] = []
    for part in re.split(r"[,;]", body):
        part = part.strip()
        rng = _RANGE.match(part)
        if rng:
            lo, hi = int(rng.group(1)), int(rng.group(2))
            if lo <= hi and hi - lo < MAX_LABELS_PER_GROUP:
                labels.extend(str(n) for n in range(lo, hi + 1))
                continue
        labels.append(part)
    return labels[:MAX_LABELS_PER_GROUP]


def _kind(label: str, footnote: bool, convention: Convention,
          documents: DocumentSet | None) -> str | None:
    """Which convention a label is cited under, or ``None`` when it is prose."""
    if not label or any(c.isspace() for c in label):
        return None
    if footnote:
        return "footnote" if convention in ("auto", "footnote") else None
    if convention == "footnote":
        return None
    if convention == "id":
        return "id"
    if label.isdigit():
        if len(label) <= 3:
            return "position"
        return "id" if convention == "auto" and _resolves(documents, label) else None
    if convention == "position":
        return None
    if _NUMBER_LIKE.match(label):  # [0.33, 0.38], [-0.9, +0.06]: intervals, not sources
        return "id" if _resolves(documents, label) else None
    return "id" if _resolves(documents, label) or _ID_LIKE.match(label) else None


#: Brackets or sentences between two looks at the running extraction's clock (its seconds and
#: the foreground call's deadline): an answer with 85,000 markers is read for seconds.
_CHECK_EVERY = 256


def find_markers(text: str, documents: DocumentSet | None = None, *,
                 convention: Convention = "auto",
                 position_base: int | None = None) -> list[Marker]:
    """Every source marker in ``text``, in order (see the module docstring for the rules).

    ``documents`` (optional) lets identifiers that resolve count as markers whatever their
    shape, and footnote definitions resolve to a document's identifier.
    """
    if convention not in ("auto", "position", "id", "footnote"):
        raise ValueError(f"unknown convention {convention!r}")
    if position_base not in (None, 0, 1):
        raise ValueError("position_base must be None, 0 or 1")
    defs = _footnote_sources(text, documents)
    raw: list[tuple[int, int, str, str, str]] = []
    for n, m in enumerate(_BRACKET.finditer(text)):
        if n % _CHECK_EVERY == 0 and n and not within_budget():
            break  # the extraction's time is up: keep the markers found so far
        footnote = m.group("foot") is not None
        if m.group("deflike") and footnote:  # a footnote definition, not a marker
            continue
        labels = _labels(m.group("body"))
        kinds = [_kind(label, footnote, convention, documents) for label in labels]
        if not labels or None in kinds:  # one label that is prose makes the bracket prose
            continue
        for label, kind in zip(labels, kinds, strict=True):
            assert kind is not None
            source = defs.get(label, label) if kind == "footnote" else label
            raw.append((m.start(), m.end(), label, source, kind))
    base = position_base
    if base is None:
        base = 0 if any(k != "id" and s.isdigit() and int(s) == 0 for _, _, _, s, k in raw) else 1
    return [Marker(a, b, label, source, kind,
                   base if kind != "id" and source.isdigit() else None)
            for a, b, label, source, kind in raw]


def _masked(text: str, spans: Sequence[tuple[int, int]]) -> str:
    chars = list(text)
    for a, b in spans:
        chars[a:b] = " " * (b - a)
    return "".join(chars)


def _groups(text: str, markers: Sequence[Marker]) -> list[list[Marker]]:
    """Markers side by side (only spaces or punctuation between them) form one group."""
    groups: list[list[Marker]] = []
    for mk in sorted(markers, key=lambda m: (m.start, m.end)):
        if groups and (mk.start <= groups[-1][-1].end
                       or _GROUP_GAP.match(text[groups[-1][-1].end:mk.start])):
            groups[-1].append(mk)
        else:
            groups.append([mk])
    return groups


def _clean(text: str, start: int, end: int, spans: Sequence[tuple[int, int]],
           ends: Sequence[int]) -> str:
    """The claim text of ``text[start:end]`` without its markers. ``spans`` are in order and
    ``ends`` are their ends: only the spans inside the clause are visited, so an answer with
    thousands of markers costs linear time, not markers x clauses."""
    pieces, pos = [], start
    for k in range(bisect_right(ends, start), len(spans)):  # no copy of the tail
        a, b = spans[k]
        if a >= end:
            break
        pieces.append(text[pos:max(a, pos)])
        pos = max(pos, b)
    pieces.append(text[pos:end])
    claim = re.sub(r"\s+", " ", "".join(pieces))
    claim = re.sub(r"\s+([.,;:!?])", r"\1", claim)
    return claim.strip(" ,;:-\u2013\u2014")


def claims_for(text: str, markers: Sequence[Marker],
               documents: DocumentSet | None = None) -> list[MarkedClaim]:
    """The claim of each marker (sentence or clause; module docstring), one per source."""
    if not markers or not within_budget():  # the time is up (the walk's, the call's deadline)
        return []
    spans = sorted((m.start, m.end) for m in markers if m.end > m.start)
    ends = [b for _, b in spans]  # non-decreasing: markers never overlap one another
    # The sentences holding a marker start before the last marker's end and are at most
    # MAX_SENTENCE_CHARS long: the text beyond twice that after it splits no sentence used
    # here (an answer whose markers were cut short is split no further than they reach).
    needed = min(len(text), max(m.end for m in markers) + 2 * MAX_SENTENCE_CHARS)
    sentences = sentence_spans(_masked(text[:needed], spans))
    starts = [a for a, _ in sentences]
    out: list[MarkedClaim] = []
    seen: set[tuple[int, int, tuple[str, ...] | str]] = set()
    by_sentence: dict[int, list[list[Marker]]] = {}
    for group in _groups(text, markers):
        at = group[0].start
        # the sentence holding the group, or the one it follows (markers after a period)
        index = max(bisect_left(starts, at + 1) - 1, 0)
        by_sentence.setdefault(index, []).append(group)
    for n, (index, groups) in enumerate(sorted(by_sentence.items())):
        if n % _CHECK_EVERY == 0 and n and not within_budget():
            break  # as in find_markers: the claims made so far are kept
        s_start, s_end = sentences[index] if sentences else (0, len(text))
        s_end = max(s_end, max(m.end for g in groups for m in g))
        previous = s_start
        for i, group in enumerate(groups):
            lo = previous if len(groups) > 1 else s_start
            hi = group[0].start if len(groups) > 1 else s_end
            if i == len(groups) - 1:
                hi = s_end
            clause = _clean(text, lo, hi, spans, ends)
            if not _WORD.search(clause):  # a clause with no words: take the whole sentence
                lo, hi = s_start, s_end
                clause = _clean(text, lo, hi, spans, ends)
            previous = group[-1].end
            for mk in group:
                key: tuple[str, ...] | str = mk.source
                if documents is not None:
                    check = check_source(documents, mk.source, mk.position_base)
                    key = check.group or mk.source
                if (lo, hi, key) in seen:
                    continue
                seen.add((lo, hi, key))
                out.append(MarkedClaim(Citation(clause, mk.source, None), lo, hi, mk))
    return out


def marked_claims(text: str, documents: DocumentSet | None = None, *,
                  convention: Convention = "auto",
                  position_base: int | None = None) -> list[MarkedClaim]:
    """The quote-less citations of an answer text: :func:`find_markers`, then their claims."""
    found = find_markers(text, documents, convention=convention, position_base=position_base)
    return claims_for(text, found, documents)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def cohere_claims(item: Any, text: str | None = None) -> list[MarkedClaim]:
    """One citation per source of a Cohere citation (v1 ``document_ids``, v2 ``sources``).

    The claim is the span Cohere marked, exactly: ``item.text``, or ``text[start:end]`` of
    the answer when the span text is absent. Offsets are Cohere's ``start``/``end``.
    """
    sources = get(item, "sources")
    ids = get(item, "document_ids")
    raw = ([get(s, "id") for s in sources] if isinstance(sources, (list, tuple))
           else list(ids) if isinstance(ids, (list, tuple)) else [])
    start, end = _int(get(item, "start")), _int(get(item, "end"))
    claim = get(item, "text")
    if not isinstance(claim, str):
        ok = text is not None and start is not None and end is not None
        claim = text[start:end] if ok and text is not None else ""
    lo, hi = (start, end) if start is not None and end is not None else (0, len(claim))
    out: list[MarkedClaim] = []
    for value in dict.fromkeys(d for d in (document_id(r) for r in raw) if d is not None):
        out.append(MarkedClaim(Citation(claim, value, None), lo, hi,
                               Marker(lo, hi, value, value, "id")))
    return out


def openai_claims(text: str, annotations: Sequence[Any] | Mapping[str, Any],
                  documents: DocumentSet | None = None) -> list[MarkedClaim]:
    """Quote-less citations from OpenAI ``file_citation`` annotations on ``text``.

    Assistants annotations give the marker's span (``start_index``/``end_index``, the
    ``【4:0†source】`` text); the Responses API gives an ``index`` where the citation
    applies. Either way the claim is the sentence or clause carrying it, as for a numbered
    marker. The source is the ``file_id`` (the ``filename`` when there is no id).
    """
    items = [annotations] if isinstance(annotations, Mapping) else list(annotations)
    markers: list[Marker] = []
    for item in items:
        if get(item, "type") != "file_citation":
            continue
        inner = get(item, "file_citation", item)
        source = document_id(get(inner, "file_id")) or document_id(get(item, "filename"))
        if source is None:
            continue
        start, end = _int(get(item, "start_index")), _int(get(item, "end_index"))
        if start is None or end is None:
            start = end = _int(get(item, "index"))
        if start is None or end is None or not 0 <= start <= end <= len(text):
            continue
        markers.append(Marker(start, end, source, source, "id"))
    return claims_for(text, markers, documents)
