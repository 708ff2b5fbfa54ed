"""A reader's view of Markdown, HTML and PDF-extracted text: what to skip, and where.

RAG chunks are raw Markdown, raw HTML or PDF text, but a model quotes what a *reader* sees: no
emphasis markers, no link targets, no tags, entities decoded. The gate therefore compares the
quote and the document after removing the same markup from both. Nothing here parses a whole
document: a full renderer gives no character offsets (markdown-it-py has line maps only), and
the gate needs offsets back into the raw text. Instead two small passes find what a reader
never sees, and :mod:`.normalize` applies them with its offset maps:

* :func:`markup_edits` finds *constructs* (HTML tags, comments, ``script``/``style`` contents,
  entities, Markdown link targets and reference definitions, footnote references, citation
  markers glued to text, backslash escapes, line-start markers of headings, lists, block
  quotes, tables, fences and rules) and returns them as edits ``(start, end, replacement)``.
  It runs on case-folded text, so tag names and entities are already lower case.
* :func:`blank_skippable` turns *skippable characters* into spaces (same length, so no offsets
  change): emphasis and code markers, table pipes, underscores, quotation marks and bullets,
  each only where it cannot carry meaning (see the README, "What the gate repairs").

Both are designed to be applied until nothing changes (a decoded ``&lt;b&gt;`` is a tag to the
next pass, exactly as it would be in a quote that copied the rendered text), which is what
keeps normalization idempotent.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from html import unescape

__all__ = ["blank_skippable", "has_markup", "markup_edits"]

Edit = tuple[int, int, str]

# Characters that are spaces to a reader wherever they stand, on both the quote and the
# document. Each becomes a space of its own (same length, so no offsets change); runs are judged
# as a whole, so one pass leaves nothing for a second to remove.
#   _ emphasis, and PDF extraction that draws underscores as rules (read_config_file);
#   ` inline code;
#   " quotation marks, except after a digit (inches, seconds: 12");
#   ' quotation marks, except inside a word (don't) or after a digit (feet, minutes: 5').
_SKIP_CHARS = re.compile(r"_|`|\"(?<!\d\")|'(?<![^\W_]')|'(?<=[^\W\d_]')(?![^\W_])")
# Runs, judged after the characters above became spaces:
#   * emphasis, strong and bullets (U+2022 and other bullets fold to "*"), except between
#     digits, where it is multiplication or a folded middle-dot decimal point (2*3, 3·5);
#   ~~ strikethrough (two or more); a single "~" means "approximately" and stays;
#   | table pipes, when a space, a dash or a line edge is on at least one side of the run
#     (so "a|b" stays).
# One pattern per character, each starting with its literal (lookbehinds come after it): the
# regex engine then finds candidates with a fast literal search (about 2.5 GB/s) instead of
# trying every position, and a character that does not occur costs one ``in`` test.
_SKIP_EACH = (
    ('"', re.compile(r"\"(?<!\d\")"), " "),
    ("'", re.compile(r"'(?<![^\W_]')|'(?<=[^\W\d_]')(?![^\W_])"), " "),
    ("*", re.compile(r"\*(?<![\d*]\*)\**|\*(?<!\*\*)\**(?![\d*])"), None),
    ("~", re.compile(r"~(?<!~~)~+(?!~)"), None),
    ("|", re.compile(r"\|(?<![^\s\-]\|)\|*|\|(?<!\|\|)\|*(?![^\s\-])"), None),
)


def _spaces(m: re.Match[str]) -> str:
    return " " * (m.end() - m.start())


def blank_skippable(text: str) -> str:
    """``text`` with every skippable character replaced by a space (the same length)."""
    for ch in "_`":
        if ch in text:
            text = text.replace(ch, " ")
    for ch, pattern, repl in _SKIP_EACH:
        if ch in text:
            text = pattern.sub(repl or _spaces, text)
    return text


# Where a construct may start, one pattern per character for the same reason.
_TRIGGERS = (
    ("\n", re.compile(r"\n[ \t]*(?=[#>*+\-|=`~\[])")),
    ("<", re.compile(r"<")),
    ("&", re.compile(r"&(?=[#a-z])")),
    ("]", re.compile(r"\](?=[(\[])")),
    ("[", re.compile(r"\[(?=\^|[1-9])")),
    ("^", re.compile(r"\^(?=[1-9])")),
    ("\\", re.compile(r"\\(?=[!-/:-@\[-`{-~])")),
)
# The same line-start markers at the very beginning of the text.
_LINE0 = re.compile(r"[ \t]*(?=[#>*+\-|=`~\[])")



def has_markup(text: str) -> bool:
    """Could :func:`markup_edits` find anything? (Literal scans; most prose says no.)"""
    if _LINE0.match(text) is not None:
        return True
    return any(ch in text and pattern.search(text) is not None for ch, pattern in _TRIGGERS)


def _trigger_positions(text: str) -> list[tuple[int, int]]:
    """Sorted ``(position, kind)`` where a construct may start; kind 0 is a line start (at its
    first marker), 1 anything else, so a line start is looked at first."""
    found: list[tuple[int, int]] = []
    for ch, pattern in _TRIGGERS:
        if ch in text:
            if ch == "\n":
                found.extend((m.end(), 0) for m in pattern.finditer(text))
            else:
                found.extend((m.start(), 1) for m in pattern.finditer(text))
    found.sort()
    return found


# HTML elements a reader sees as a break between blocks (their tags become a line break) and
# those that flow inside a line (their tags vanish). Anything else in angle brackets is text:
# "a <b and c> d" only loses "<b and c>" because b is an element.
_BLOCK = frozenset((
    "address", "article", "aside", "blockquote", "body", "br", "caption", "center", "dd",
    "details", "dialog", "dir", "div", "dl", "dt", "fieldset", "figcaption", "figure",
    "footer", "form", "frame", "frameset", "h1", "h2", "h3", "h4", "h5", "h6", "head",
    "header", "hgroup", "hr", "html", "iframe", "legend", "li", "link", "main", "menu",
    "meta", "nav", "noscript", "ol", "optgroup", "option", "p", "pre", "section", "summary",
    "table", "tbody", "td", "tfoot", "th", "thead", "title", "tr", "ul",
))
_INLINE = frozenset((
    "a", "abbr", "area", "audio", "b", "bdi", "bdo", "big", "button", "canvas", "cite",
    "code", "col", "colgroup", "data", "del", "dfn", "em", "embed", "font", "i", "img",
    "input", "ins", "kbd", "label", "map", "mark", "math", "object", "param", "picture", "q",
    "rp", "rt", "ruby", "s", "samp", "select", "small", "source", "span", "strike", "strong",
    "sub", "sup", "svg", "textarea", "time", "track", "tt", "u", "var", "video", "wbr",
))
_DROP_CONTENT = frozenset(("script", "style"))

_TAG = re.compile(r"<(/?)([a-z][a-z0-9]{0,15})(?=[\s/>])(?:[^<>\"']|\"[^\"]*\"|'[^']*')*>")
_DECL = re.compile(r"<![a-z][^<>]*>|<\?[^<>]*\?>")
_AUTOLINK = re.compile(r"<[a-z][a-z0-9+.\-]{1,31}:[^\s<>]*>|<[^\s<>@]+@[^\s<>@]+\.[a-z]{2,}>")
_ENTITY = re.compile(
    r"&(?:amp;|#0*38;|#x0*26;)*(?:[a-z][a-z0-9]{1,31}|#[0-9]{1,7}|#x[0-9a-f]{1,6});"
)
_FOOTNOTE_REF = re.compile(r"\[\^[^\]\s]{1,100}\](?!:)")
_CITE = re.compile(r"\[[1-9][0-9]{0,2}(?:\s?[,\-]\s?[1-9][0-9]{0,2}){0,9}\]")
_SUP = re.compile(r"\^[1-9][0-9]{0,2}(?:[,\-][1-9][0-9]{0,2}){0,9}(?=[\s.,;:]|$)")
_REF_LABEL = re.compile(r"\[[^\[\]\n]{0,999}\]")
# What may stand right before a glued citation marker: a word of at least three letters
# (so x[3] and n^2 stay), or closing punctuation (30%[12], "al.^4").
_GLUE_WORD = re.compile(r"[^\W\d_]{3}")
_GLUE_PUNCT = frozenset("%.,;:)\"'*_")

# Line-start markers (matched at the first non-blank character of a line).
_BLOCKQUOTE = re.compile(r"(?:>[ \t]?)+(?![ \t]*[\d.$\u20ac\u00a3\-])")
_HEADING = re.compile(r"#{1,6}(?:[ \t]+|(?=\n)|\Z)")
_BULLET = re.compile(r"[-+*][ \t]+(?![\d.$])(?:\[[ x]\][ \t]+)?")
_FENCE = re.compile(r"(?:`{3,}|~{3,})[^\n`]*")
_RULE_LINE = re.compile(
    r"(?:(?:[-*_=][ \t]*){3,}"
    r"|\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)+\|?[ \t]*"
    r"|\|[ \t]*:?-+:?[ \t]*\|[ \t]*)(?=\n|\Z)"
)
_REF_DEF = re.compile(
    r"\[[^\[\]\n^]{1,999}\]:[ \t]*\S+(?:[ \t]+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^()\n]*\)))?"
    r"[ \t]*(?=\n|\Z)"
)
_FOOTNOTE_DEF = re.compile(r"\[\^[^\]\s]{1,100}\]:[ \t]*")

_SCAN_LIMIT = 2000  # how far a link looks for its other bracket or its target's end


class _Edits:
    """Edits in text order, plus the view's character before a position."""

    __slots__ = ("items", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.items: list[Edit] = []

    def add(self, start: int, end: int, repl: str) -> None:
        self.items.append((start, end, repl))

    def prev_char(self, pos: int) -> str:
        """The character a reader sees just before ``pos`` (after earlier edits)."""
        k = len(self.items) - 1
        while pos > 0:
            while k >= 0 and self.items[k][1] > pos:
                k -= 1
            if k >= 0 and self.items[k][1] == pos:
                start, _, repl = self.items[k]
                if repl:
                    return repl[-1]
                pos, k = start, k - 1
                continue
            return self.text[pos - 1]
        return ""


def _glued(edits: _Edits, pos: int) -> bool:
    """Is ``pos`` right after a word of three letters or closing punctuation (in the view)?"""
    ch = edits.prev_char(pos)
    if ch in _GLUE_PUNCT and ch:
        return True
    if not ch.isalpha():
        return False
    return pos >= 3 and _GLUE_WORD.fullmatch(edits.text, pos - 3, pos) is not None


def _link_opener(text: str, close: int) -> int:
    """Position of the ``[`` matching the ``]`` at ``close``, or -1."""
    depth = 0
    stop = max(0, close - _SCAN_LIMIT)
    pos = close - 1
    while pos >= stop:
        ch = text[pos]
        if ch == "]" and (pos == 0 or text[pos - 1] != "\\"):
            depth += 1
        elif ch == "[" and (pos == 0 or text[pos - 1] != "\\"):
            if depth == 0:
                return pos
            depth -= 1
        elif ch == "\n" and text.startswith("\n", pos + 1):
            return -1  # a blank line: links never cross paragraphs
        pos -= 1
    return -1


def _link_target_end(text: str, open_paren: int) -> int:
    """End (exclusive) of an inline link target ``(...)`` starting at ``open_paren``, or -1."""
    depth = 0
    stop = min(len(text), open_paren + _SCAN_LIMIT)
    quote = ""
    for pos in range(open_paren, stop):
        ch = text[pos]
        if quote:
            if ch == quote:
                quote = ""
            elif ch == "\n":
                return -1
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return pos + 1
        elif ch == "\n":
            return -1
        elif ch == '"' and text[pos - 1] in " \t":
            quote = '"'
    return -1


def _line_start(text: str, pos: int, edits: _Edits) -> int:
    """Markers at the first non-blank character ``pos`` of a line; returns where to go on."""
    m = _RULE_LINE.match(text, pos) or _FENCE.match(text, pos)
    if m is not None:
        edits.add(pos, m.end(), "")
        return m.end()
    m = _REF_DEF.match(text, pos)
    if m is not None:
        edits.add(pos, m.end(), "")
        return m.end()
    start = pos
    m = _BLOCKQUOTE.match(text, pos)
    if m is not None:
        pos = m.end()
        pos += len(text[pos:pos + 4]) - len(text[pos:pos + 4].lstrip(" \t"))
    m = _HEADING.match(text, pos) or _BULLET.match(text, pos)
    if m is not None:
        pos = m.end()
    m = _FOOTNOTE_DEF.match(text, pos)
    if m is not None:
        pos = m.end()
    if pos > start:
        edits.add(start, pos, "")
    return pos


def _tag(text: str, start: int, edits: _Edits) -> int:
    """A tag of a known element at ``start``; returns where to go on (``start`` if none)."""
    tag = _TAG.match(text, start)
    if tag is None:
        decl = _DECL.match(text, start) or _AUTOLINK.match(text, start)
        if decl is None:
            return start
        if decl.re is _AUTOLINK:
            edits.add(start, start + 1, "")
            edits.add(decl.end() - 1, decl.end(), "")
        else:
            edits.add(start, decl.end(), "")
        return decl.end()
    closing, name = tag.group(1), tag.group(2)
    end = tag.end()
    if name in _DROP_CONTENT and not closing:
        close = text.find("</" + name, end)
        if close != -1:
            gt = text.find(">", close)
            end = gt + 1 if gt != -1 else len(text)
        edits.add(start, end, "\n")
        return end
    if name in _BLOCK or name in _DROP_CONTENT:
        edits.add(start, end, "\n")
    elif name in _INLINE:
        edits.add(start, end, "")
    else:
        return start
    return end


def _entity(text: str, start: int, edits: _Edits) -> int:
    """A character reference at ``start``, decoded; returns where to go on."""
    ent = _ENTITY.match(text, start)
    if ent is None:
        return start
    raw = ent.group()
    last = raw.rfind("&")
    decoded = unescape(raw[last:])
    if decoded == raw[last:]:  # unknown name: decode the leading &amp; chain only
        if last == 0:
            return start
        edits.add(start, start + last, "&")
        return start + last
    edits.add(start, ent.end(), decoded)
    return ent.end()


def _link(text: str, pos: int, edits: _Edits) -> int:
    """``](target)`` or ``][label]`` at ``pos``: drop it and the opening bracket."""
    if pos > 0 and text[pos - 1] == "\\":
        return pos
    if text[pos + 1] == "(":
        end = _link_target_end(text, pos + 1)
    else:
        label = _REF_LABEL.match(text, pos + 1)
        end = label.end() if label is not None else -1
    if end == -1:
        return pos
    opener = _link_opener(text, pos)
    if opener == -1:
        return pos
    lo = opener - 1 if opener > 0 and text[opener - 1] == "!" else opener
    items = edits.items
    k = bisect_left(items, (lo, -1, ""))
    if (k > 0 and items[k - 1][1] > lo) or (k < len(items) and items[k][0] <= opener):
        return pos  # the bracket belongs to something already removed
    items.insert(k, (lo, opener + 1, ""))
    edits.add(pos, end, "")
    return end


def markup_edits(text: str) -> list[Edit]:
    """What a reader never sees in ``text`` (case-folded): sorted, non-overlapping edits.

    Each edit ``(start, end, replacement)`` replaces ``text[start:end]``; replacements are a
    line break for block boundaries, a decoded entity, or nothing.
    """
    edits = _Edits(text)
    resume = 0
    first = _LINE0.match(text)
    if first is not None:
        resume = _line_start(text, first.end(), edits)
    for pos, kind in _trigger_positions(text):
        if pos < resume:
            continue
        if kind == 0:
            resume = _line_start(text, pos, edits)
            continue
        ch = text[pos]
        if ch == "<":
            if text.startswith("!--", pos + 1):
                close = text.find("-->", pos + 4)
                if close != -1:
                    edits.add(pos, close + 3, "")
                    resume = close + 3
            else:
                resume = _tag(text, pos, edits)
        elif ch == "&":
            resume = _entity(text, pos, edits)
        elif ch == "]":
            resume = _link(text, pos, edits)
        elif ch == "[":
            resume = _bracket(text, pos, edits)
        elif ch == "^":
            sup = _SUP.match(text, pos)
            if sup is not None and _glued(edits, pos):
                edits.add(pos, sup.end(), "")
                resume = sup.end()
        elif ch == "\\":
            edits.add(pos, pos + 1, "")
            resume = pos + 1
    return edits.items


def _bracket(text: str, pos: int, edits: _Edits) -> int:
    """A footnote reference ``[^1]`` anywhere, or a citation marker ``[12]`` glued to text."""
    m = _FOOTNOTE_REF.match(text, pos)
    if m is None:
        m = _CITE.match(text, pos)
        if m is None or not _glued(edits, pos) or text.startswith("(", m.end()):
            return pos
    edits.add(pos, m.end(), "")
    return m.end()
