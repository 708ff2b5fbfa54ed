"""Text normalization with a map back to the original offsets.

Quotes travel badly: through PDFs (ligatures, hyphenated line breaks, soft hyphens), word
processors (curly quotes, em dashes, the ``…`` character), chat UIs (non-breaking spaces,
zero-width characters) and sometimes adversaries (Cyrillic letters that look Latin). The gate
must see through all of that and still report *where in the original document* a quote lives,
because the judge reads the original passage and users click through to it.

Normalization runs in two stages, each of which records only the places where the text changes
length (a sparse map), so a 10 MB mostly-ASCII document costs a few C-level passes and a handful
of Python objects:

* **Stage A, characters.** ASCII text is lower-cased with one ``str.lower`` call. Each maximal
  run of non-ASCII characters is mapped per grapheme cluster (a base character plus its
  combining marks): NFKC, case folding, NFKC again (``NFKC_Casefold``), then typography (curly
  quotes, dashes, exotic spaces) and a small, case-closed table of look-alike letters. Zero-width
  characters and soft hyphens are removed. Mappings are memoized per character.
* **Stage B, layout.** Whitespace runs collapse to one space and are trimmed at the ends, a
  hyphen followed by a line break inside a word is removed (``transfor-\\nmation``; a hyphen
  repeated at the start of the next line, ``Long-\\n-horizon``, is one hyphen), and dash
  forms (``--``, ``—``, a spaced hyphen) become one canonical ``" - "``.

Numbers, decimal points, ``%`` and all other punctuation are preserved: ``3.5%`` never matches
``35%``.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field

from .markup import (
    MARKUP_CHARS,
    is_html,
    leading_markers,
    markup_edits,
    may_have_markup,
    skippable_edits,
)
from .slips import skeleton

__all__ = ["NormalizedText", "OffsetMap", "fold_chars", "laid_out", "normalize",
           "normalize_elided", "normalize_marked", "normalize_with_map"]

# Typography folded to ASCII. Applied after NFKC_Casefold, so only characters that survive
# NFKC need an entry (NFKC already maps U+2026 to "...", ligatures to letters, and most exotic
# spaces to U+0020).
_TYPOGRAPHY: dict[str, str] = {
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'", "\u2035": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"', "\u2036": '"',
    "\u00ab": '"', "\u00bb": '"', "\u2039": "'", "\u203a": "'", "\u02bc": "'", "\uff02": '"',
    "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2212": "-", "\ufe63": "-",
    "\u2014": "--", "\u2015": "--", "\u2e3a": "--", "\u2e3b": "--", "\ufe58": "--",
    "\u2022": "*", "\u00b7": "*", "\u2023": "*", "\u2043": "*", "\u2219": "*", "\u25e6": "*",
    "\u25aa": "*", "\u25cf": "*",
}

# Look-alike letters folded to Latin. Only letters whose upper- *and* lower-case forms are both
# visually identical to a Latin letter are listed (case-closed), so folding commutes with case
# folding and genuine Cyrillic or Greek text still matches itself in any case. Letters that look
# Latin only in upper case (Cyrillic В, Н, М, Т, К; Greek Α, Β, Ε, …) are deliberately absent:
# their lower-case forms are different letters.
_CONFUSABLES: dict[str, str] = {
    "\u0430": "a", "\u0435": "e", "\u043e": "o", "\u0440": "p", "\u0441": "c", "\u0443": "y",
    "\u0445": "x", "\u0456": "i", "\u0458": "j", "\u0455": "s", "\u04bb": "h", "\u0501": "d",
    "\u051b": "q", "\u051d": "w", "\u03bf": "o", "\u0261": "g",
}

# Removed wherever they occur: they are invisible and only ever break matching.
_INVISIBLE = frozenset("\u00ad\u200b\u200c\u200d\u2060\ufeff\u180e\u2061\u2062\u2063\u2064")

# Stage B rules. Every alternative starts with one literal character, which lets the regex
# engine skip ahead with a character-set scan (about 130 MB/s) instead of trying each
# position: a hyphen (line-break join, or a run of hyphens), or a whitespace character that is
# followed by more whitespace or a hyphen. What a match becomes is decided in _layout_repl.
_WS_TAIL = r"\s*(?:--+\s*|-\s+)?"
_LAYOUT = re.compile(
    r"-(?:(?<=\w-)[ \t]*(?:\r\n|\r|\n)[ \t]*(?=\w)"
    r"|(?<=[^\s-]-)[ \t]*(?:\r\n|\r|\n)[ \t]*-(?=\w)|-+\s*)"
    r"| (?=[\s-])" + _WS_TAIL
    + "".join(f"|{c}{_WS_TAIL}" for c in (r"\t", r"\n", r"\r", r"\x0b", r"\x0c"))
)
# What every _LAYOUT match contains, alternative by alternative: a line break (the two
# hyphen joins), "--" (a hyphen run), a space before whitespace or a hyphen, or one of the
# whitespace characters matched alone. A text with none of these has no stage-B match, and
# stage B only trims its ends: one regex scan instead of eleven finds and a generator, for the
# many short quotes whose only hyphens are inside words. Keep in step with _LAYOUT.
_LAYOUT_POSSIBLE = re.compile(r"--| [\s-]|[\t\n\r\x0b\x0c]")
# A blank line (every \r\n\r\n holds one too): with U+2029, a paragraph break. A pattern
# that starts with a literal scans about ten times faster.
_BLANK_LINE = re.compile(r"\n[^\S\n]*\n")
_NON_ASCII_RUN = re.compile(r"[^\x00-\x7f]+")
# Mostly-ASCII text is searched for its non-ASCII runs block by block: a slice of an ASCII
# stretch is an ASCII string, which str.isascii() tells in constant time, so the regex scan
# (about 90 MB/s on a non-ASCII string) runs only over blocks that hold a non-ASCII character.
_ASCII_BLOCK = 1024
# Where a stage-B match can start: at a hyphen or a whitespace character other than the space,
# at a run of two spaces, or at the space just before a hyphen or whitespace. Stage A (and the
# markup stage, which folds what it decodes the same way) turns every non-ASCII whitespace
# character into a space, so these ASCII characters are all there is to look for. Finding them
# with str.find (C speed) skips the single spaces between words, at each of which _LAYOUT's own
# scan would try a match and fail: about twice as fast on prose.
_LAYOUT_STARTS = ("-", "\n", "\t", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f", "  ")


@dataclass(frozen=True, slots=True)
class OffsetMap:
    """Sparse map from positions in a derived string back to positions in its source.

    Only *units* whose length changed are stored: ``n_starts[i]:n_ends[i]`` in the derived
    string came from ``o_starts[i]:o_ends[i]`` in the source. Between units the two strings are
    aligned with a constant shift. A position inside a unit maps to the whole unit, so offsets
    never split a ligature, a grapheme cluster or a collapsed whitespace run.
    """

    n_starts: tuple[int, ...] = ()
    n_ends: tuple[int, ...] = ()
    o_starts: tuple[int, ...] = ()
    o_ends: tuple[int, ...] = ()

    def start(self, pos: int) -> int:
        """Source offset where derived position ``pos`` begins."""
        i = bisect_right(self.n_starts, pos) - 1
        if i < 0:
            return pos
        if pos < self.n_ends[i]:
            return self.o_starts[i]
        return self.o_ends[i] + (pos - self.n_ends[i])

    def end(self, pos: int) -> int:
        """Source offset where a half-open derived range ending at ``pos`` ends."""
        if pos <= 0:
            return self.start(0) if pos == 0 else 0
        last = pos - 1
        i = bisect_right(self.n_starts, last) - 1
        if i >= 0 and last < self.n_ends[i]:
            return self.o_ends[i]
        return self.start(last) + 1

    def __len__(self) -> int:
        return len(self.n_starts)


_IDENTITY = OffsetMap()


class _UnitWriter:
    """Accumulates output pieces and length-changing units for one stage."""

    __slots__ = ("changed", "n_ends", "n_starts", "npos", "o_ends", "o_starts", "opos", "pieces")

    def __init__(self) -> None:
        self.pieces: list[str] = []
        self.n_starts: list[int] = []
        self.n_ends: list[int] = []
        self.o_starts: list[int] = []
        self.o_ends: list[int] = []
        self.npos = 0  # length of output written so far
        self.opos = 0  # source position consumed so far
        self.changed = False  # any replacement at all (else the output is the source)

    def copy_until(self, source: str, stop: int) -> None:
        if stop > self.opos:
            self.pieces.append(source[self.opos:stop])
            self.npos += stop - self.opos
            self.opos = stop

    def same_length(self, text: str) -> None:
        """Emit ``text`` for the next ``len(text)`` source characters (no unit needed)."""
        self.changed = True
        self.pieces.append(text)
        self.npos += len(text)
        self.opos += len(text)

    def replace(self, start: int, end: int, text: str) -> None:
        """Emit ``text`` for source[start:end] (the caller has copied up to ``start``)."""
        self.changed = True
        if len(text) != end - start:
            self.n_starts.append(self.npos)
            self.n_ends.append(self.npos + len(text))
            self.o_starts.append(start)
            self.o_ends.append(end)
        if text:
            self.pieces.append(text)
        self.npos += len(text)
        self.opos = end

    def finish(self, source: str) -> str:
        """The stage's output; units stay on the writer for :meth:`shifted_into`."""
        if not self.changed:
            self.pieces = []
            return source
        self.copy_until(source, len(source))
        text = "".join(self.pieces)
        self.pieces = []
        return text

    def shifted_into(self, target: _UnitWriter, n_shift: int, o_shift: int) -> None:
        """Append this writer's units to ``target``'s, moved by the chunk's offsets."""
        target.n_starts.extend(n + n_shift for n in self.n_starts)
        target.n_ends.extend(n + n_shift for n in self.n_ends)
        target.o_starts.extend(o + o_shift for o in self.o_starts)
        target.o_ends.extend(o + o_shift for o in self.o_ends)

    def offset_map(self) -> OffsetMap:
        if not self.n_starts:
            return _IDENTITY
        return OffsetMap(
            tuple(self.n_starts), tuple(self.n_ends), tuple(self.o_starts), tuple(self.o_ends)
        )


# --- stage A: characters -----------------------------------------------------------------

_char_memo: dict[str, tuple[str, bool]] = {}


def _fold(text: str) -> str:
    """NFKC_Casefold, then typography, look-alikes and invisible characters."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
    out: list[str] = []
    for ch in folded:
        if ch in _INVISIBLE:
            continue
        if ch.isspace():
            out.append(" " if ch not in "\t\n\r\x0b\x0c" else ch)
        elif unicodedata.category(ch)[0] == "M" and (not out or out[-1].isspace()):
            continue  # a mark with no base here (NFKC turns "\u00b8" into space + mark)
        else:
            out.append(_CONFUSABLES.get(ch) or _TYPOGRAPHY.get(ch) or ch)
    # Folding a look-alike base can leave a Latin letter next to its combining mark: compose.
    return unicodedata.normalize("NFC", "".join(out))


def _is_mark(ch: str) -> bool:
    """A combining mark, or a Hangul vowel or final jamo (which NFC composes like one)."""
    return unicodedata.category(ch)[0] == "M" or 0x1160 <= ord(ch) <= 0x11FF


def _char_info(ch: str) -> tuple[str, bool]:
    """(folded form, is combining mark) for one character, memoized.

    A character that *folds* to a mark counts as one (half-width U+FFD3 folds to the vowel
    jamo U+116E): otherwise it would survive one normalization and vanish in the next. For the
    same reason marks that a fold leaves on a non-alphanumeric base are dropped here, as
    :func:`_map_run` drops them in a cluster (U+2ADC and some musical symbols decompose to a
    symbol plus a mark that NFC will not recompose).
    """
    info = _char_memo.get(ch)
    if info is None:
        folded = _fold(ch)
        if len(folded) > 1 and not folded[0].isalnum() and not _is_mark(folded[0]):
            folded = folded[0] + "".join(c for c in folded[1:] if not _is_mark(c))
        info = (folded, _is_mark(ch) or (folded != "" and _is_mark(folded[0])))
        if len(_char_memo) < 65536:
            _char_memo[ch] = info
    return info


class _FoldTable(dict[int, str]):
    """``str.translate`` table: ASCII lower-cased, anything else folded on first sight.

    Used by :func:`normalize`, which needs no offset map: one C-level pass instead of the
    run-by-run stage A. Combining marks fold by cluster, not alone, so texts holding one take
    the full path (:data:`MARKS_SEEN` tells).
    """

    def __missing__(self, code: int) -> str:
        ch = chr(code)
        folded, is_mark = _char_info(ch)
        if is_mark:
            MARKS_SEEN.add(ch)
        if len(self) < 65_536:
            self[code] = folded
        return folded


MARKS_SEEN: set[str] = set()
FOLD_TABLE = _FoldTable({code: chr(code).lower() for code in range(128)})
_ASCII_BYTES = bytes(range(128))
# (character, fold) for the non-ASCII characters quotes hold most (the folds are
# FOLD_TABLE's, kept only if ASCII and lower-case, as fold_chars' short way needs).
_COMMON_FOLDS = tuple(
    (ch, fold) for ch, fold in ((ch, FOLD_TABLE[ord(ch)]) for ch in
                                "\u2019\u201c\u201d\u2026\u00a0\u2018\u2014\u2013\u00ad\ufb01\ufb02")
    if fold.isascii() and fold == fold.lower() and not _char_info(ch)[1])


def fold_chars(text: str) -> str | None:
    """``text.translate(FOLD_TABLE)`` (stage A of :func:`normalize`), or ``None`` when ``text``
    holds a combining mark (marks fold by cluster: the full stage A decides).

    ``str.translate`` with a mapping looks every character up as a Python object (about 40 ns
    each). A quote is mostly ASCII with a few curly quotes, a ligature or non-breaking spaces,
    so it is folded in its UTF-8 bytes instead: ``bytes.lower`` lower-cases the ASCII letters
    alone, and each distinct non-ASCII character is then replaced by its fold (a character's
    bytes never match across a character boundary in UTF-8). That is the translation as long
    as every fold replaced in is ASCII, so no replacement makes a character that a later one
    replaces again; a text with any other fold is translated.

    The few non-ASCII characters most quotes hold (:data:`_COMMON_FOLDS`: an ellipsis, curly
    quotation marks, a non-breaking space, dashes, a soft hyphen, the commonest ligatures) are
    replaced first, in the text itself: a text then ASCII is lower-cased, by the same
    argument (each fold is ASCII, and lower-case already), at a third of the cost of the
    bytes' round trip. None of them is a combining mark. The other distinct non-ASCII
    characters (found in the bytes) are replaced the same way while their folds are ASCII
    and lower-case (look-alike letters are); a mark among them is caught as below.
    """
    if text.isascii():
        return text.lower()
    common = text
    for ch, fold in _COMMON_FOLDS:
        if ch in common:
            common = common.replace(ch, fold)
    if common.isascii():
        return common.lower()
    others = common.encode("utf-8", "surrogatepass").translate(None, _ASCII_BYTES).decode(
        "utf-8", "surrogatepass")
    rest = others
    while rest:
        ch = rest[0]
        rest = rest.replace(ch, "")
        fold = FOLD_TABLE[ord(ch)]
        if not fold.isascii() or fold != fold.lower():
            break
        common = common.replace(ch, fold)
    else:
        if MARKS_SEEN and not MARKS_SEEN.isdisjoint(others):
            return None
        return common.lower()
    raw = text.encode("utf-8", "surrogatepass")
    others = raw.translate(None, _ASCII_BYTES).decode("utf-8", "surrogatepass")
    raw = raw.lower()
    folded: str | None = None
    rest = others
    while rest:  # each distinct character once (a quote has a few)
        ch = rest[0]
        rest = rest.replace(ch, "")
        fold = FOLD_TABLE[ord(ch)]
        if fold == ch:
            continue
        if not fold.isascii():
            folded = text.translate(FOLD_TABLE)
            break
        raw = raw.replace(ch.encode("utf-8", "surrogatepass"), fold.encode())
    if folded is None:
        folded = raw.decode("utf-8", "surrogatepass")
    # After the fold, which adds a mark met for the first time to MARKS_SEEN (marks are
    # non-ASCII: only ``others`` can hold one).
    if MARKS_SEEN and not MARKS_SEEN.isdisjoint(others):
        return None
    return folded


def _map_run(run: str, base: int, writer: _UnitWriter, source: str) -> None:
    """Map one run of characters (starting at source offset ``base``) cluster by cluster."""
    i, n = 0, len(run)
    while i < n:
        folded, _ = _char_info(run[i])
        j = i + 1
        while j < n and _char_info(run[j])[1]:
            j += 1
        if _char_info(run[i])[1]:  # marks with no base at all (start of text) are dropped
            folded = ""
        elif j > i + 1 and folded[-1:].isalnum():
            folded = _fold(run[i:j])  # a letter or digit with combining marks: one cluster
        # else: marks on a removed base, a space or punctuation are dropped with it
        if folded != run[i:j]:
            writer.copy_until(source, base + i)
            writer.replace(base + i, base + j, folded)
        i = j


def _non_ascii_runs(text: str) -> list[tuple[int, int]]:
    """The spans of ``_NON_ASCII_RUN.finditer(text)``, found block by block."""
    spans: list[tuple[int, int]] = []
    for block in range(0, len(text), _ASCII_BLOCK):
        stop = block + _ASCII_BLOCK
        if text[block:stop].isascii():
            continue
        for m in _NON_ASCII_RUN.finditer(text, block, stop):
            start, end = m.span()
            if spans and spans[-1][1] == start:  # a run across the block edge
                start = spans.pop()[0]
            spans.append((start, end))
    return spans


def _stage_a(text: str, writer: _UnitWriter) -> str:
    if text.isascii():
        return text.lower()
    # ASCII stretches are lower-cased one by one (str.lower on a non-ASCII string allocates
    # 12 bytes per character); non-ASCII runs go through _map_run. A run that starts with
    # combining marks takes the preceding character as its base.
    prev_end = 0
    for start, end in _non_ascii_runs(text):
        if start > 0 and _char_info(text[start])[1]:
            start -= 1
        if start > prev_end:
            writer.same_length(text[prev_end:start].lower())
        _map_run(text[start:end], start, writer, text)
        writer.copy_until(text, end)
        prev_end = end
    if prev_end < len(text):
        writer.same_length(text[prev_end:].lower())
    return writer.finish(text)


# --- stage M: markup ---------------------------------------------------------------------

# Markup removal runs until nothing changes (a decoded "&lt;b&gt;" is a tag to the next pass,
# as it is in a quote copied from the rendered page); this many passes at most.
_MARKUP_PASSES = 3


def _fold_replacement(text: str) -> str:
    """A decoded entity, folded as stage A would have (a lone combining mark is dropped)."""
    if text.isascii():
        return text.lower()
    return "".join(f for f, is_mark in map(_char_info, text) if not is_mark)


def _apply(
    text: str, edits: list[tuple[int, int, str]], writer: _UnitWriter
) -> tuple[str, bool]:
    """The edited text, and whether a further pass could find more (see :data:`_RISKY`)."""
    ends = []
    for start, end, repl in edits:
        writer.copy_until(text, start)
        writer.replace(start, end, _fold_replacement(repl) if repl else "")
        ends.append(writer.npos)
    out = writer.finish(text)
    risky = _RISKY.search
    return out, any(q <= _REACH or risky(out, q - _REACH, q + 2) for q in ends)


# A construct that an edit completed has a character of these within _REACH characters
# before the edit (an entity's "&", a tag's "<", a link's "](", a marker's "[" or "^", a
# skippable character that now has new neighbours); an edit that close to the start may
# have exposed a line-start marker. Elsewhere another pass would find nothing new.
_RISKY = re.compile(r"[<>&\[\]()\\^_`\"'*~|]")
_REACH = 40

# Slots of the markup map chain: per pass, the constructs and then the skippable characters.
_SLOTS = 2 * _MARKUP_PASSES


def _markup_passes(text: str) -> tuple[str, list[_UnitWriter | None], list[int]]:
    """Stage M: markup constructs and skippable characters removed, to a fixed point.

    The first pass sees the lines as written (line-start markers, fenced code, HTML or not);
    later passes look at the start of the text only, as the normalization of the result (its
    lines joined by stage B) will. Removing a skippable character can complete a construct
    (``[a]*(b)``), hence the later passes -- run only when an edit left a character that
    could start one nearby.

    Returns the view, one writer per slot (``None`` where nothing changed) and the length of
    the text after each slot.
    """
    writers: list[_UnitWriter | None] = [None] * _SLOTS
    lengths = [len(text)] * _SLOTS
    if not may_have_markup(text):  # plain prose: no pass would change anything
        return text, writers, lengths
    html = is_html(text)
    for k in range(_MARKUP_PASSES):
        again = False
        edits = markup_edits(text, html, lines=k == 0)
        if edits:
            writer = writers[2 * k] = _UnitWriter()
            text, again = _apply(text, edits, writer)
        lengths[2 * k:] = [len(text)] * (_SLOTS - 2 * k)
        edits = skippable_edits(text)
        if edits:
            writer = writers[2 * k + 1] = _UnitWriter()
            text, risky = _apply(text, edits, writer)
            again = again or risky
        lengths[2 * k + 1:] = [len(text)] * (_SLOTS - 2 * k - 1)
        if not again:
            break
    return text, writers, lengths


# --- stage B: layout ---------------------------------------------------------------------


def _layout_repl(matched: str) -> str:
    """Canonical form of one stage-B match (before edge trimming)."""
    if "-" not in matched:
        return " "
    if matched[0] == "-" and "-" not in matched[1:] and matched[1:].strip(" \t"):
        return ""  # a hyphen + line break inside a word: join the word
    if matched[-1] == "-" and matched[0] == "-" and matched[1:-1].strip(" \t"):
        return "-"  # a real hyphen repeated after the line break ("Long-\n-horizon"): keep one
    core = matched.strip()
    if core == "-" or (core.strip("-") == "" and len(core) >= 2):
        return " - "
    return matched  # e.g. " -" glued to a word: left alone


def _layout_starts(text: str, lead: int, stop: int) -> list[int]:
    """Sorted positions in ``[lead, stop)`` of the strings in :data:`_LAYOUT_STARTS`."""
    found: list[int] = []
    for needle in _LAYOUT_STARTS:
        find = text.find
        at = find(needle, lead, stop)
        while at != -1:
            found.append(at)
            at = find(needle, at + 1, stop)
    found.sort()
    return found


def _layout_matches(text: str, lead: int, stop: int) -> Iterator[re.Match[str]]:
    """The matches of ``_LAYOUT.finditer(text, lead, stop)``, found from their candidate
    starts (text after stage A: no whitespace but ASCII)."""
    done = lead  # no match starts before done
    match = _LAYOUT.match
    for at in _layout_starts(text, lead, stop):
        if at < done:
            continue
        m = None
        if at > done and text[at - 1] == " ":
            m = match(text, at - 1, stop)
        if m is None:
            m = match(text, at, stop)
        if m is not None:
            done = m.end()
            yield m


def _stage_b(text: str, writer: _UnitWriter, first: bool, last: bool) -> str:
    lead, stop = 0, len(text)
    if first or last:
        stripped = text.lstrip() if first else text
        lead = len(text) - len(stripped)
        if last:
            stop = lead + len(stripped.rstrip())
        if lead:
            writer.replace(0, lead, "")
    last_end, last_repl = -1, ""
    for m in _layout_matches(text, lead, stop):
        start, end = m.span()
        matched = m.group()
        repl = _layout_repl(matched)
        if first and start == lead:
            repl = repl.lstrip()
        if last and end == stop:
            repl = repl.rstrip()
        # Two dash runs in a row ("-- --"): the space the first one ends with is enough.
        before = last_repl[-1:] if start == last_end else text[start - 1:start]
        if before == " " and repl.startswith(" "):
            repl = repl[1:]
        last_end, last_repl = end, repl
        if repl == matched:
            continue
        writer.copy_until(text, start)
        writer.replace(start, end, repl)
    if stop < len(text):
        writer.copy_until(text, stop)
        writer.replace(stop, len(text), "")
    return writer.finish(text)


# --- the short way: text that only the fold and the layout's whitespace rules change -------

# Every whitespace character but the space (what str.isspace and the regex "\s" call
# whitespace; tests/unit/gate/test_fast.py checks the list against them).
_OTHER_SPACES = ("\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004"
                 "\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")
# Characters at which the markup stage (may_have_markup) or the layout stage (any whitespace
# but the space: _LAYOUT_POSSIBLE) may act, less those laid_out looks at more closely: line
# breaks, apostrophes, square brackets, double quotation marks and tildes.
_LOOKED_AT = "\n'[]\"~"
_SHORT_WAY_CHAR = re.compile("[" + re.escape(
    "".join(ch for ch in MARKUP_CHARS + _OTHER_SPACES if ch not in _LOOKED_AT)) + "]")
# The ASCII ones as bytes: deleting them from an ASCII text's bytes tells at C speed, three
# times faster than the regex scan.
_SHORT_WAY_BYTES = "".join(ch for ch in MARKUP_CHARS + _OTHER_SPACES
                           if ch.isascii() and ch not in _LOOKED_AT).encode()
# A line break before a line-start marker (markup's "\n" trigger; only spaces can stand
# between them in a text _SHORT_WAY_CHAR clears).
_LINE_MARKER = re.compile(r"\n *[#>*+\-|=`~\[]")
# A square bracket that starts a construct: a footnote or citation marker, a link, a
# reference definition or shortcut (markup's "[" and "]" triggers, and "]:").
_BRACKET_CONSTRUCT = re.compile(r"\[(?=[\^1-9])|\](?=[(\[])|\]:")
# A hyphen at a line break inside a word, which the layout removes (_LAYOUT's first rule,
# with the spaces _SHORT_WAY_CHAR leaves). Written to start with its literal hyphen, the word
# character before it looked behind from there: the regex engine then skips to the hyphens
# at C speed instead of trying the lookbehind at every position (a quote of 200 characters
# with a line break and a hyphen: 6 -> 0.4 us).
_JOIN = re.compile(r"-(?<=\w-) *\n *(?=\w)")
# First characters at which leading_markers or a line-start marker (markup.LINE0) may remove
# something. Not "[": at a line start it begins a reference or footnote definition only
# with "]:" or "[^", which _BRACKET_CONSTRUCT refuses anywhere.
_MARKER_STARTS = frozenset("#>*+-|=`~")
_QUOTATION_MARKS = "\"'"
_IS_QUOTATION_MARK = frozenset(_QUOTATION_MARKS)  # "" is in a str, never in a set
# The ASCII characters laid_out looks at or refuses: a text with none of them is plain prose
# (its only whitespace the space: every other is among the refused).
_PLAIN = _SHORT_WAY_BYTES + (_QUOTATION_MARKS + _LOOKED_AT + "-").encode()
# Every other ASCII character (letters, digits, the space, prose punctuation): deleted from
# an ASCII text's bytes, it leaves the few characters laid_out's rules look at.
_INERT = bytes(code for code in range(128) if code not in _PLAIN)


def laid_out(folded: str, dashes: bool = False) -> str | None:
    """What :func:`normalize` makes of a text whose fold (:func:`fold_chars`) is ``folded``,
    for prose that only the layout's whitespace rules change; ``None`` for any other text.
    With ``dashes``, also for such prose on one line with dashes (``--``, a spaced hyphen),
    which the layout stage itself then lays out (see the end).

    That is plain prose but for quotation marks around it, double quotation marks inside it,
    apostrophes inside words, square brackets that start no construct, single tildes, line
    breaks, runs of spaces and hyphens at a line break inside a word: the quotes answers
    give, which then skip the markup passes and the layout scan (several times the cost of
    the rest). Each is shown to be all the two stages do to such a text:

    * the markup pass removes quotation marks at the ends (skippable next to the text's end),
      except one after a digit (refused), and double quotation marks inside
      (:func:`_inner_quotation_marks_removed`; what follows is shown of the text they
      leave). An apostrophe with a letter or digit on both sides is never skippable, nor is
      a single tilde (a strikethrough takes two: refused). A line break is a construct
      trigger only before a line-start marker, a square bracket only as
      :data:`_BRACKET_CONSTRUCT` says (both refused), and the later passes a removal asks
      for have no other trigger than a marker at the start (refused).
    * the layout stage joins a word at a hyphen + line break (:data:`_JOIN`, its first
      rule); with no hyphen next to whitespace or another hyphen otherwise (refused), its
      every other match is a run of whitespace, which becomes one space, none at the ends:
      ``str.split``.

    Which of the characters these rules look at (:data:`_PLAIN`: quotation marks,
    apostrophes, square brackets, tildes, line breaks, hyphens, and the characters that
    refuse the short way) an ASCII text holds is read from its bytes, all others deleted at
    C speed (``seen``): most quotes hold one or two of them, and each rule then asks the few
    characters left whether it has anything to look at, not the whole text (for any other
    text, ``seen`` is the text itself). A text holding none takes the only branch left for
    it: its spaces collapsed, unless a marker starts it.

    Dashes on one line. The markup pass leaves them alone (a hyphen is markup only as a
    line-start marker: refused at the start, and there is no line break), so the layout
    stage is given the text laid out but for them: its spaces collapsed, which it would
    collapse too, with the same dash forms (a dash match takes every space around it, and
    what it becomes does not depend on how many). What it makes is the normalization, its
    first character the text's own (no match starts at a character that is neither a space
    nor a hyphen): no marker left to remove.
    """
    if folded.isascii():
        looked_at = folded.encode().translate(None, _INERT)
        if not looked_at:
            out = " ".join(folded.split()) if "  " in folded else folded.strip(" ")
            return None if out[:1] in _MARKER_STARTS else out
        # a character refusing the short way (none stripped: no quotation mark), told
        # by one more deletion from the bytes at hand
        if len(looked_at.translate(None, _SHORT_WAY_BYTES)) != len(looked_at):
            return None
        seen = looked_at.decode()
    elif _SHORT_WAY_CHAR.search(folded) is not None:
        return None
    else:
        seen = folded
    # Every test below asks ``seen`` whether ``text`` may hold a character: ``text`` is
    # ``folded`` with some of its quotation marks taken out, so it holds no other.
    text = folded
    if folded[:1] in _IS_QUOTATION_MARK or folded[-1:] in _IS_QUOTATION_MARK:
        text = folded.strip(_QUOTATION_MARKS)
        if folded[-1] in _IS_QUOTATION_MARK and text[-1:].isdigit():
            return None  # a closing mark after a digit (inches, feet) is kept
    if '"' in seen and '"' in text:
        removed = _inner_quotation_marks_removed(text)
        if removed is None:
            return None
        text = removed
    if "~" in seen and "~~" in text:  # strikethrough; a single tilde ("approximately") is text
        return None
    if "'" in seen and not _inside_words(text, "'"):
        return None
    if ("[" in seen or "]" in seen) and _BRACKET_CONSTRUCT.search(text) is not None:
        return None
    if "\n" in seen:
        if _LINE_MARKER.search(text) is not None:
            return None
        if "-" in seen:
            text = _JOIN.sub("", text)
        out = " ".join(text.split())
    else:
        out = " ".join(text.split()) if "  " in text else text.strip(" ")
    if out[:1] in _MARKER_STARTS:
        return None
    if "-" in seen and ("--" in out or " -" in out):
        if not dashes or "\n" in seen:
            return None
        return _stage_b(out, _UnitWriter(), True, True)
    return out


# The characters an ellipsis normalize_elided joins by may hold, and its fold.
_ELLIPSIS_CHARS = frozenset(". \u2026")
# What may not stand right before a bracketed mark normalize_marked keeps: a closing square
# bracket (a construct with the mark's opening) and a quotation mark (not inside words).
_NOT_BEFORE_MARK = frozenset("]\"'")


def normalize_elided(parts: list[str], ellipses: list[str], length: int) -> list[str] | None:
    """``[normalize(part) for part in parts]`` for the parts of a text cut at ellipses
    (``ellipses[j]`` stands between ``parts[j]`` and ``parts[j + 1]``: full stops, ellipsis
    characters and spaces) when the whole text is then shown laid out from them: its
    normalization is ``" ".join("".join(joined).split())``, ``joined`` being each part's
    normalized text, with a space on an inner side where the part's fold has whitespace
    there, and between them the ellipses folded (``...`` for the ellipsis character).
    ``None`` when that is not shown (the caller normalizes each text itself): a part not laid
    out (:func:`laid_out`), an ellipsis of other characters, a quotation mark next to an
    ellipsis, a whole (``length`` characters) normalized in chunks.

    Why the join is the whole's normalization. Every part is folded and laid out, so none
    holds a combining mark, and neither does the whole (an ellipsis holds none): the whole's
    fold is the parts' folds joined by the ellipses' (a fold is per character), and the
    whole is laid out if each of :func:`laid_out`'s rules lets it through:

    * quotation marks are stripped at the whole's ends: the first part's leading ones and
      the last part's trailing ones, as each part's own layout strips them, since no other
      quotation mark stands next to an ellipsis (refused, but for a first or last part made
      of quotation marks only, stripped whole either way). A closing mark after a digit is
      the last part's (refused there too).
    * the whole holds no character refusing the short way (the parts hold none, an ellipsis
      neither); each apostrophe stands inside a part with the same neighbours (one at a
      part's end would not be inside words there), so inside words; each double quotation
      mark inside a part too (one at a part's inner end is refused), so it is removed from
      the whole as from its part; no strikethrough forms across an ellipsis; no square bracket
      construct forms across an ellipsis (one starts at ``[``, and ``]`` starts one only
      before ``(``, ``[`` or ``:``, never a full stop or space); a line-start marker after a
      line break, and a hyphen joined at a line break, need a marker or a word character
      next to the spaces after it: across an ellipsis there is a full stop. So the
      line-break rules find in the whole what they find in each part.
    * its spaces collapse as the parts' do, the ellipses kept between them; and the whole
      holds no ``--`` or `` -`` (each would be inside a part: an ellipsis has no hyphen, and
      a part starting with one is refused as a marker) and starts as its first part or with
      a full stop, never a marker.
    """
    if length > CHUNK_CHARS:  # the whole's length: normalized in chunks
        return None
    for ellipsis in ellipses:
        if ellipsis != "\u2026" and not _ELLIPSIS_CHARS.issuperset(ellipsis):
            return None
    last = len(parts) - 1
    outs: list[str] = []
    for i, part in enumerate(parts):
        folded = fold_chars(part)
        out = None if folded is None else laid_out(folded)
        if out is None or folded is None:
            return None
        outs.append(out)
        # A quotation mark next to an ellipsis: refused unless stripped at the whole's end.
        if (i and folded[:1] in _IS_QUOTATION_MARK
                and (i < last or folded.strip(_QUOTATION_MARKS))):
            return None
        if (i < last and folded[-1:] in _IS_QUOTATION_MARK
                and (i or folded.strip(_QUOTATION_MARKS))):
            return None
    return outs


# How a mark normalize_marked keeps in the whole opens and closes (letters and spaces
# between), and what may not stand right after it (a construct with its closing bracket, a
# quotation mark that would not be inside words).
_OPENING, _CLOSING = frozenset("[("), frozenset("])")
_NOT_AFTER_MARK = frozenset("([:\"'")


def normalize_marked(text: str, start: int, end: int, insert: str) -> tuple[str, str] | None:
    """``normalize`` of ``text`` with the annotation or change of case ``text[start:end]``
    (``[sic]``, ``(emphasis added)``, ``[T]``: ASCII letters and spaces in square brackets
    or parentheses) replaced by ``insert`` (a space, or its letters), and a string that
    ``normalize(text)`` is then shown to hold: the mark folded, its spaces collapsed. The
    caller learns something of ``text``'s normalization without making it. ``None`` when
    that is not shown (a mark of other characters, the replaced text not laid out, or a
    line break, a closing bracket, a quotation mark or a digit where the mark would start a
    construct or stand next to a quotation mark).

    Why the whole holds the mark. The replaced text is folded and laid out
    (:func:`laid_out`): its fold is the text's before the mark, the insert's and the text's
    after it (a fold is per character, and none of these holds a combining mark), and the
    checks below are made on those folds. The whole differs from it only in the mark, so
    the whole is laid out too:

    * its ends are the replaced text's, or a bracket or parenthesis (never a quotation
      mark), so the same quotation marks are stripped, under the same rule for a closing
      mark after a digit;
    * the mark adds only brackets, parentheses, letters and spaces, none refusing the short
      way; a quotation mark next to it would not be inside words, nor stripped (refused);
    * no square bracket construct forms: the mark does not start with ``[^`` or ``[`` and a
      digit (a digit is refused), and nothing before it is ``]`` (refused), nor after it
      ``(``, ``[`` or ``:`` (refused);
    * no line break stands before it (refused: ``[`` would be a line-start marker there),
      and the line-break rules find the rest in the replaced text, at the same places;
    * the mark holds no hyphen, so ``--`` and `` -`` stand in the whole only where they
      stand in the replaced text (refused there: an annotation's space made a `` -`` of a
      hyphen after the mark), and the whole starts with the replaced text's first
      character or the mark's bracket, never a marker.

    An annotation's replaced text is laid out with the spaces around its space taken as
    one: a run of spaces lays out as one space under every rule (quotation marks at the ends
    are the same, no rule looks at how many spaces a run has, and the runs collapse), and
    the collapse of a long run is not made here.

    Laid out, the whole is its text folded, quotation marks stripped at its ends and
    whitespace collapsed: the mark (ASCII: folded by lower-casing) stands in it whole, its
    spaces collapsed, between characters that are not spaces at its two ends.
    """
    mark = text[start:end]
    letters = mark[1:-1]
    if (len(text) > CHUNK_CHARS or not mark.isascii() or mark[:1] not in _OPENING
            or mark[-1:] not in _CLOSING or not letters.replace(" ", "").isalpha()):
        return None
    before, after = fold_chars(text[:start]), fold_chars(text[end:])
    if (before is None or after is None or before.rstrip(" ")[-1:] == "\n"
            or before[-1:] in _NOT_BEFORE_MARK or after[:1] in _NOT_AFTER_MARK):
        return None
    if insert == " ":  # a run of spaces lays out as one: no collapsing of the run made here
        out = laid_out(f"{before.rstrip(' ')} {after.lstrip(' ')}")
    else:
        out = laid_out(before + insert.lower() + after)
    if out is None:
        return None
    return out, " ".join(mark.lower().split())


def _inner_quotation_marks_removed(text: str) -> str | None:
    """``text`` without its double quotation marks, when the markup pass removes each of
    them and nothing else (``None`` when that is not shown): for a text whose ends
    :func:`laid_out` has stripped, holding none of the characters that refuse its short way.

    A double quotation mark that follows no digit is a skippable character, and a run of
    them alone vanishes wherever it stands (``markup._skip_run``: it keeps only an apostrophe
    inside a word, and turns only an underscore's run into a space). One after a digit
    (inches) is kept, and one next to an apostrophe would join its run, which is judged as a
    whole: both refused. Removing the marks makes no construct the first markup pass would
    have found without them (no trigger of a construct holds a quotation mark but the
    backslash's escape, which refuses the short way), and whatever a later pass could find
    in the text they leave -- a line-start marker after a line break, a square bracket
    construct, an apostrophe not inside a word, a strikethrough -- is looked for by
    :func:`laid_out` in that text, which it lays out in their place."""
    pos = text.find('"')
    while pos != -1:
        before = text[pos - 1:pos]
        if before.isdigit() or before == "'" or text[pos + 1:pos + 2] == "'":
            return None
        pos = text.find('"', pos + 1)
    return text.replace('"', "")


def _inside_words(text: str, ch: str) -> bool:
    """Every ``ch`` of ``text`` has a letter or digit on both sides."""
    pos = text.find(ch)
    while pos != -1:
        if not (0 < pos < len(text) - 1 and text[pos - 1].isalnum() and text[pos + 1].isalnum()):
            return False
        pos = text.find(ch, pos + 1)
    return True


# Texts longer than this are normalized in chunks, so temporaries stay small and peak memory
# stays near the size of the output. Chunks are cut between two ASCII letters or digits, where
# no rule of stage A or B can look across the cut (a markup construct still could, rarely: a
# tag or link that spans more than a paragraph).
CHUNK_CHARS = 1 << 16
_CUT = re.compile(r"[A-Za-z0-9](?=[A-Za-z0-9])")
# Preferably in the first word of a paragraph (after a blank line), where no Markdown link or
# emphasis of the previous paragraph can reach across the cut; else in the first word after a
# space (never inside an entity, a marker or a tag without attributes).
_PARAGRAPH_CUT = re.compile(r"\n[ \t]*\n\s*[A-Za-z0-9](?=[A-Za-z0-9])")
_WORD_CUT = re.compile(r"\s[A-Za-z0-9](?=[A-Za-z0-9])")  # else in a word after a space
_CUT_REACH = 1 << 14


def _normalize(text: str) -> tuple[str, OffsetMap, tuple[OffsetMap, ...], OffsetMap, int]:
    """Normalized text, the maps of stage A, of each stage-M slot and of stage B, and how many
    leading characters of stage B's output were block markers (removed)."""
    if len(text) <= CHUNK_CHARS:
        a, b = _UnitWriter(), _UnitWriter()
        view, passes, _ = _markup_passes(_stage_a(text, a))
        out = _stage_b(view, b, True, True)
        lead = leading_markers(out)
        markup = tuple(w.offset_map() for w in passes if w is not None and w.n_starts)
        return out[lead:], a.offset_map(), markup, b.offset_map(), lead
    chars, layout = _UnitWriter(), _UnitWriter()
    markup_acc = [_UnitWriter() for _ in range(_SLOTS)]
    # pos[0]: output length so far after stage A; pos[k + 1]: after markup slot k.
    pos = [0] * (_SLOTS + 1)
    pieces: list[str] = []
    start = out_pos = 0
    while start < len(text):
        cut = None
        if start + CHUNK_CHARS < len(text):
            reach = start + CHUNK_CHARS + _CUT_REACH
            cut = (_PARAGRAPH_CUT.search(text, start + CHUNK_CHARS, reach)
                   or _WORD_CUT.search(text, start + CHUNK_CHARS, reach)
                   or _CUT.search(text, start + CHUNK_CHARS))
        end = cut.end() if cut else len(text)
        a, b = _UnitWriter(), _UnitWriter()
        mid = _stage_a(text[start:end], a)
        view, passes, lengths = _markup_passes(mid)
        out = _stage_b(view, b, start == 0, end == len(text))
        a.shifted_into(chars, pos[0], start)
        for k, writer in enumerate(passes):
            if writer is not None:
                writer.shifted_into(markup_acc[k], pos[k + 1], pos[k])
        b.shifted_into(layout, out_pos, pos[-1])
        for k, length in enumerate((len(mid), *lengths)):
            pos[k] += length
        pieces.append(out)
        out_pos += len(out)
        start = end
    markup = tuple(w.offset_map() for w in markup_acc if w.n_starts)
    lead = leading_markers(pieces[0]) if pieces else 0
    if lead:
        pieces[0] = pieces[0][lead:]
    return "".join(pieces), chars.offset_map(), markup, layout.offset_map(), lead


@dataclass(frozen=True, slots=True)
class NormalizedText:
    """A normalized string with the maps that lead back to the original.

    ``text`` is what the gate searches; :meth:`original_span` turns a half-open range in it into
    the half-open range of the original string it came from (through the layout map, the
    markup passes in reverse order, then the character map).
    """

    original: str
    text: str
    chars: OffsetMap
    layout: OffsetMap
    markup: tuple[OffsetMap, ...] = ()
    lead: int = 0
    _unhyphenated: str | None = field(default=None, init=False, repr=False, compare=False)
    _skeleton: bytes | None = field(default=None, init=False, repr=False, compare=False)
    _breaks: bool | None = field(default=None, init=False, repr=False, compare=False)

    def without_hyphens(self) -> str:
        """``text`` with its hyphens dropped, made on first use and kept: the slip search reads
        it in every document it searches (a quote may have joined a compound), for every quote
        not found as written, and a document is searched again and again."""
        out = self._unhyphenated
        if out is None:
            out = self.text.replace("-", "")
            object.__setattr__(self, "_unhyphenated", out)  # a cache, not state: frozen otherwise
        return out

    def slip_skeleton(self) -> bytes:
        """``text`` without its soft punctuation and spaces (:func:`~vcg_otel.gate.slips.skeleton`),
        made on first use and kept: the slip search tests every quote it is asked for against
        it, and a document is searched again and again. About 0.85 bytes per character of
        ASCII prose (its spaces and soft punctuation dropped), up to 3 for other scripts."""
        out = self._skeleton
        if out is None:
            out = skeleton(self.text)
            object.__setattr__(self, "_skeleton", out)  # a cache, not state: frozen otherwise
        return out

    def has_paragraph_break(self) -> bool:
        """``original`` holds a paragraph break (a blank line or U+2029), looked up on first use
        and kept: an elided quote's pieces may not be chained across one, and a document
        without any (most chunks) needs no gap mapped back to be sure; a document is searched
        again and again."""
        out = self._breaks
        if out is None:
            original = self.original
            out = "\u2029" in original or _BLANK_LINE.search(original) is not None
            object.__setattr__(self, "_breaks", out)  # a cache, not state: frozen otherwise
        return out

    @property
    def identity(self) -> bool:
        """Every map is the identity (most documents: no character, markup or layout change
        of length): a normalized range is the original range shifted by :attr:`lead`, the
        leading markers removed (:meth:`original_span` of a non-empty range)."""
        return not (self.layout.n_starts or self.markup or self.chars.n_starts)

    def original_span(self, start: int, end: int) -> tuple[int, int]:
        """Half-open original offsets for the normalized range ``[start, end)``."""
        if not (self.layout.n_starts or self.markup or self.chars.n_starts):
            # Every map is the identity (most documents: no character, markup or layout
            # change of length): only the leading markers shift the text.
            return start + self.lead, (end if end > start else start) + self.lead
        o_start = self.layout.start(start + self.lead)
        o_end = self.layout.end(end + self.lead) if end > start else o_start
        for offset_map in (*reversed(self.markup), self.chars):
            mapped = offset_map.start(o_start)
            o_end = offset_map.end(o_end) if o_end > o_start else mapped
            o_start = mapped
        return o_start, o_end


def normalize_with_map(text: str) -> NormalizedText:
    """Normalize ``text`` and keep the offset maps back to it.

    Raises:
        TypeError: ``text`` is not a ``str``.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}")
    out, chars, markup, layout, lead = _normalize(text)
    return NormalizedText(text, out, chars, layout, markup, lead)


def normalize(text: str) -> str:
    """Normalize text for verbatim comparison (see the module docstring for the rules).

    The result is idempotent: ``normalize(normalize(t)) == normalize(t)``.

    Raises:
        TypeError: ``text`` is not a ``str``.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}")
    if len(text) <= CHUNK_CHARS:
        mid = fold_chars(text)
        if mid is not None:
            quick = laid_out(mid, dashes=True)
            if quick is not None:
                return quick
            # Prose without markup skips the markup passes and the layout scan (see
            # may_have_markup and _LAYOUT_POSSIBLE): the same output, at a fraction of the
            # cost per quote.
            view = _markup_passes(mid)[0]
            if _LAYOUT_POSSIBLE.search(view) is None:
                out = view.strip()
            else:
                out = _stage_b(view, _UnitWriter(), True, True)
            return out[leading_markers(out):]
    return _normalize(text)[0]
