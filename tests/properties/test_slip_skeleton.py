"""The slip search's skeleton test never rules out a quote the full slip search would find.

:func:`vcg_otel.gate.slips.find_slipped` first tests that the quote's skeleton (its text without
spaces and soft punctuation) is in the document's, and returns ``None`` at once when it is not.
That is sound only if every text the slip pattern can match has the quote's skeleton. Checked
here three ways, derandomized (the same examples on every run): the pattern's matches over real
abstracts (the benchmark corpus) with slips applied on both sides; the answers of the search
with and without the test, over the same abstracts with slips and meaning changes, in the cited
document and in others; and the same answers over generated text of many scripts, with
combining marks, underscores, digits, numbers and hard punctuation.
"""

from __future__ import annotations

import re

from cases import load_corpus
from hypothesis import given, settings
from hypothesis import strategies as st

from vcg_otel.gate import SearchBudget, slips
from vcg_otel.gate.normalize import NormalizedText, normalize_with_map
from vcg_otel.gate.quote import parse_quote
from vcg_otel.gate.slips import SlipMatch, find_slipped, skeleton, tokens

_SETTINGS = settings(derandomize=True, database=None, max_examples=400, deadline=None)
_ABSTRACTS = load_corpus()
_IDS = sorted(_ABSTRACTS)
_DOCS: dict[str, NormalizedText] = {}


def _doc(key: str) -> NormalizedText:
    doc = _DOCS.get(key)
    if doc is None:
        doc = _DOCS[key] = normalize_with_map(_ABSTRACTS[key])
    return doc


# Slips a model makes, applied to the quote's side or the text's ("fine-tuning" in the text,
# "finetuning" in the quote, and the reverse), and some that are never forgiven (a comma glued
# to a digit dropped, a hyphen before a number added, two words glued), so that both answers
# are exercised.
_EDITS = ((" ", ", "), (", ", " "), ("; ", ": "), (": ", ", "), (", ", " - "), (" - ", ", "),
          ("-", " "), ("-", ""), (",", ""), (" ", "-"), (" ", "; "), (" ", ""), (" ", " -"),
          (".", ""), ("%", ""))
# Meaning changes: a letter, a digit, a word.
_CHANGES = ((r"[a-z]{5,}", lambda m: m.group()[:-1] + "q"), (r"\d", lambda m: "7"),
            (r"\b(?:the|and|of)\b", lambda m: "not"))


def _apply(text: str, edits: list[tuple[str, str]], nth: list[int]) -> str:
    """``text`` with each edit made at the ``n``-th place it applies (counted modulo)."""
    for (old, new), n in zip(edits, nth, strict=False):
        spots = [m.start() for m in re.finditer(re.escape(old), text)]
        if spots:
            at = spots[n % len(spots)]
            text = text[:at] + new + text[at + len(old):]
    return text


def _passage(data: st.DataObject, text: str) -> tuple[int, int]:
    """A word-bounded stretch of 2 to 20 words of ``text``."""
    found = tokens(text)
    first = data.draw(st.integers(0, len(found) - 2), label="first word")
    last = data.draw(st.integers(first + 1, min(len(found) - 1, first + 19)), label="last")
    return found[first].start(), found[last].end()


def _edits(data: st.DataObject, label: str, most: int) -> tuple[list[tuple[str, str]], list[int]]:
    edits = data.draw(st.lists(st.sampled_from(_EDITS), max_size=most), label=label)
    nth = data.draw(st.lists(st.integers(0, 40), min_size=len(edits), max_size=len(edits)),
                    label=label + " at")
    return edits, nth


def _edges_ok(hay: str, start: int, end: int, needle: str) -> bool:
    """Every edge accepted: the skeleton test must hold of any match, not only whole-word ones
    (and more matches are returned, so more are compared)."""
    return True


def _both(hay: str, needle: str, doc: NormalizedText | None = None) -> SlipMatch | None:
    """The slip search with its skeleton test and without it: the same answer (with a budget
    no search here runs out of), and a match that has the needle's skeleton."""
    unhyphenated = doc.without_hyphens if doc is not None else None
    kept = doc.slip_skeleton if doc is not None else None
    full = slips._find(hay, needle, SearchBudget(10**9), _edges_ok, unhyphenated)
    filtered = find_slipped(hay, needle, SearchBudget(10**9), _edges_ok, unhyphenated, kept)
    assert filtered == full, (needle, full)
    if full is not None:
        assert skeleton(hay[full.start:full.end]) == skeleton(needle), (needle, full)
    return full


@_SETTINGS
@given(data=st.data())
def test_every_text_a_slip_pattern_matches_has_the_quotes_skeleton(data: st.DataObject) -> None:
    # The argument of find_slipped's docstring, checked on the pattern itself: with no word,
    # the hyphenated ones, or every word allowed a glued hyphen, each match anywhere in the
    # text (not only in the windows the search tries) reads, without its soft characters, as
    # the quote does.
    text = _doc(data.draw(st.sampled_from(_IDS), label="abstract")).text
    start, end = _passage(data, text)
    quote = _apply(text[start:end], *_edits(data, "quote slips", 4))
    passage = _apply(text[start:end], *_edits(data, "text slips", 2))
    text = text[:start] + passage + text[end:]
    shape = slips._shape(quote)
    if shape is None:
        return
    hyphened = {w for w in shape.words if w not in text and w in text.replace("-", "")}
    for joined in (frozenset(), frozenset(hyphened), frozenset(shape.words)):
        pattern = slips._regex(shape, joined)
        pos = 0
        while (m := pattern.search(text, pos)) is not None:
            assert skeleton(m.group()) == skeleton(quote), (quote, m.group())
            assert skeleton(quote) in skeleton(text)
            pos = m.start() + 1


@_SETTINGS
@given(data=st.data())
def test_the_skeleton_test_rules_out_no_quote_the_slip_search_finds(data: st.DataObject) -> None:
    # A sentence of an abstract with slips on either side, sometimes a meaning change too,
    # searched in its own abstract (as changed) or in another one (the search of the other
    # documents): with the test and without it, the same answer.
    key = data.draw(st.sampled_from(_IDS), label="abstract")
    doc = _doc(key)
    text = doc.text
    start, end = _passage(data, text)
    quote = _apply(text[start:end], *_edits(data, "quote slips", 3))
    if data.draw(st.booleans(), label="meaning changed"):
        pattern, repl = data.draw(st.sampled_from(_CHANGES), label="change")
        quote = re.sub(pattern, repl, quote, count=1)
    needle = parse_quote(quote).needle
    if not needle:
        return
    where = data.draw(st.sampled_from(("own", "own, slipped", "other")), label="searched in")
    if where == "own":
        _both(text, needle, doc)
    elif where == "own, slipped":
        passage = _apply(text[start:end], *_edits(data, "text slips", 2))
        _both(text[:start] + passage + text[end:], needle)
    else:
        _both(_doc(data.draw(st.sampled_from(_IDS), label="other")).text, needle)


# Words of many scripts: Latin with accents and combining marks, Greek, Cyrillic, CJK (no
# spaces between words there), digits of other scripts, underscores, ligatures and full-width
# forms that normalization folds, characters beyond the BMP.
_LETTERS = st.characters(categories=["Lu", "Ll", "Lo", "Mn", "Nd", "No"], max_codepoint=0x2FFFF)
_SPECIAL = st.sampled_from(list("_\u0301\u00e9\ufb01\u00df\u0130\u03a3\u03c2\u0430\u6a21\u578b"
                                "\uff21\uff11\u0663\u00bd\U0001d400"))
_WORD = st.text(st.sampled_from(list("abcdefg0123")) | _LETTERS | _SPECIAL, min_size=1,
                max_size=7)
_NUMBER = st.sampled_from(["1,204", "1204", "65,773", "2.5", "-2.5", "10-20", "35%", "1/2",
                           "12,04", "3", "2020"])
# Separators in the text: soft, hard, and mixed.
_SEP = st.sampled_from([" ", " ", " ", ", ", "; ", ": ", " - ", " -- ", "-", " (", ") ", ". ",
                        "/", " \u2014 ", ", \"", "' ", " [", "] ", " % ", "\n", "\u00a0"])
# What a quote may write between two words instead: soft ones, nothing, and a few others.
_QUOTE_SEP = st.sampled_from([" ", ", ", "; ", ": ", " - ", "-", "", ",", " ,", " (", ". "])


@_SETTINGS
@given(data=st.data())
def test_the_skeleton_test_rules_out_nothing_in_text_of_any_script(data: st.DataObject) -> None:
    words = data.draw(st.lists(_WORD | _NUMBER, min_size=2, max_size=16), label="words")
    seps = data.draw(st.lists(_SEP, min_size=len(words) - 1, max_size=len(words) - 1),
                     label="text separators")
    text = words[0] + "".join(s + w for s, w in zip(seps, words[1:], strict=True))
    i = data.draw(st.integers(0, len(words) - 2), label="first")
    j = data.draw(st.integers(i + 1, len(words) - 1), label="last")
    between = list(seps[i:j])
    for k in data.draw(st.lists(st.integers(0, len(between) - 1), max_size=3), label="changed"):
        between[k] = data.draw(_QUOTE_SEP, label="quote separator")
    quote = words[i] + "".join(s + w for s, w in zip(between, words[i + 1:j + 1], strict=True))
    needle = parse_quote(quote).needle
    if not needle:
        return
    doc = normalize_with_map("Intro. " + text + " end.")
    _both(doc.text, needle, doc)


def test_the_soft_characters_are_all_a_slip_pattern_may_put_where_the_quote_has_others() -> None:
    # The separator patterns, over every character: each matches soft characters only, so
    # the skeleton drops exactly what they may add. (A word's pattern adds only "-?" and ",?".)
    everything = "".join(chr(c) + " " for c in range(0x110000) if not 0xD800 <= c < 0xE000)
    soft = set(slips._SOFT_BYTES.decode())
    assert soft == slips._SOFT
    for pattern in (slips._BETWEEN_WORDS, slips._JOINED, slips._BESIDE_NUMBER,
                    slips._SPACE_IN_HARD):
        matched = set("".join(re.findall(f"(?:{pattern})", everything)))
        assert matched <= soft, (pattern, matched - soft)
    assert set(slips._word_pattern("65,773").replace("\\", "")) - set("0123456789?") <= soft
    assert set(slips._word_pattern("finetuning", True)) - set("finetuning?") <= soft
