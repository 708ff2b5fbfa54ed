"""Parsing a quote into what must be found: one needle, or pieces around editorial marks.

Honest writers shorten and adapt quotes: ``start … end``, ``it [the model] improves``,
``[T]he results``, ``[sic]``, ``(emphasis added)``. The original gate rejected all of these.
Here each mark is recognised and the quote becomes *pieces* that must occur in order, in one
document, with bounded gaps. Marks that only annotate (``[sic]``) vanish without leaving a gap;
a bracketed change of case keeps its letters in place.

Brackets are also real text (``tool [options] FILE``, a UI string ``[Not a candidate
version]``), so they are read literally first: the whole quote is searched as written before
any editorial reading. A quote whose letters and digits are mostly inside bracketed insertions
is read literally only (it would otherwise be "found" on the strength of the few words outside
its brackets), and a quote with insertions and ellipses is also tried with its brackets kept.
An insertion at either end of a quote (``… e.g. Annotated[int, Len(5)]``) is checked against
the original too: it may not stand for a bracket that is right there in the document.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from .._frozen import slot_builder
from .normalize import normalize, normalize_elided, normalize_marked

__all__ = ["Cut", "ParsedQuote", "cut_at_ellipses", "cut_without_insertions", "has_mark",
           "has_word", "iter_marks", "mark_list", "needle_of", "parse_marked", "parse_quote",
           "pieces_without_insertions", "strip_edges", "unmarked_parse"]

_ELLIPSIS = r"(?:\u2026|\.\s?\.\s?\.(?:\s?\.)*)"
_MARKS_BODY = (
    rf"(?P<ellipsis>\[\s*{_ELLIPSIS}\s*\]|\(\s*{_ELLIPSIS}\s*\)|{_ELLIPSIS})"
    r"|(?P<note>[\[(]\s*(?:sic|emphasis (?:added|mine|omitted|in original)"
    r"|italics (?:added|mine|in original)|(?:citations?|footnotes?|internal quotation marks)"
    r" omitted)\s*[\])])"
    r"|(?P<case>\[\w{1,2}\](?=\w))"
    r"|(?P<insertion>\[[^\[\]]{1,200}\])"
)
# Every alternative starts with one of these characters (the full stop last: iter_marks looks
# at it only in a quote with three). Saying so up front lets the regex engine skip to them
# with a character-set scan instead of trying every alternative at every position, with the
# same matches.
_MARK_STARTS = "[(\u2026."
MARKS = re.compile(rf"(?=[{re.escape(_MARK_STARTS)}])(?:{_MARKS_BODY})", re.IGNORECASE)
_BRACKETS_AND_ELLIPSIS = _MARK_STARTS[:-1]
# Characters trimmed from the edges of a normalized quote or piece: spaces, quotation marks
# and sentence punctuation that a writer adds or drops when quoting. Digits, %, brackets and
# everything else stay.
_EDGE = " \"'.,;:!?"


def iter_marks(quote: str) -> Iterator[re.Match[str]]:
    """The matches of ``MARKS.finditer(quote)``, one at a time (:func:`mark_list`)."""
    return iter(mark_list(quote))


def mark_list(quote: str) -> list[re.Match[str]]:
    """The matches of ``MARKS.finditer(quote)``, the regex tried only where a mark can start.

    Every mark starts at one of :data:`_MARK_STARTS`, found with ``str.find`` (C speed, and
    a quote of plain prose has none or a few); a full stop starts one only as an ellipsis of
    three or more. The regex's own scan tries its alternatives at every full stop and costs
    several times more on a sentence. A mark never matches empty, so trying each start at
    or past the end of the last match gives ``finditer``'s matches."""
    starts: list[int] = []
    for ch in _MARK_STARTS if quote.count(".") > 2 else _BRACKETS_AND_ELLIPSIS:
        pos = quote.find(ch)
        while pos != -1:
            starts.append(pos)
            pos = quote.find(ch, pos + 1)
    if not starts:
        return []
    if len(starts) == 1:  # the common marked quote: one mark
        m = MARKS.match(quote, starts[0])
        return [] if m is None else [m]
    starts.sort()
    marks = []
    match = MARKS.match
    end = 0
    for pos in starts:
        if pos >= end:
            m = match(quote, pos)
            if m is not None:
                end = m.end()
                marks.append(m)
    return marks


def has_mark(quote: str) -> bool:
    """``quote`` holds an editorial mark: its parse has pieces to chain. An ellipsis
    character is one by itself; a quote with no other start of a mark has none."""
    if "\u2026" in quote:
        return True
    if "(" not in quote and "[" not in quote and quote.count(".") < 3:
        return False
    return bool(mark_list(quote))


def strip_edges(text: str) -> str:
    """Trim quoting punctuation from both ends of an already normalized string."""
    return text.strip(_EDGE)


_ALNUM = re.compile(r"[^\W_]")


def has_word(text: str) -> bool:
    # [^\W_] is a letter or digit (str.isalnum): a trimmed piece mostly starts with one.
    return text[:1].isalnum() or _ALNUM.search(text) is not None


def _alnum_count(text: str) -> int:
    return len(_ALNUM.findall(text))


@dataclass(frozen=True, slots=True)
class ParsedQuote:
    """What the gate looks for.

    Attributes:
        needle: the whole quote, normalized and edge-trimmed ("" when nothing is left).
        pieces: the quote split at editorial marks (normalized, edge-trimmed, non-empty); equal
            to ``(needle,)`` when the quote has no marks.
        elided: the quote carried at least one editorial mark.
        gaps: one flag per gap between ``pieces``: the gap stands only for bracketed
            insertions, so the document text there may not itself hold square brackets.
        literal: the quote split at its ellipses only, its brackets kept as text; empty unless
            the quote has both bracketed insertions and ellipses (else ``needle`` covers it).
        edges: (before, after): a bracketed insertion stands before the first piece / after
            the last, so the document may not have a square bracket right there.
    """

    needle: str
    pieces: tuple[str, ...]
    elided: bool
    gaps: tuple[bool, ...] = ()
    literal: tuple[str, ...] = ()
    edges: tuple[bool, bool] = (False, False)

    @property
    def empty(self) -> bool:
        """No letters or digits at all: nothing that could be found, so it fails closed."""
        return not self.pieces


#: ``ParsedQuote(...)``, every field given, at the cost of plain slot stores
#: (:mod:`vcg_otel._frozen`): every quote is parsed.
_parsed = slot_builder(ParsedQuote)
_NO_EDGES = (False, False)


def _split(quote: str, marks: list[re.Match[str]], insertions: bool
           ) -> tuple[tuple[str, ...], tuple[bool, ...], bool, tuple[bool, bool]]:
    """(pieces, gaps, elided, edges) for ``quote`` cut at ``marks``; insertions kept as text
    unless ``insertions``."""
    raw: list[str] = []
    kinds: list[bool] = []  # per cut: True for an insertion, False for an ellipsis
    current: list[str] = []
    elided = False
    pos = 0
    for m in marks:
        kind = m.lastgroup
        if kind == "insertion" and not insertions:
            continue  # literal text: stays in the slice taken at the next cut
        elided = True
        current.append(quote[pos:m.start()])
        if kind == "case":
            current.append(m.group()[1:-1])
        elif kind in ("ellipsis", "insertion"):
            raw.append("".join(current))
            kinds.append(kind == "insertion")
            current = []
        else:  # an annotation: removed, the text around it is contiguous
            current.append(" ")
        pos = m.end()
    current.append(quote[pos:])
    raw.append("".join(current))
    pieces: list[str] = []
    gaps: list[bool] = []
    bracket_only = True  # every cut since the last kept piece was an insertion
    lead = trail = False  # an insertion among the cuts before the first / after the last piece
    for k, text in enumerate(raw):
        if k:
            bracket_only = bracket_only and kinds[k - 1]
            trail = trail or kinds[k - 1]
        piece = strip_edges(normalize(text))
        if has_word(piece):
            if pieces:
                gaps.append(bracket_only)
            else:
                lead = trail
            pieces.append(piece)
            bracket_only = True
            trail = False
    return tuple(pieces), tuple(gaps), elided, (lead, trail)


def parse_quote(quote: str) -> ParsedQuote:
    """Normalize ``quote`` and split it at editorial marks.

    The quote last cut (:func:`cut_without_insertions`, :func:`cut_at_ellipses`: the gate's
    fast path, which leaves a quote it does not find to the full path, which parses it
    here) is parsed from its cut, as :func:`parse_marked` parses it."""
    last = _last_cut
    if last[0] is quote:
        return _from_cut(quote, last[1])
    return parse_marked(quote, mark_list(quote))


# The last quote cut and its cut. A tuple, read and swapped whole, so threads at worst cut a
# quote again; it holds the quote, so its identity is not another's.
_last_cut: tuple[object, Cut] = (object(), ((), "", None))


def _from_cut(quote: str, cut: Cut) -> ParsedQuote:
    """The parse of a quote cut without insertions: elided (no mark is skipped as literal
    text), no gap or edge bracket-only (no cut stands for an insertion), no literal reading
    (nothing inserted)."""
    pieces, _, needle = cut
    return _parsed(needle_of(quote) if needle is None else needle, pieces, True,
                   (False,) * (len(pieces) - 1) if pieces else (), (), _NO_EDGES)


def parse_marked(quote: str, marks: list[re.Match[str]]) -> ParsedQuote:
    """:func:`parse_quote` of a quote whose marks (:func:`mark_list`) are known: a caller that
    had to find them anyway (the gate's fast path) does not look for them twice."""
    if not marks:
        return unmarked_parse(needle_of(quote))
    cut = cut_without_insertions(quote, marks)
    if cut is not None:
        return _from_cut(quote, cut)
    needle = needle_of(quote)
    inserted = sum(_alnum_count(m.group()) for m in marks if m.lastgroup == "insertion")
    # Brackets hold less than half the words (with none inside, any word at all will do: no
    # need to count every letter of the quote).
    editorial = inserted * 2 < _alnum_count(quote) if inserted else has_word(quote)
    pieces, gaps, elided, edges = _split(quote, marks, insertions=editorial)
    if not elided:
        return unmarked_parse(needle)
    literal: tuple[str, ...] = ()
    if editorial and inserted and any(m.lastgroup == "ellipsis" for m in marks):
        literal = _split(quote, marks, insertions=False)[0]
    return ParsedQuote(needle, pieces, True, gaps, literal, edges)


def pieces_without_insertions(quote: str, marks: list[re.Match[str]]) -> tuple[str, ...] | None:
    """The pieces of a quote whose marks (:func:`mark_list`) are all ellipses, annotations and
    changes of case (the common marked quote), as :func:`_split` cuts them, without its
    bookkeeping for insertions; ``None`` when a mark is a bracketed insertion (possibly
    literal text: the general split decides)."""
    raw: list[str] = []
    current: list[str] = []
    pos = 0
    for m in marks:
        kind = m.lastgroup
        if kind == "ellipsis":
            current.append(quote[pos:m.start()])
            raw.append("".join(current))
            current = []
        elif kind == "case":
            current += (quote[pos:m.start()], m.group()[1:-1])
        elif kind == "note":  # an annotation: removed, the text around it is contiguous
            current += (quote[pos:m.start()], " ")
        else:
            return None
        pos = m.end()
    current.append(quote[pos:])
    raw.append("".join(current))
    return _word_pieces(raw)


#: The parse of a quote whose marks are all ellipses, annotations and changes of case
#: (:func:`cut_without_insertions`): its pieces; ``kept``, a text its needle is shown to
#: hold ("" when none is: a search that finds ``kept`` nowhere in a document knows the
#: needle is not there either, without making it); and its needle when known from the
#: pieces (else ``None``: :func:`needle_of` makes it).
Cut = tuple[tuple[str, ...], str, str | None]


def needle_of(quote: str) -> str:
    """The parse's needle of ``quote``: normalized, edge-trimmed, "" without a word."""
    needle = strip_edges(normalize(quote))
    return needle if has_word(needle) else ""


def cut_without_insertions(quote: str, marks: list[re.Match[str]]) -> Cut | None:
    """The parse of a quote whose marks (:func:`mark_list`) are all ellipses, annotations and
    changes of case, as a :data:`Cut` (kept for :func:`parse_quote`); ``None`` for a quote
    with an insertion, or without a mark.

    Its pieces are :func:`pieces_without_insertions`'. A quote with one annotation or change
    of case, or cut at ellipses alone, is normalized in a way that shows a text its needle
    holds, or the needle itself (:func:`~vcg_otel.gate.normalize.normalize_marked`,
    :func:`_cut_at`)."""
    global _last_cut
    if not marks:  # not a marked quote: its parse is its needle alone
        return None
    cut = _cut_without_insertions(quote, marks)
    if cut is not None:
        _last_cut = (quote, cut)
    return cut


def _cut_without_insertions(quote: str, marks: list[re.Match[str]]) -> Cut | None:
    """:func:`cut_without_insertions`, the mark (its brackets are not trimmed off the
    needle's edges) shown in the needle by
    :func:`~vcg_otel.gate.normalize.normalize_marked`."""
    if len(marks) == 1:
        m = marks[0]
        kind = m.lastgroup
        start, end = m.span()
        if kind == "ellipsis":
            return _cut_at(quote, [quote[:start], quote[end:]], [m.group()])
        if kind in ("note", "case"):
            shown = normalize_marked(quote, start, end,
                                     " " if kind == "note" else m.group()[1:-1])
            if shown is not None:
                return _kept([shown[0]]), shown[1], None
    elif all(m.lastgroup == "ellipsis" for m in marks):
        parts, pos = [], 0
        for m in marks:
            parts.append(quote[pos:m.start()])
            pos = m.end()
        parts.append(quote[pos:])
        return _cut_at(quote, parts, [m.group() for m in marks])
    pieces = pieces_without_insertions(quote, marks)
    return None if pieces is None else (pieces, "", None)


def cut_at_ellipses(quote: str) -> Cut:
    """:func:`cut_without_insertions` of a quote with ellipsis characters, no ``(`` or ``[``
    and fewer than three full stops, told without the marks' pattern: such a quote's marks
    are its ellipsis characters, each alone (every other alternative of :data:`MARKS` starts
    at a bracket, or at a full stop followed by two more), so it is cut at each of them."""
    global _last_cut
    parts = quote.split("\u2026")
    cut = _cut_at(quote, parts, ["\u2026"] * (len(parts) - 1))
    _last_cut = (quote, cut)
    return cut


def _cut_at(quote: str, parts: list[str], ellipses: list[str]) -> Cut:
    """The cut of a quote at its ellipses (``parts`` between them). When the quote is shown
    laid out from its parts (:func:`~vcg_otel.gate.normalize.normalize_elided`: its
    normalization is the parts' texts and the ellipses' folds in order, whitespace
    collapsed), its needle is known in part without making it:

    * an ellipsis between two parts with a word stands in the needle, its full stops with
      single spaces between (the fold's spaces collapse, its full stops stay), and trimming
      the needle's edges stops at the words on either side: ``kept``;
    * with a single part with a word and nothing but edge characters in the others (a
      leading or trailing ellipsis), the needle is that part's piece: trimming the needle's
      edges takes the others, the ellipses and the spaces, then goes on into that part's
      text as trimming it alone does.
    """
    outs = normalize_elided(parts, ellipses, len(quote))
    if outs is None:
        return _word_pieces(parts), "", None
    trimmed = [strip_edges(out) for out in outs]
    worded = [i for i, text in enumerate(trimmed) if has_word(text)]
    pieces = tuple([trimmed[i] for i in worded])
    if len(worded) > 1:
        return pieces, _kept_ellipsis(ellipses[worded[0]]), None
    if worded and sum(map(len, trimmed)) == len(pieces[0]):
        return pieces, "", pieces[0]
    return pieces, "", None


def _kept_ellipsis(ellipsis: str) -> str:
    """An ellipsis' fold as it stands in a normalized quote: full stops, single spaces."""
    return "..." if ellipsis == "\u2026" else " ".join(ellipsis.replace("\u2026", "...").split())


def _word_pieces(raw: list[str]) -> tuple[str, ...]:
    """The cut texts normalized and edge-trimmed, those with a word (:func:`_split`'s)."""
    return _kept([normalize(text) for text in raw])


def _kept(normalized: list[str]) -> tuple[str, ...]:
    """The normalized cut texts edge-trimmed, those with a word."""
    return tuple([piece for piece in [strip_edges(text) for text in normalized]
                  if has_word(piece)])


def unmarked_parse(needle: str) -> ParsedQuote:
    """The parse of a quote read without editorial marks: its needle, as its one piece."""
    return _parsed(needle, (needle,) if needle else (), False, (), (), _NO_EDGES)
