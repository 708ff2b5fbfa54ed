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
* :func:`skippable_edits` removes *skippable characters* (a run between two words becomes a
  space): emphasis and code markers, table pipes, underscores, quotation marks and bullets,
  each only where it cannot carry meaning (see docs/concepts/gate.md).

Both are designed to be applied until nothing changes (a decoded ``&lt;b&gt;`` is a tag to the
next pass, exactly as it would be in a quote that copied the rendered text), which is what
keeps normalization idempotent.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator
from html import unescape

__all__ = [
    "MARKUP_CHARS",
    "is_html",
    "leading_markers",
    "markup_edits",
    "matches",
    "may_have_markup",
    "skippable_edits",
]

Edit = tuple[int, int, str]

# Skippable characters: a reader does not see them as text, on the quote or the document.
#   _ emphasis, and PDF extraction that draws underscores as rules (read_config_file);
#   ` inline code;
#   " quotation marks, except after a digit (inches, seconds: 12");
#   ' quotation marks, except inside a word (don't) or after a digit (feet, minutes: 5');
#   * emphasis, strong and bullets (U+2022 and other bullets fold to "*"), except between
#     digits, where it is multiplication or a folded middle-dot decimal point (2*3, 3·5);
#   ~~ strikethrough (two or more); a single "~" means "approximately" and stays;
#   | table pipes, when whitespace, a dash or a text end is on both sides of the run (so "a|b" and
#     the absolute value "|x|" stay); judged separately, below.
# One pattern per character, each starting with its literal (lookbehinds come after it): the
# regex engine then finds candidates with a fast literal search instead of trying every
# position, and a character that does not occur costs one ``in`` test. Each pattern matches a
# whole run, judged on the text as it stands. (Written "__*", not "_+": the engine only skips
# ahead for a pattern that starts with a plain literal, and "_+" is ten times slower.)
_SKIP_EACH = (
    ("_", re.compile(r"__*")),
    ("`", re.compile(r"``*")),
    ('"', re.compile(r"\"(?<!\d\")")),
    ("'", re.compile(r"'(?<![^\W_]')|'(?<=[^\W\d_]')(?![^\W_])")),
    ("*", re.compile(r"\*(?<![\d*]\*)\**|\*(?<!\*\*)\**(?![\d*])")),
    ("~", re.compile(r"~(?<!~~)~+(?!~)")),
)
_PIPES = re.compile(r"\|\|*")


# A character seen more often than this is left to the regex engine's own scan.
_DENSE = 256


def matches(text: str, ch: str, pattern: re.Pattern[str]) -> Iterator[re.Match[str]]:
    """``pattern.finditer(text)`` for a pattern that starts with the literal ``ch``.

    ``str.find`` skips to each occurrence of ``ch`` at memchr speed, several times faster than
    the regex engine's own scan for a literal, and costs nothing when ``ch`` is absent; the
    pattern is then tried there (its lookbehinds still see the text before). A character
    that turns out to be frequent hands the rest of the scan to ``finditer``.
    """
    find = text.find
    pos = find(ch)
    seen = 0
    while pos != -1:
        seen += 1
        if seen > _DENSE:
            yield from pattern.finditer(text, pos)
            return
        m = pattern.match(text, pos)
        if m is None:
            pos = find(ch, pos + 1)
        else:
            yield m
            pos = find(ch, m.end())  # every pattern starts with ch: never empty


def _has(text: str, pair: str) -> bool:
    """``pair in text`` for a two-character ``pair`` whose first character is rare: a search
    for two characters cannot use memchr and costs as much as a regex scan."""
    find, pos, seen = text.find, text.find(pair[0]), 0
    while pos != -1 and seen < _DENSE:
        if text.startswith(pair, pos):
            return True
        pos, seen = find(pair[0], pos + 1), seen + 1
    return pos != -1 and pair in text


def skippable_edits(text: str) -> list[Edit]:
    """Where skippable characters stand in ``text``: sorted, non-overlapping edits.

    Adjacent skippable characters form one run. A run next to whitespace or delimiting
    punctuation vanishes (``**Fast**:`` reads as ``Fast:``, ``(`x`)`` as ``(x)``); any other
    run becomes a space (``read_config_file`` reads as ``read config file``, as PDF extraction
    shows it), so a run never glues two words together.
    """
    spans: list[tuple[int, int]] = []
    for ch, pattern in _SKIP_EACH:
        if ch in text:
            spans.extend(m.span() for m in matches(text, ch, pattern))
    spans = _merged(spans)
    if "|" in text:
        spans = _merged(spans + _pipe_runs(text, spans))
    return [_skip_run(text, start, end) for start, end in spans]


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    spans.sort()
    out: list[tuple[int, int]] = []
    for start, end in spans:
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(end, out[-1][1]))
        else:
            out.append((start, end))
    return out


def _table_edge(ch: str) -> bool:
    return ch.isspace() or ch == "-"


def _pipe_runs(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Pipe runs that are table syntax: whitespace, a dash or an end of the text on both sides
    (``| a | b |``; ``|x|`` is an absolute value), looking past other skippable characters
    (which vanish: ``**|**`` is a lone pipe)."""
    starts = {s: e for s, e in spans}
    ends = {e: s for s, e in spans}
    found = []
    for m in matches(text, "|", _PIPES):
        left, right = m.start(), m.end()
        while left in ends:
            left = ends[left]
        while right in starts:
            right = starts[right]
        if (left == 0 or _table_edge(text[left - 1])) and (
            right == len(text) or _table_edge(text[right])
        ):
            found.append(m.span())
    return found


# Next to these (or whitespace, or the end of the text) a skippable run is a delimiter and
# vanishes: opening punctuation on its left, closing punctuation on its right.
_OPENING = frozenset("([{\"'-/")
_CLOSING = frozenset(".,;:!?)]}\"'-/")


def _skip_run(text: str, start: int, end: int) -> Edit:
    """What a run of skippable characters reads as.

    Emphasis, code and quotation marks vanish, inside a word too: ```TypedDict`s`` reads
    ``TypedDicts``, as Markdown renders it. A run with an underscore
    vanishes next to whitespace or delimiting punctuation (``_word_:``) and is a space
    anywhere else (``read_config_file``, ``L_{c}``), where PDF extraction shows the lost
    underscore as one. An apostrophe in a run between two letters stays (```attrs`'s``).
    """
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    inside = before.isalnum() and after.isalnum()
    if inside and "'" in text[start:end]:
        return (start, end, "'")
    if "_" not in text[start:end]:
        return (start, end, "")
    vanish = before.isspace() or before in _OPENING or after.isspace() or after in _CLOSING
    return (start, end, "" if vanish else " ")


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
LINE0 = re.compile(r"[ \t]*(?=[#>*+\-|=`~\[])")

# Every character at which markup_edits or skippable_edits can find anything: the construct
# triggers (shortcut references need "[" and "]" too), the skippable characters and the pipe.
# Derived from the tables above, so a new trigger or skippable character is covered at once.
MARKUP_CHARS = "".join(ch for ch, _ in _TRIGGERS) + "".join(ch for ch, _ in _SKIP_EACH) + "|"
_MARKUP_CHAR = re.compile("[" + re.escape(MARKUP_CHARS) + "]")


def may_have_markup(text: str) -> bool:
    """False only when :func:`markup_edits` (with any ``html`` and ``lines``) and
    :func:`skippable_edits` both find nothing in ``text``: none of :data:`MARKUP_CHARS`, and
    no line-start marker at the very beginning. One C-level scan, so a short quote of plain
    prose skips the markup passes (about a third of its normalization) altogether.
    """
    return LINE0.match(text) is not None or _MARKUP_CHAR.search(text) is not None



def _trigger_positions(text: str) -> list[tuple[int, int]]:
    """Sorted ``(position, kind)`` where a construct may start; kind 0 is a line start (at its
    first marker), 1 anything else, so a line start is looked at first."""
    found: list[tuple[int, int]] = []
    for ch, pattern in _TRIGGERS:
        if ch in text:
            if ch == "\n":
                found.extend((m.end(), 0) for m in matches(text, ch, pattern))
            else:
                found.extend((m.start(), 1) for m in matches(text, ch, pattern))
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
    "a", "abbr", "acronym", "area", "audio", "b", "bdi", "bdo", "big", "button", "canvas", "cite",
    "code", "col", "colgroup", "data", "del", "dfn", "em", "embed", "font", "i", "img",
    "input", "ins", "kbd", "label", "map", "mark", "math", "object", "param", "picture", "q",
    "rp", "rt", "ruby", "s", "samp", "select", "small", "source", "span", "strike", "strong",
    "sub", "sup", "svg", "textarea", "time", "track", "tt", "u", "var", "video", "wbr", "nobr",
    # inside inline SVG
    "path", "g", "circle", "rect", "line", "polyline", "polygon", "use", "defs", "symbol",
))
_DROP_CONTENT = frozenset(("script", "style", "template"))

_TAG = re.compile(r"<(/?)([a-z][a-z0-9]{0,15})(?=[\s/>\-])(?:[^<>\"']|\"[^\"]*\"|'[^']*')*>")
_DECL = re.compile(r"<![a-z][^<>]*>|<\?[^<>]*\?>")
_AUTOLINK = re.compile(r"<[a-z][a-z0-9+.\-]{1,31}:[^\s<>]*>|<[^\s<>@]+@[^\s<>@]+\.[a-z]{2,}>")
# A character reference, after any number of escaped ampersands ("&amp;lt;" is "&lt;" to a
# reader, which is "<" to the next pass: decoded at once, so one pass reaches the fixed point).
_ENTITY = re.compile(
    r"&((?:amp;|#0*38;|#x0*26;)*)([a-z][a-z0-9]{1,31};|#[0-9]{1,7};|#x[0-9a-f]{1,6};)"
)
_FOOTNOTE_REF = re.compile(r"\[\^[^\]\s]{1,100}\](?!:)")
_CITE = re.compile(r"\[[1-9][0-9]{0,2}(?:\s?[,\-]\s?[1-9][0-9]{0,2}){0,9}\]")
_SUP = re.compile(r"\^[1-9][0-9]{0,2}(?:[,\-][1-9][0-9]{0,2}){0,9}(?=[\s.,;:]|--|-\s|$)")
_REF_LABEL = re.compile(r"\[[^\[\]]{0,999}\]")
# What may stand right before a glued citation marker: a prose word (see _glued), or closing
# punctuation (30%[12], "al.^4").
_GLUE_PUNCT = frozenset("%.,;:*")
_WORD_OPENING = frozenset("(\"'[{*-/")

# Line-start markers (matched at the first non-blank character of a line).
# ">" then a space, another ">" or the line end: ">9" and ">= 3" starting a line of plain or
# PDF text are comparisons, and so is "> 5".
_BLOCKQUOTE = re.compile(r"(?:>(?:[ \t]|(?=[>\n])|\Z))+(?![ \t]*[\d.$\u20ac\u00a3\-=<])")
_QUOTE_CONTINUED = re.compile(r"(?:>(?:[ \t]|(?=[>\n])|\Z))+")
_HEADING = re.compile(r"#{1,6}(?:[ \t]+|(?=\n)|\Z)")
_BULLET = re.compile(r"[-+*][ \t]+(?![\d.$])(?:\[[ x]\][ \t]+)?")
_FENCE = re.compile(r"(`{3,}|~{3,})[ \t]*([^\n`]*)")
_RULE_LINE = re.compile(
    r"(?:(?:[-*_=][ \t]*){3,}"
    r"|\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)+\|?[ \t]*"
    r"|\|[ \t]*:?-+:?[ \t]*\|[ \t]*)(?=\n|\Z)"
)
_REF_DEF = re.compile(
    r"\[[^\[\]\n^]{1,999}\]:[ \t]*\S+(?:[ \t]+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^()\n]*\)))?"
    r"[ \t]*(?=\n|\Z)"
)
# Reference definitions, for shortcut references ("[label]" alone). After a line break only:
# the start of the text is where a later normalization of the joined lines would see one too,
# and it must agree.
_DEFINITION = re.compile(r"\n[ \t]{0,3}\[([^\[\]\n^]{1,999})\]:")
_SHORTCUT = re.compile(r"\[([^\[\]\n]{1,999})\](?![(\[])")
_HTML_DOCUMENT = re.compile(r"<(?:html|body|!doctype)\b")
_BLOCK_CLOSE = re.compile(
    r"</(?:p|div|li|td|th|tr|h[1-6]|pre|table|ul|ol|section|article|blockquote|dd|dt)>"
)
_FOOTNOTE_DEF = re.compile(r"\[\^[^\]\s]{1,100}\]:[ \t]*")

_SCAN_LIMIT = 2000  # how far a link looks for its other bracket or its target's end
# Characters link scans may look at in all, per character of text: hostile input (thousands
# of "](" with no target) stays linear; past the budget brackets are left as text.
_SCAN_BUDGET = 4
# How many removed constructs in a row "the character before" looks back over.
_PREV_REACH = 64


class _Edits:
    """Edits in text order, plus the view's character before a position."""

    __slots__ = ("budget", "fence", "found", "items", "shortcuts", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.items: list[Edit] = []
        self.budget = _SCAN_BUDGET * len(text) + 10_000  # characters link scans may visit
        self.found: dict[str, tuple[int, int]] = {}  # needle -> (searched from, found at)
        self.fence = ""  # the opening fence while inside a fenced code block
        self.shortcuts: dict[int, int] = {}  # "]" of a shortcut reference -> its "["

    def add(self, start: int, end: int, repl: str) -> None:
        self.items.append((start, end, repl))

    def prev(self, pos: int) -> tuple[str, int]:
        """The character a reader sees just before ``pos`` (after earlier edits), and its
        index in the text (-1 if it comes from a replacement, or there is none)."""
        k = len(self.items) - 1
        for _ in range(_PREV_REACH):
            if pos <= 0:
                break
            while k >= 0 and self.items[k][1] > pos:
                k -= 1
            if k >= 0 and self.items[k][1] == pos:
                start, _, repl = self.items[k]
                if repl:
                    return repl[-1], -1
                pos, k = start, k - 1
                continue
            return self.text[pos - 1], pos - 1
        return "", -1

    def find(self, needle: str, start: int) -> int:
        """``text.find(needle, start)``, remembering the answer: repeated searches for a
        closer that never comes (``<!--`` a thousand times) cost one scan, not one each."""
        searched, at = self.found.get(needle, (len(self.text) + 1, -1))
        if searched <= start and (at == -1 or at >= start):
            return at
        at = self.text.find(needle, start)
        self.found[needle] = (start, at)
        return at

    def spend(self, chars: int) -> bool:
        """Charge a link scan; False once the budget is spent."""
        self.budget -= chars
        return self.budget >= 0


def _glued(edits: _Edits, pos: int) -> bool:
    """Is ``pos`` (in the view) right after closing punctuation or a prose word?

    A prose word has three letters or more and stands after whitespace or opening
    punctuation: ``effect[3]`` and ``30%[12]`` carry citation markers, while ``x[3]``,
    ``sys.argv[1]`` and ``f(x)[1]`` are code whose index is text.
    """
    ch, i = edits.prev(pos)
    if ch and ch in _GLUE_PUNCT:
        return True
    letters = 0  # the word, read in the view (earlier markers already removed)
    while letters < 40 and i >= 0 and ch.isalpha():
        letters += 1
        ch, i = edits.prev(i)
    return letters >= 3 and (ch == "" or ch.isspace() or ch in _WORD_OPENING)


def _link_opener(text: str, close: int, edits: _Edits) -> int:
    """Position of the ``[`` matching the ``]`` at ``close``, or -1."""
    depth = 0
    stop = max(0, close - _SCAN_LIMIT)
    pos = close - 1
    while pos >= stop:
        if not edits.spend(1):
            return -1
        ch = text[pos]
        if ch == "]" and (pos == 0 or text[pos - 1] != "\\"):
            depth += 1
        elif ch == "[" and (pos == 0 or text[pos - 1] != "\\"):
            if depth == 0:
                return pos
            depth -= 1
        pos -= 1
    return -1


def _link_target_end(text: str, open_paren: int, edits: _Edits) -> int:
    """End (exclusive) of an inline link target ``(...)`` starting at ``open_paren``, or -1."""
    depth = 0
    stop = min(len(text), open_paren + _SCAN_LIMIT)
    if text.find(")", open_paren, stop) == -1:
        return -1
    quote = ""
    for pos in range(open_paren, stop):
        if not edits.spend(1):
            return -1
        ch = text[pos]
        if quote:
            if ch == quote:
                quote = ""
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return pos + 1
        elif ch == '"' and text[pos - 1] in " \t":
            quote = '"'
    return -1


def _line_start(text: str, pos: int, edits: _Edits) -> int:
    """Markers at the first non-blank character ``pos`` of a line; returns where to go on.

    Inside a fenced code block nothing is a marker (``# comment`` is code there). The fences
    themselves stay (their backticks or tildes are skippable, removed later), so that every
    pass of the fixed point still knows where code is; only the info string goes.
    """
    fence = _FENCE.match(text, pos)
    if edits.fence:
        if fence is not None and fence.group(1).startswith(edits.fence) and not fence.group(2):
            edits.fence = ""
        return pos
    if fence is not None:
        edits.fence = fence.group(1)
        if fence.group(2):
            edits.add(fence.start(2), fence.end(), "")
        return fence.end()
    m = _RULE_LINE.match(text, pos) or _REF_DEF.match(text, pos)
    if m is not None:
        edits.add(pos, m.end(), "")
        return m.end()
    end = _markers(text, pos, pos - text.rfind("\n", 0, pos) - 1)
    if end > pos:
        edits.add(pos, end, "")
    return end


def _markers(text: str, pos: int, indent: int) -> int:
    """End of the block markers (quote, heading, list item, footnote label) at ``pos``.

    Headings and block quotes indented four or more spaces are code, not markers.
    """
    while True:
        start = pos
        m = None
        if indent <= 3:
            m = _BLOCKQUOTE.match(text, pos)
            # _QUOTE_CONTINUED only ever matches at a ">": look back for a quote only then
            if m is None and text.startswith(">", pos) and _in_block_quote(text, pos):
                m = _QUOTE_CONTINUED.match(text, pos)
        if m is not None:
            pos = m.end()
            while pos < len(text) and text[pos] in " \t":
                pos += 1
        m = (_HEADING.match(text, pos) if indent <= 3 else None) or _BULLET.match(text, pos)
        if m is not None:
            pos = m.end()
        m = _FOOTNOTE_DEF.match(text, pos)
        if m is not None:
            pos = m.end()
        if pos == start:
            return pos
        indent = 0


def _in_block_quote(text: str, pos: int) -> bool:
    """Does the line before the one at ``pos`` start with ``>`` (so ``> 2.0`` continues it)?"""
    line = text.rfind("\n", 0, pos)
    if line <= 0:
        return False
    prev = text.rfind("\n", 0, line) + 1
    return text[prev:line].lstrip(" \t").startswith(">")


def leading_markers(text: str, pos: int = 0) -> int:
    """Where block markers starting at ``pos`` of a text whose lines were joined end.

    Normalization joins lines, so in its output only the very start is a line start; markers
    there are removed once more at the end (``-- x`` normalizes to ``- x``, which is a list
    item to the next normalization), which keeps normalization idempotent.
    """
    while pos < len(text) and text[pos] in "#>*+-|=[":
        if _RULE_LINE.fullmatch(text, pos) or _REF_DEF.fullmatch(text, pos):
            return len(text)
        end = _markers(text, pos, 0)
        if end == pos:
            break
        pos = end
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
        close = edits.find("</" + name, end)
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
    ref = "&" + ent.group(2)
    decoded = unescape(ref)
    if decoded == ref:  # unknown name: only the escaped ampersands decode
        if not ent.group(1):
            return start
        end = ent.start(2)
        edits.add(start, end, "&")
        return end
    edits.add(start, ent.end(), decoded)
    return ent.end()


def _link(text: str, pos: int, edits: _Edits) -> int:
    """``](target)`` or ``][label]`` at ``pos``: drop it and the opening bracket."""
    if pos > 0 and text[pos - 1] == "\\":
        return pos
    if text[pos + 1] == "(":
        end = _link_target_end(text, pos + 1, edits)
    else:
        label = _REF_LABEL.match(text, pos + 1)
        end = label.end() if label is not None else -1
    if end == -1:
        return pos
    opener = _link_opener(text, pos, edits)
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


def is_html(text: str) -> bool:
    """Is ``text`` (case-folded) an HTML document or fragment rather than Markdown or text?

    In HTML a line break is only layout: a line that happens to start with ``+`` or ``#`` is
    text, so Markdown's line-start markers are not looked for. A Markdown README with a few
    HTML blocks (a centred logo) stays Markdown: HTML needs more closing block tags than the
    text has Markdown line markers.
    """
    if "<" not in text:
        return False
    document = next(matches(text, "<", _HTML_DOCUMENT), None) is not None
    if document or not _has(text, "</"):
        return document
    closers = sum(1 for _ in matches(text, "</", _BLOCK_CLOSE))
    if closers < 3:
        return False
    return closers > sum(text.count(marker) for marker in ("\n#", "\n- ", "\n* ", "\n> "))


def markup_edits(text: str, html: bool = False, lines: bool = True) -> list[Edit]:
    """What a reader never sees in ``text`` (case-folded): sorted, non-overlapping edits.

    Each edit ``(start, end, replacement)`` replaces ``text[start:end]``; replacements are a
    line break for block boundaries, a decoded entity, or nothing. With ``html`` (see
    :func:`is_html`) Markdown line-start markers are left alone. With ``lines=False`` (a later
    pass, after line breaks became spaces) only the very start is a line start.
    """
    edits = _Edits(text)
    resume = 0
    triggers = _trigger_positions(text)
    if html or not lines:
        triggers = [t for t in triggers if t[1]]
    first = LINE0.match(text)
    if first is not None and lines and not html:
        resume = _line_start(text, first.end(), edits)
    elif first is not None and not lines:
        resume = leading_markers(text, first.end())
        if resume > first.end():
            edits.add(first.end(), resume, "")
    if lines and not html and _has(text, "]:"):
        triggers = sorted(triggers + _shortcut_positions(text, edits))
    for pos, kind in triggers:
        if pos < resume:
            continue
        if kind == 0:
            resume = _line_start(text, pos, edits)
            continue
        if kind == 2:  # the "]" of a shortcut reference whose "[" was removed
            if _opened(edits, pos):
                edits.add(pos, pos + 1, "")
                resume = pos + 1
            continue
        ch = text[pos]
        if kind == 3:
            if edits.items and edits.items[-1][1] > pos:
                continue
            edits.add(pos, pos + 1, "")
            resume = pos + 1
        elif ch == "<":
            if text.startswith("!--", pos + 1):
                close = edits.find("-->", pos + 4)
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


def _shortcut_positions(text: str, edits: _Edits) -> list[tuple[int, int]]:
    """``[label]`` references to labels defined in the text: kind 3 at "[", kind 2 at "]"."""
    labels = {" ".join(m.group(1).split()) for m in _DEFINITION.finditer(text)}
    if not labels:
        return []
    found: list[tuple[int, int]] = []
    for m in _SHORTCUT.finditer(text):
        line = text.rfind("\n", 0, m.start()) + 1
        if text.startswith(":", m.end()) and not text[line:m.start()].strip(" \t"):
            continue  # a definition itself
        if " ".join(m.group(1).split()) in labels:
            close = m.end() - 1
            edits.shortcuts[close] = m.start()
            found += [(m.start(), 3), (close, 2)]
    return found


def _opened(edits: _Edits, close: int) -> bool:
    """Was the "[" of the shortcut reference closing at ``close`` removed?"""
    start = edits.shortcuts[close]
    k = bisect_left(edits.items, (start, -1, ""))
    return k < len(edits.items) and edits.items[k][:2] == (start, start + 1)


def _bracket(text: str, pos: int, edits: _Edits) -> int:
    """A footnote reference ``[^1]`` or a citation marker ``[12]`` glued to text. (A footnote
    reference standing alone is left: ``[^0-9]`` is a regular expression.)"""
    m = _FOOTNOTE_REF.match(text, pos) or _CITE.match(text, pos)
    if m is None or not _glued(edits, pos) or text.startswith("(", m.end()):
        return pos
    edits.add(pos, m.end(), "")
    return m.end()
