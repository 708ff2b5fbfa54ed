"""Parsing a quote into what must be found: one needle, or pieces around editorial marks.

Honest writers shorten and adapt quotes: ``start … end``, ``it [the model] improves``,
``[T]he results``, ``[sic]``, ``(emphasis added)``. The original gate rejected all of these.
Here each mark is recognised and the quote becomes *pieces* that must occur in order, in one
document, with bounded gaps. Marks that only annotate (``[sic]``) vanish without leaving a gap;
a bracketed change of case keeps its letters in place.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .normalize import normalize

__all__ = ["ParsedQuote", "parse_quote", "strip_edges"]

_ELLIPSIS = r"(?:\u2026|\.\s?\.\s?\.(?:\s?\.)*)"
_MARKS = re.compile(
    rf"(?P<ellipsis>\[\s*{_ELLIPSIS}\s*\]|\(\s*{_ELLIPSIS}\s*\)|{_ELLIPSIS})"
    r"|(?P<note>[\[(]\s*(?:sic|emphasis (?:added|mine|omitted|in original)"
    r"|italics (?:added|mine|in original)|(?:citations?|footnotes?|internal quotation marks)"
    r" omitted)\s*[\])])"
    r"|(?P<case>\[\w{1,2}\](?=\w))"
    r"|(?P<insertion>\[[^\[\]]{1,200}\])",
    re.IGNORECASE,
)
# Cheap pre-check: a quote with none of these characters carries no editorial mark.
_MAYBE_MARK = re.compile(r"[\[(\u2026]|\.\s?\.")
# Characters trimmed from the edges of a normalized quote or piece: spaces, quotation marks
# and sentence punctuation that a writer adds or drops when quoting. Digits, %, brackets and
# everything else stay.
_EDGE = " \"'.,;:!?"


def strip_edges(text: str) -> str:
    """Trim quoting punctuation from both ends of an already normalized string."""
    return text.strip(_EDGE)


_ALNUM = re.compile(r"[^\W_]")


def _has_word(text: str) -> bool:
    return _ALNUM.search(text) is not None


@dataclass(frozen=True, slots=True)
class ParsedQuote:
    """What the gate looks for.

    Attributes:
        needle: the whole quote, normalized and edge-trimmed ("" when nothing is left).
        pieces: the quote split at editorial marks (normalized, edge-trimmed, non-empty); equal
            to ``(needle,)`` when the quote has no marks.
        elided: the quote carried at least one editorial mark.
    """

    needle: str
    pieces: tuple[str, ...]
    elided: bool

    @property
    def empty(self) -> bool:
        """No letters or digits at all: nothing that could be found, so it fails closed."""
        return not self.pieces


def parse_quote(quote: str) -> ParsedQuote:
    """Normalize ``quote`` and split it at editorial marks."""
    needle = strip_edges(normalize(quote))
    if not _has_word(needle):
        needle = ""
    pieces: list[str] = []
    current: list[str] = []
    elided = False
    pos = 0
    if _MAYBE_MARK.search(quote) is None:
        return ParsedQuote(needle, (needle,) if needle else (), False)
    for m in _MARKS.finditer(quote):
        elided = True
        current.append(quote[pos:m.start()])
        kind = m.lastgroup
        if kind == "case":
            current.append(m.group()[1:-1])
        elif kind in ("ellipsis", "insertion"):
            pieces.append("".join(current))
            current = []
        else:  # an annotation: removed, the text around it is contiguous
            current.append(" ")
        pos = m.end()
    current.append(quote[pos:])
    pieces.append("".join(current))
    if not elided:
        return ParsedQuote(needle, (needle,) if needle else (), False)
    normalized = tuple(
        p for p in (strip_edges(normalize(piece)) for piece in pieces) if _has_word(p)
    )
    return ParsedQuote(needle, normalized, True)
