"""Transcription slips: the punctuation a model changes when it quotes, forgiven; never meaning.

A model that transcribes a passage keeps the words but not always the punctuation between
them. Measured on real prose, the exact search rejects every one of these, so they are
forgiven here, in a second search that runs only after the exact one failed (the found path is
not slowed):

* between two words, a comma, semicolon, colon or dash (``--``, ``—``, ``–``, normalized to a
  hyphen or a spaced hyphen) dropped, added or exchanged for another (kind ``punctuation``);
* a hyphen joining two word parts written as a space or dropped, ``well-known`` /
  ``well known``, ``non-fatal`` / ``nonfatal``, and the reverse (kind ``hyphen``);
* a thousands separator dropped or added where it belongs, ``1,204`` / ``1204`` (kind
  ``thousands_separator``); never moved: ``12,04`` is not ``1204``.

Never forgiven, because they carry meaning: any letter or digit (a word added, dropped,
replaced or moved: a dropped negating prefix, ``non-fatal`` -> ``fatal``, is a dropped word), the
decimal point, signs (a hyphen right before a number), ``%``, ``/``, brackets, quotation marks,
apostrophes, sentence stops; and any punctuation *glued* to a digit (``10-20``, ``10:30``,
``COVID-19``): next to a number only a comma before a space may come or go. A quote may not
start or end inside a hyphenated compound or a numeric range (``fatal`` of ``non-fatal``: see
:func:`~vcg_otel.gate.search.inside_compound`).

The quote becomes one regular expression over the normalized document: its words literal (a
glued hyphen allowed between two letters), its separators replaced by the class of separators
they may stand for. It is tried only in windows around the occurrences of one anchor word of
the quote (the rarest of its longest words), found at C speed, so a 10 MB document costs a few
substring scans; every window costs steps of the search budget.

Before any of that, one substring test rules out almost every quote that is not there (a word
changed, added or dropped): the quote's :func:`skeleton` (its text without the characters a
slip may add, drop or exchange) must be in the document's (see :func:`find_slipped` for why
every match passes it). The document's skeleton is made once and kept with it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import accumulate, islice, pairwise
from operator import add
from typing import Protocol

__all__ = ["MAX_SLIP_CHARS", "SlipMatch", "find_slipped", "quote_skeleton", "quote_words",
           "skeleton", "tokens"]

#: Quotes longer than this (normalized) are not searched for slips: a transcription of a
#: whole page is not what models paraphrase the punctuation of, and the pattern stays small.
MAX_SLIP_CHARS = 4000

# A word: letters and digits, with apostrophes inside (``don't``); a number with decimal points
# or thousands separators is one token (``1,204``, ``2.5``).
_TOKEN = re.compile(r"\d+(?:[.,]\d+)+|[^\W_]+(?:'[^\W_]+)*")
_TOKEN_SPLIT = re.compile(f"({_TOKEN.pattern})")  # split keeps the words
# The same words of an ASCII text, where [^\W_] is [A-Za-z0-9] and \d is [0-9], read a third
# faster with the plain classes: most quotes and documents are ASCII.
_ASCII_TOKEN = re.compile(r"[0-9]+(?:[.,][0-9]+)+|[A-Za-z0-9]+(?:'[A-Za-z0-9]+)*")
_ASCII_TOKEN_SPLIT = re.compile(f"({_ASCII_TOKEN.pattern})")
_SOFT = frozenset(" ,;:-")
# The same soft characters as UTF-8 bytes (each one byte, found in no other character's
# encoding): what skeleton() drops. Every separator pattern below matches only these, and so do
# the "-?" and ",?" a word pattern may add: keep them in step (a test checks).
_SOFT_BYTES = b" ,;:-"
_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d{4,}(?:\.\d+)?")
# What a separator between two words may become (a space, a comma, a dash, a glued hyphen…).
_BETWEEN_WORDS = r"[ ,;:\-]{1,4}"
_JOINED = r"[ ,;:\-]{0,4}"  # the quote's glued hyphen: also nothing at all
_BESIDE_NUMBER = r"(?:[,;:]{0,2} ){1,2}"  # next to a digit: a comma before a space, no more
_SPACE_IN_HARD = r"(?:[ ,;:]|-(?!\d)){1,4}"
# A run of soft separator characters: every separator pattern above matches one such run where
# the quote has one (none where the quote has none), except a lone hyphen between letters.
_SOFT_RUN = re.compile(r"[ ,;:\-]+")
# Candidate anchors: this many of the quote's longest words are counted in the document.
_ANCHORS = 4
_WINDOW_STEP = 2  # steps per window tried (one regex search of a few hundred characters)
_WINDOW_CHARS = 512  # plus one step per this many characters of window
_SAMPLE = 1 << 18  # characters of a document in which anchor words are counted


def skeleton(text: str) -> bytes:
    """``text`` without its soft characters (space, comma, semicolon, colon, hyphen: all a slip
    may add, drop or exchange), as UTF-8: a quote the slip search can find in a document has
    its skeleton in the document's (see :func:`find_slipped`).

    UTF-8 because deleting bytes is a C loop at about 2 ns a character, where
    ``str.translate`` takes 70 for a string that is not ASCII (a 10 MB document: 25 ms, not
    0.6 s); a soft character is one byte that occurs in no other character's encoding, so
    dropping those bytes drops exactly those characters. ``surrogatepass``: a text may hold a
    lone surrogate, which still encodes as itself."""
    return text.encode("utf-8", "surrogatepass").translate(None, _SOFT_BYTES)


# The last quote's skeleton (see quote_skeleton): a tuple, so a thread reads a consistent pair.
_last_quote: tuple[str, bytes] = ("", b"")


def quote_skeleton(needle: str) -> bytes:
    """``skeleton(needle)``, kept for the quote looked at last: the gate tests one rejected
    quote's skeleton against its cited document and then against every other it searches
    (:meth:`~vcg_otel.gate.corpus.Corpus.search_elsewhere`), each with the same needle
    object, so it is made once. Kept by identity (no string compared); one entry, a tuple
    swapped at once, so threads at worst make it again."""
    global _last_quote
    last = _last_quote
    if last[0] is needle:
        return last[1]
    made = skeleton(needle)
    _last_quote = (needle, made)
    return made


def tokens(text: str) -> list[re.Match[str]]:
    """The words of a normalized text (see :data:`_TOKEN`)."""
    return list((_ASCII_TOKEN if text.isascii() else _TOKEN).finditer(text))


def _word_pattern(token: str, joined: bool = False) -> str:
    """A quote word as a pattern: literal; a number may gain or lose its thousands
    separators; with ``joined``, a glued hyphen may stand between two letters."""
    if token[0].isdigit() and _THOUSANDS.fullmatch(token):
        whole, dot, fraction = token.partition(".")
        digits = whole.replace(",", "")
        head = len(digits) % 3 or 3
        groups = [digits[:head]] + [digits[i:i + 3] for i in range(head, len(digits), 3)]
        return ",?".join(groups) + (re.escape(dot + fraction) if dot else "")
    if not joined:
        return re.escape(token)
    out = [re.escape(token[0])]
    for prev, ch in pairwise(token):
        if prev.isalpha() and ch.isalpha():
            out.append("-?")
        out.append(re.escape(ch))
    return "".join(out)


def _separator_pattern(sep: str, before: str, after: str) -> str:
    """What the quote's separator ``sep`` between characters ``before`` and ``after`` may be in
    the document (see the module docstring)."""
    digit = before.isdigit() or after.isdigit()
    if _SOFT.issuperset(sep):
        if digit:
            if " " not in sep or "-" in sep:
                return re.escape(sep)  # glued to a number, or a sign / range: exact
            return _BESIDE_NUMBER
        return _JOINED if sep == "-" else _BETWEEN_WORDS
    # The hard characters stay, in order; each space may gain or lose the soft punctuation
    # next to it ("(p), and" / "(p) and" / "(p) -- and"), never a sign.
    out = []
    for k, c in enumerate(sep):
        if c == " ":
            out.append(_SPACE_IN_HARD)
        elif (c in _SOFT and (sep[k + 1:k + 2] == " " or sep[k - 1:k] == " ")
              and not (c == "-" and k == len(sep) - 1 and after.isdigit())):  # a sign stays
            continue
        else:
            out.append(re.escape(c))
    return "".join(out)


@dataclass(frozen=True, slots=True)
class _Shape:
    """A quote cut into words and separators, and the words worth anchoring on."""

    words: tuple[str, ...]
    seps: tuple[str, ...]
    head: str  # text before the first word, after the last
    tail: str
    anchors: tuple[tuple[str, int], ...]  # (word, offset in the quote), longest first
    needed: tuple[str, ...]  # words every window holding a match contains (maybe hyphenated)
    # the literal runs (see _literal_runs) by the joined words they were made for, made once
    # for the quote: the windows it is tried in, in one document and the next, ask again
    runs: dict[frozenset[str], list[str]] = field(default_factory=dict, compare=False)


@lru_cache(maxsize=512)
def _shape(needle: str) -> _Shape | None:
    # One split gives head, word, separator, word, ..., tail: a quote of a few dozen words
    # is cut at C speed, not one match object at a time.
    parts = (_ASCII_TOKEN_SPLIT if needle.isascii() else _TOKEN_SPLIT).split(needle)
    if len(parts) == 1:
        return None
    words = tuple(parts[1::2])
    # word k starts where parts[0..2k] end
    starts = islice(accumulate(map(len, parts)), 0, None, 2)
    first: dict[str, int] = {}  # each word at its first offset, in quote order
    for word, offset in zip(words, starts, strict=False):  # starts has one more: the end
        if word not in first and not word[0].isdigit():
            first[word] = offset
    longest = sorted(first, key=len, reverse=True)  # stable: equal lengths in quote order
    return _Shape(words, tuple(parts[2:-1:2]), parts[0], parts[-1],
                  tuple([(w, first[w]) for w in longest[:_ANCHORS]]),
                  tuple([w for w in longest if len(w) >= 3]))


def quote_words(needle: str) -> tuple[tuple[str, ...], list[int]]:
    """The words of a normalized quote (:func:`tokens`) and where each starts: read from the
    slip search's cut of the quote, kept for the quote's next documents, so the closest-passage
    search of a rejected quote (:mod:`~vcg_otel.gate.closest`) does not cut it again. A quote
    too long for the slip search is cut here without being kept."""
    shape = _shape(needle) if len(needle) <= MAX_SLIP_CHARS else _shape.__wrapped__(needle)
    if shape is None:
        return (), []
    # word k starts after the head and the words and separators before it
    starts = accumulate(map(add, map(len, shape.words), map(len, shape.seps)),
                        initial=len(shape.head))
    return shape.words, list(starts)


@lru_cache(maxsize=512)
def _regex(shape: _Shape, joined: frozenset[str]) -> re.Pattern[str]:
    """The quote as a pattern; only the ``joined`` words (absent from the document as written,
    present once its hyphens are dropped) may take a glued hyphen between two letters: the
    pattern compiles ten times faster without one between every pair."""
    parts = [re.escape(shape.head)]
    for k, word in enumerate(shape.words):
        if k:
            sep = shape.seps[k - 1]
            prev = shape.words[k - 1]
            parts.append(f"({_separator_pattern(sep, prev[-1], word[0])})")
        parts.append(f"({_word_pattern(word, word in joined)})")
    parts.append(re.escape(shape.tail))
    return re.compile("".join(parts))


@dataclass(frozen=True, slots=True)
class SlipMatch:
    """Where a quote occurs once its slips are forgiven (normalized offsets), and which."""

    start: int
    end: int
    forgiven: tuple[str, ...]


def _forgiven(pattern: _Shape, m: re.Match[str]) -> tuple[str, ...]:
    kinds: set[str] = set()
    group = 1
    for k, word in enumerate(pattern.words):
        if k:
            quoted, written = pattern.seps[k - 1], m.group(group)
            group += 1
            if quoted != written:
                kinds.add("hyphen" if "-" in (quoted, written) else "punctuation")
        written = m.group(group)
        group += 1
        if written != word:
            kinds.add("thousands_separator" if word[0].isdigit() else "hyphen")
    return tuple(sorted(kinds))


class Budget(Protocol):
    """What the search charges (:class:`~vcg_otel.gate.search.SearchBudget`)."""

    def spend(self, steps: int = 1) -> None: ...

    def scan(self, chars: int) -> None: ...


def find_slipped(hay: str, needle: str, budget: Budget,
                 edges_ok: Callable[[str, int, int, str], bool],
                 unhyphenated: Callable[[], str] | None = None,
                 kept_skeleton: Callable[[], bytes] | None = None) -> SlipMatch | None:
    """The first place in ``hay`` where ``needle`` occurs with only forgivable slips.

    First a necessary condition, one substring test: the needle's :func:`skeleton` is in the
    hay's. It rules out almost every quote that is not in the document (a word changed, added,
    dropped or moved; a digit, decimal point, ``%`` or bracket changed) before the quote is
    even cut into words, and most such quotes are searched for slips in their cited document
    and in every other that holds their words.

    Why every match passes it: the pattern (:func:`_regex`) is the needle's head and tail
    literally, each word literally or with a ``-?`` between two letters (a joined word) or a
    ``,?`` between digit groups (a number), and each separator as either itself literally or
    a pattern that matches soft characters only (:data:`_BETWEEN_WORDS`, :data:`_JOINED`,
    :data:`_BESIDE_NUMBER`) or, for a separator with hard characters, those hard characters
    literally and in order with only soft characters around them (:data:`_SPACE_IN_HARD`;
    the soft characters it leaves out of the needle's). So a match, read without its soft
    characters, is the needle read without its soft characters: the same characters in the
    same order, since the pattern is compiled without flags (no case folding; both texts are
    normalized alike) and no class in it matches a character that is not soft. A match is a
    stretch of the hay, and a stretch with some characters deleted is a stretch of the hay
    with the same characters deleted: its skeleton is in the hay's. What a word is (letters,
    digits, underscores, combining marks, any script) plays no part in the argument, which is
    why the skeleton drops exactly the soft characters and keeps everything else: a skeleton
    of letters and digits only would be necessary too, but would pass a changed decimal point,
    sign, ``%`` or bracket.

    Args:
        hay: the normalized document.
        needle: the normalized, edge-trimmed quote.
        budget: the :class:`~vcg_otel.gate.search.SearchBudget` to charge (``scan``, ``spend``).
        edges_ok: ``(hay, start, end, needle) -> bool``, the gate's whole-word edge rule.
        unhyphenated: ``hay`` without its hyphens, when the caller keeps it
            (:meth:`~vcg_otel.gate.normalize.NormalizedText.without_hyphens`); else made here
            when needed.
        kept_skeleton: ``skeleton(hay)``, when the caller keeps it
            (:meth:`~vcg_otel.gate.normalize.NormalizedText.slip_skeleton`); else made here.

    Raises:
        SearchLimitReached: the budget ran out (the caller fails closed).
    """
    if len(needle) > MAX_SLIP_CHARS:
        return None
    budget.scan(len(hay))  # the test reads the hay's skeleton (and makes it, the first time)
    hay_skeleton = kept_skeleton() if kept_skeleton is not None else skeleton(hay)
    if quote_skeleton(needle) not in hay_skeleton:
        return None
    return _find(hay, needle, budget, edges_ok, unhyphenated)


def _find(hay: str, needle: str, budget: Budget, edges_ok: Callable[[str, int, int, str], bool],
          unhyphenated: Callable[[], str] | None) -> SlipMatch | None:
    """:func:`find_slipped` after its skeleton test: the quote cut into words, the document
    tested for them, the windows around an anchor word tried."""
    shape = _shape(needle)
    if (shape is None or not shape.anchors
            or not _may_hold(hay, shape.needed, budget, unhyphenated)):
        return None
    # Two anchors: the rarer may be a word the quote joined ("finetuning" where the passage
    # has "fine-tuning"), whose occurrences are all elsewhere.
    for word, offset in _anchors(hay, shape.anchors, budget)[:2]:
        found = _search(hay, needle, shape, word, offset, budget, edges_ok)
        if found is not None:
            return found
    return None


def _search(hay: str, needle: str, shape: _Shape, word: str, offset: int, budget: Budget,
            edges_ok: Callable[[str, int, int, str], bool]) -> SlipMatch | None:
    """Try the windows around every occurrence of the anchor ``word``."""
    size, n = len(needle), len(hay)
    pos = hay.find(word)
    while pos != -1:
        lo = max(0, pos - 2 * offset - 16)
        hi = min(n, pos + 2 * (size - offset) + 16)
        budget.spend(_WINDOW_STEP + (hi - lo) // _WINDOW_CHARS)
        regex = _window_regex(shape, hay[lo:hi])
        m = regex.search(hay, lo, hi) if regex is not None else None
        while m is not None:
            if edges_ok(hay, m.start(), m.end(), needle):
                return SlipMatch(m.start(), m.end(), _forgiven(shape, m))
            m = regex.search(hay, m.start() + 1, hi)  # type: ignore[union-attr]
        pos = hay.find(word, pos + 1)
    return None


def _may_hold(hay: str, needed: tuple[str, ...], budget: Budget,
              unhyphenated: Callable[[], str] | None) -> bool:
    """:func:`_holds_words` of the whole text, before any window: a window is a part of it,
    so a document without one of the words (most documents, for a fabricated quote searched
    everywhere) costs a substring test or two, not the anchor counts and windows."""
    budget.scan(len(hay))
    return _holds_words(hay, needed, unhyphenated)


def _holds_words(text: str, needed: tuple[str, ...],
                 unhyphenated: Callable[[], str] | None = None) -> bool:
    """Whether every word a match needs is in ``text``, as written or once its hyphens are
    dropped (the quote may have joined a compound; ``unhyphenated`` gives that text when the
    caller keeps it): asked of every window a pattern is tried in. Longest words first: they
    are the ones a text lacks."""
    if unhyphenated is not None and "-" in text:
        # A word (never hyphenated itself) written in the text is in it without hyphens too:
        # one test per word, not two for each the text lacks as written.
        kept = unhyphenated()
        for word in needed:  # noqa: SIM110 -- a loop, not all(genexpr): runs for every document
            if word not in kept:
                return False
        return True
    dropped: str | None = None
    for word in needed:
        if word in text:
            continue
        if "-" not in text:
            return False
        if dropped is None:
            dropped = unhyphenated() if unhyphenated is not None else text.replace("-", "")
        if word not in dropped:
            return False
    return True


def _anchors(hay: str, anchors: tuple[tuple[str, int], ...], budget: Budget
             ) -> list[tuple[str, int]]:
    """The anchors that occur in ``hay``, fewest occurrences first, counted in a sample of it
    (its first :data:`_SAMPLE` characters: the whole of most documents; a 10 MB one is not
    scanned four times over); in a longer document, those seen only past the sample last."""
    counted = []
    for word, offset in anchors:
        budget.scan(min(len(hay), _SAMPLE))
        count = hay.count(word, 0, _SAMPLE)
        if count:
            counted.append((count, word, offset))
    counted.sort(key=lambda cwo: cwo[0])
    out = [(w, o) for _, w, o in counted]
    if len(out) < 2 and len(hay) > _SAMPLE:
        for word, offset in anchors:
            if (word, offset) not in out:
                budget.scan(len(hay))
                if hay.find(word, _SAMPLE) != -1:
                    out.append((word, offset))
                    if len(out) == 2:
                        break
    return out


def _window_regex(shape: _Shape, window: str) -> re.Pattern[str] | None:
    """The pattern to try in ``window``, or ``None`` when a word of the quote is in it neither
    as written nor with the window's hyphens dropped (then no slip can make a match)."""
    if "-" not in window:
        if (_holds_words(window, shape.needed) and _in_order(shape.words, window, ())
                and _runs_in(shape, window, ())):
            return _regex(shape, frozenset())
        return None
    # Words the window holds hyphenated (absent as written, or more often without the
    # hyphens): the quote may have joined them.
    dropped = window.replace("-", "")
    # Every word of a match is in the window without its hyphens, in the quote's order (a
    # joined word too, hyphens dropped): most windows fail this before any word is counted.
    if not _in_order(shape.words, dropped, ()):
        return None
    joined = [w for w in shape.needed if window.count(w) < dropped.count(w)]
    if not (_in_order(shape.words, window, joined) and _runs_in(shape, window, joined)):
        return None
    return _regex(shape, frozenset(joined))


def _in_order(words: tuple[str, ...], window: str, joined: Sequence[str]) -> bool:
    """Whether the quote's words that the pattern spells literally occur in ``window`` in the
    quote's order (each after the end of the one before): true of every match, so when it is
    false no pattern is compiled, which costs ~0.6 ms for a quote of thirty words, and most
    windows of a quote with its words moved fail here. The earliest occurrence of each word
    is the one to take: a later one only leaves less room for the rest. Words that may take
    a hyphen (``joined``) or a thousands separator (a digit first) are not literal: skipped."""
    pos = 0
    for word in words:
        if word[0].isdigit() or word in joined:
            continue
        found = window.find(word, pos)
        if found == -1:
            return False
        pos = found + len(word)
    return True


def _literal_runs(shape: _Shape, joined: Sequence[str]) -> list[str]:
    """The stretches of two or more words the pattern of ``shape`` spells literally, each as
    every match of the pattern reads once its runs of soft separator characters are folded to
    one space (:data:`_SOFT_RUN`).

    Each separator's pattern matches a run of soft characters where the quote's separator has
    one, and the same hard characters in the same places (see :func:`_separator_pattern`); a
    literal word is its own text (its edges are letters or digits). So the folded stretch is in
    the folded text of any window a match lies in. Broken at what is not spelled literally: a
    ``joined`` word (a glued hyphen may come), a number that may gain or lose its thousands
    separators, a lone hyphen between letters (it may vanish)."""
    words, seps = shape.words, shape.seps
    runs: list[str] = []
    run: list[str] = []
    for k, word in enumerate(words):
        literal = word not in joined and not (word[0].isdigit() and _THOUSANDS.fullmatch(word))
        if (literal and run
                and (seps[k - 1] != "-" or words[k - 1][-1].isdigit() or word[0].isdigit())):
            run.append(seps[k - 1])
            run.append(word)
            continue
        if len(run) > 1:
            runs.append("".join(run))
        run = [word] if literal else []
    if len(run) > 1:
        runs.append("".join(run))
    return [_SOFT_RUN.sub(" ", run) for run in runs]


def _runs_in(shape: _Shape, window: str, joined: Sequence[str]) -> bool:
    """Whether every :func:`_literal_runs` stretch is in ``window`` with its soft runs folded:
    true of every window a match lies in, so when it is false no pattern is compiled (~1 ms
    for a quote of thirty words, the most of a new rejected quote's cost): a quote with a word
    dropped or added keeps its words in order (:func:`_in_order` passes) but not next to each
    other."""
    key = frozenset(joined)
    runs = shape.runs.get(key)
    if runs is None:
        runs = shape.runs[key] = _literal_runs(shape, joined)
    folded = _SOFT_RUN.sub(" ", window)
    for run in runs:  # noqa: SIM110 -- a loop, not all(genexpr)
        if run not in folded:
            return False
    return True
