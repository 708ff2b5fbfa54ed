"""The fast path's building blocks (vcg_otel/gate/fast.py and the helpers it uses) each equal
what they stand in for: the whole-path answer itself is compared in
tests/properties/test_gate_fast_path.py."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vcg_otel.gate.fast import located_match
from vcg_otel.gate.normalize import (
    _JOIN,
    _OTHER_SPACES,
    _SHORT_WAY_BYTES,
    _SHORT_WAY_CHAR,
    CHUNK_CHARS,
    FOLD_TABLE,
    NormalizedText,
    _normalize,
    fold_chars,
    laid_out,
    normalize,
    normalize_elided,
    normalize_marked,
    normalize_with_map,
)
from vcg_otel.gate.quote import (
    MARKS,
    ParsedQuote,
    _split,
    cut_at_ellipses,
    cut_without_insertions,
    has_mark,
    iter_marks,
    mark_list,
    needle_of,
    parse_marked,
    parse_quote,
    pieces_without_insertions,
    strip_edges,
)
from vcg_otel.gate.result import GateMatch, GateResult
from vcg_otel.gate.search import Span, _left_ok, _right_ok, inside_compound, is_spaced_word_char


def test_other_spaces_are_every_whitespace_character_but_the_space() -> None:
    spaces = {chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()}
    regex = {chr(c) for c in range(sys.maxunicode + 1) if re.match(r"\s", chr(c))}
    assert set(_OTHER_SPACES) == spaces - {" "} == regex - {" "}


@settings(max_examples=2000, deadline=None)
@given(st.text(alphabet="ab1_-\n \t\u00e9\u4e00.", max_size=24))
def test_the_join_starting_at_its_hyphen_is_the_join_with_the_word_character_first(
        text: str) -> None:
    # _JOIN starts with its literal hyphen (the engine skips to hyphens); written with the
    # word character before it first, it is the same rule.
    before = re.compile(r"(?<=\w)- *\n *(?=\w)")
    assert [m.span() for m in _JOIN.finditer(text)] == [m.span() for m in before.finditer(text)]


def test_the_short_way_bytes_are_its_ascii_characters() -> None:
    ascii_hits = {chr(c) for c in range(128) if _SHORT_WAY_CHAR.match(chr(c))}
    assert set(_SHORT_WAY_BYTES.decode()) == ascii_hits


_TRICKY = st.sampled_from(
    ["a", "Z", " ", ".", "..", ". .", "(", ")", "[", "]", "(sic)", "[sic]", "[T]", "[...]",
     "...", ". . .", ".\n.\u00a0.", "....", "[ \u2026 ]", "(...)", "[Emphasis Added]",
     "( \u2026 )", "\u2026", "(emphasis added)", "[x y]", "\n", "\u00a0", "\u2019", "\u201c",
     "\ufb01", "\u0430", "\u00ad", "\u0301", "\u03a3", "\u0130", "\u13a0", "\uab70", "\u00df",
     "[, ]", "[--]", "(sic)", "[X]", "\u2013", "\u2018", "\u201d", "\u2026\u2026",
     "\ud800", "\U0001f600", "\u1e9e", "\u0345", "\uff21", "\u2014", "\u2212"])
_TEXT = st.lists(st.one_of(_TRICKY, st.text(max_size=3)), max_size=12).map("".join)
# Prose with one mark in it (defined with the prose below).
_MARKED = st.deferred(lambda: _marked_prose())
_ALNUM = re.compile(r"[^\W_]")


@settings(max_examples=2000, deadline=None)
@given(_TEXT)
def test_iter_marks_is_the_marks_regex(text: str) -> None:
    def seen(matches: Iterator[re.Match[str]]) -> list[tuple[int, int, str | None]]:
        return [(m.start(), m.end(), m.lastgroup) for m in matches]

    assert seen(iter_marks(text)) == seen(MARKS.finditer(text))
    assert has_mark(text) == (MARKS.search(text) is not None)


@settings(max_examples=2000, deadline=None)
@given(_TEXT)
def test_a_quote_without_insertions_parses_as_the_general_split_cuts_it(text: str) -> None:
    """parse_quote reads a quote whose marks are all ellipses, annotations and changes of
    case without the general split's bookkeeping for insertions: it is what that split
    gives (its pieces, all-False gaps and edges, no literal reading). A quote with an
    insertion, even one without a word (``[, ]``), is left to the general split."""
    marks = mark_list(text)
    pieces = pieces_without_insertions(text, marks)
    if any(m.lastgroup == "insertion" for m in marks):
        assert pieces is None
        return
    if not marks:
        return
    needle = strip_edges(normalize(text))
    split, gaps, elided, edges = _split(text, marks, insertions=True)
    assert pieces == split
    assert parse_quote(text) == ParsedQuote(needle if _ALNUM.search(needle) else "", split,
                                            elided, gaps, (), edges)


@settings(max_examples=2000, deadline=None)
@given(_TEXT)
def test_a_quote_whose_only_marks_are_ellipsis_characters_is_cut_at_each(text: str) -> None:
    """cut_at_ellipses tells such a quote's parse without the marks' pattern."""
    if "(" in text or "[" in text or text.count(".") > 2 or "\u2026" not in text:
        return
    parsed = parse_quote(text)
    pieces, kept, needle = cut_at_ellipses(text)
    assert pieces == parsed.pieces
    assert needle in (None, parsed.needle)
    assert kept in parsed.needle
    assert all(m.group() == "\u2026" for m in mark_list(text))


@settings(max_examples=3000, deadline=None)
@given(_TEXT | _MARKED)
def test_a_quote_without_insertions_is_cut_into_its_parse_and_a_text_its_needle_holds(
        text: str) -> None:
    marks = mark_list(text)
    cut = cut_without_insertions(text, marks)
    if any(m.lastgroup == "insertion" for m in marks):
        assert cut is None
    elif marks:
        assert cut is not None
        pieces, kept, known = cut
        needle = strip_edges(normalize(text))
        needle = needle if _ALNUM.search(needle) else ""
        assert (needle_of(text), pieces) == (needle, pieces_without_insertions(text, marks))
        assert known in (None, needle)
        assert kept in needle


def test_a_piece_that_starts_with_a_letter_or_digit_has_a_word() -> None:
    """has_word's shortcut: a first character that is alphanumeric is a match of the
    pattern it stands in for, whatever the character."""
    assert all((_ALNUM.match(chr(c)) is not None) == chr(c).isalnum()
               for c in range(sys.maxunicode + 1))


def test_an_insertion_without_a_word_still_stands_for_a_bracket_only_gap() -> None:
    assert parse_quote("alpha beta [, ] gamma delta") == ParsedQuote(
        "alpha beta [, ] gamma delta", ("alpha beta", "gamma delta"), True, (True,))


@settings(max_examples=600, deadline=None)
@given(_TEXT)
def test_fold_chars_is_the_fold_table(text: str) -> None:
    folded = fold_chars(text)
    assert folded is None or folded == text.translate(FOLD_TABLE)


@pytest.mark.parametrize("text", ["\u03a3\u0391\u03a3 x", "\u0130stanbul", "\u13a0\uab70 ab",
                                  "\ufb01 \u201cx\u201d \u00e9 \u00c9 \u00df", "a\ud800b"])
def test_fold_chars_of_case_changing_and_non_ascii_folds(text: str) -> None:
    assert fold_chars(text) == text.translate(FOLD_TABLE)


def test_fold_chars_leaves_a_combining_mark_to_the_full_stage_a() -> None:
    assert fold_chars("cafe\u0301 au lait") is None


@pytest.mark.parametrize("fields", [
    (GateResult.FOUND, "d", "d", 3, 9, "passage", False, ((3, 9),), ("d",), ()),
    (GateResult.MISATTRIBUTED, "c", "d", 0, 20, "a b ... c", True, ((0, 3), (15, 20)),
     ("d", "e"), ("hyphen", "punctuation"))])
def test_located_builds_what_the_constructor_builds(fields: tuple[object, ...]) -> None:
    quick = GateMatch.located(*fields)  # type: ignore[arg-type]
    full = GateMatch(*fields[:9], forgiven=fields[9])  # type: ignore[arg-type]
    assert repr(quick) == repr(full)
    assert quick.to_dict() == full.to_dict()
    assert quick == full


def test_is_spaced_word_char_is_its_definition() -> None:
    def defined(ch: str) -> bool:
        code = ord(ch)
        return (ch.isalnum() or ch == "_") and not (
            0x0E00 <= code <= 0x0EFF or 0x1000 <= code <= 0x109F or 0x1780 <= code <= 0x17FF
            or 0x2E80 <= code <= 0xA4CF or 0xAC00 <= code <= 0xD7AF or 0xF900 <= code <= 0xFAFF
            or 0xFF66 <= code <= 0xFF9F or code >= 0x20000)

    assert all(is_spaced_word_char(chr(c)) == defined(chr(c)) for c in range(sys.maxunicode + 1))


@pytest.mark.parametrize("lead", [0, 2])
def test_original_span_of_identity_maps_is_the_walk_through_the_maps(lead: int) -> None:
    plain = normalize_with_map("plain text here")
    assert not (plain.layout.n_starts or plain.markup or plain.chars.n_starts)
    doc = NormalizedText("- " * lead + plain.text, plain.text, plain.chars, plain.layout, (),
                         lead)
    for start in range(len(doc.text) + 1):
        for end in range(len(doc.text) + 1):
            o_start = doc.layout.start(start + doc.lead)
            o_end = doc.layout.end(end + doc.lead) if end > start else o_start
            mapped = doc.chars.start(o_start)
            o_end = doc.chars.end(o_end) if o_end > o_start else mapped
            assert doc.original_span(start, end) == (mapped, o_end)


# Prose pieces and the characters at which the plain and laid-out needles must stop (or
# agree with the full parse): quotation marks, apostrophes, line breaks before markers,
# hyphens next to line breaks and spaces, digits before a closing quotation mark.
_PROSE = st.lists(st.one_of(
    st.sampled_from(["word", "Two", "x", "9", "12", "\u00e9t\u00e9", "\u0430b", " ", "  ", "\n",
                     " \n ", "-", "-\n", "- \n ", "\n-", "\n- ", "\n# ", "\n> ", "\n+ ", "\n= ",
                     "[", "]", "[^", "]:", "](", "[1",
                     "'", "\"", "\u201c", "\u201d", "\u2018", "\u2019", "'s", "s'", "#", "*", "_",
                     ".", ",", "--", "\t", "\r\n", "\u00a0", "\u00ad", "<b>", "&amp;", "|",
                     "\ufb01", "\u2014", "~", "~~", "\"\""]),
    st.text(alphabet="ab1 -\n'\"#", max_size=4)), max_size=14).map("".join)


@settings(max_examples=3000, deadline=None)
@given(_PROSE)
def test_laid_out_is_normalize(text: str) -> None:
    folded = fold_chars(text)
    if folded is not None:
        out = laid_out(folded)
        assert out is None or out == _normalize(text)[0], text


@settings(max_examples=3000, deadline=None)
@given(_PROSE)
def test_laid_out_with_dashes_is_normalize(text: str) -> None:
    folded = fold_chars(text)
    if folded is not None:
        out = laid_out(folded, dashes=True)
        assert out is None or out == _normalize(text)[0], text


@pytest.mark.parametrize("text", ["a -- b", "a--b", "a---b", "a --- b", "a - b", "a -b",
                                  "a- b", "a -- -- b", "a  --  b", "x \u2014 y", "\"a -- b\"",
                                  "long-context -- especially", "a - -b", "a -- b -"])
def test_dashes_on_one_line_are_laid_out_by_the_layout_stage(text: str) -> None:
    assert laid_out(fold_chars(text) or "", dashes=True) == _normalize(text)[0]


@pytest.mark.parametrize("text", [
    "\u201cQuoted whole.\u201d", "'Single quoted'", "NVIDIA's GPUs", "rock 'n' roll",
    "line\nbreak  and   spaces", "Proce-\ndural text", "Proce- \n dural", "a-\n-b horizon",
    "ends in 12\"", "\"12\"", "x\n# heading", "x\n- item", "x\n-item", "x -\ny", ")-\nb text",
    "\n  > quoted", "models' outputs", "'90s music", "\"\"", "a\u2019b", "x\n\n\ny",
    "[U]seful", "useful [sic] text", "see [1] here", "[^1]: note", "[x]: http://a", "[x]",
    "a [link](x)", "[ref]: x", "x [^1]",
    "text]: y", "[a][b]", "\n[x]", "  ", "", "see[1] here", "word[^1] text", "a[2,3]. b",
    "# heading", "> quoted", "+ item", "= rule", "a + b  >  c", "x = y # z", "  + lead",
    "plain prose.",
    "two  spaces", " edges ", "=", "1 + 1 = 2",
    'the "doer effect" suggests', 'said "no"', 'a 12" b', 'a"\'b', "it'\"s", 'x "\n# y',
    'a ""b"" c', 'x"-"y', "on ~1m-parameter models", "a ~~gone~~ b", 'a ~"~ b', '~"x',
    '"[1]"', 'x "[^1] y', 'a]"(b)'])
def test_laid_out_is_normalize_or_none_on_the_edge_cases(text: str) -> None:
    folded = fold_chars(text)
    assert folded is not None
    out = laid_out(folded)
    assert out is None or out == _normalize(text)[0]


@pytest.mark.parametrize("text", ["\u201cQuoted whole.\u201d", "NVIDIA's GPUs", "[U]seful",
                                  "line\nbreak  and   spaces", "Proce-\ndural text",
                                  "useful [sic] text", 'the "doer effect" suggests',
                                  "on ~1m-parameter models"])
def test_common_laid_out_quotes_take_the_short_way(text: str) -> None:
    assert laid_out(fold_chars(text) or "") == _normalize(text)[0]


_ELLIPSIS_MARKS = st.sampled_from(["\u2026", "...", ". . .", " \u2026 ", "....", "\u2026\u2026 ",
                                   " ... ", "\u2026.", ".\u2026"])
_BRACKET_MARKS = st.sampled_from(["[sic]", " [sic] ", "[SIC]", "(sic)", " (sic)", "[ sic ]",
                                  " (emphasis added) ", "[emphasis mine]", "[T]", "[t]", "[Ab]",
                                  "[1]", "[_]", "[\u00c9]", "[sic\t]", "[ \u00a0sic]"])


def _marked_prose() -> st.SearchStrategy[str]:
    return st.tuples(_PROSE, _BRACKET_MARKS | _ELLIPSIS_MARKS, _PROSE).map("".join)


@st.composite
def elided_texts(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    """A text cut at ellipses: its parts are prose with the characters the layout looks at
    (quotation marks at their ends, apostrophes, line breaks, hyphens, markers, brackets)."""
    parts = draw(st.lists(_PROSE, min_size=2, max_size=4))
    return parts, [draw(_ELLIPSIS_MARKS) for _ in parts[1:]]


def _elided_as_normalize(parts: list[str], ellipses: list[str]) -> bool:
    """normalize_elided's answer, if any, is the parts' normalization, and the whole's is
    laid out from them as it says."""
    text = "".join(p + e for p, e in zip(parts, [*ellipses, ""], strict=True))
    outs = normalize_elided(parts, ellipses, len(text))
    if outs is None:
        return False
    assert outs == [_normalize(part)[0] for part in parts], text
    joined = []
    for i, (part, out) in enumerate(zip(parts, outs, strict=True)):
        folded = fold_chars(part) or ""
        if i and folded[:1].isspace():
            joined.append(" ")
        joined.append(out)
        if i < len(ellipses):
            joined += [" "] * folded[-1:].isspace() + [ellipses[i].replace("\u2026", "...")]
    assert " ".join("".join(joined).split()) == _normalize(text)[0], text
    assert laid_out(fold_chars(text) or "") == _normalize(text)[0], text  # the lemma's way
    return True


@settings(max_examples=4000, deadline=None)
@given(elided_texts())
def test_normalize_elided_is_normalize_of_each_part_and_the_whole_their_join(
        case: tuple[list[str], list[str]]) -> None:
    _elided_as_normalize(*case)


def test_normalize_elided_answers_for_many_generated_texts_and_for_common_quotes() -> None:
    """The property above would prove little if normalize_elided always said None."""
    answered = [0]

    @settings(max_examples=600, deadline=None)
    @given(elided_texts())
    def tally(case: tuple[list[str], list[str]]) -> None:
        answered[0] += _elided_as_normalize(*case)

    tally()
    assert answered[0] >= 40
    quote = "\u201cThe model improves \u2026 on every benchmark.\u201d"
    assert _elided_as_normalize(quote.split("\u2026"), ["\u2026"])


@pytest.mark.parametrize("text", [
    "a \u2026\u2026 b", "a\u2026\u2026b", "\u2026", "\u2026 \u2026", "\"\u2026 x\"", "\"x \u2026\"",
    "'x\u2026", "x'\u2026y", "x\u2026'y", "\"\u2026\"\u2026\"", "12\u2026 4\"",
    "x\u2026-y", "x -\u2026y",
    "x-\n\u2026y", "x\u2026\ny", "x\n\u2026# y", "x\u2026\n# y", "a]\u2026(b", "a]\u2026: b",
    "\u2026# h", "#\u2026 h", "a  \u2026  b", "\n\u2026\n", "x\u2026 \u2019y\u2019"])
def test_normalize_elided_on_the_edge_cases(text: str) -> None:
    parts = text.split("\u2026")
    _elided_as_normalize(parts, ["\u2026"] * (len(parts) - 1))


@st.composite
def marked_texts(draw: st.DrawFn) -> tuple[str, int, int, str]:
    """Prose with an annotation or a change of case (or what looks like one) in it."""
    before, mark, after = draw(_PROSE), draw(_BRACKET_MARKS), draw(_PROSE)
    mark = mark.strip(" ")
    if draw(st.booleans()):
        after = draw(st.sampled_from(["he", "s", "x y", "("])) + after
    insert = mark[1:-1] if len(mark) <= 4 and mark[1:-1].strip().isalnum() else " "
    return before + mark + after, len(before), len(before) + len(mark), insert


def _marked_as_normalize(text: str, start: int, end: int, insert: str) -> bool:
    shown = normalize_marked(text, start, end, insert)
    if shown is None:
        return False
    out, kept = shown
    assert out == _normalize(text[:start] + insert + text[end:])[0], text
    assert kept in _normalize(text)[0], text
    assert laid_out(fold_chars(text) or "") == _normalize(text)[0], text  # the lemma's way
    assert kept[:1] in "[(" and kept[-1:] in ")]", text
    return True


@settings(max_examples=4000, deadline=None)
@given(marked_texts())
def test_normalize_marked_is_normalize_of_the_replaced_text_and_the_whole_holds_the_mark(
        case: tuple[str, int, int, str]) -> None:
    _marked_as_normalize(*case)


def test_normalize_marked_answers_for_many_generated_texts_and_for_common_quotes() -> None:
    answered = [0]

    @settings(max_examples=600, deadline=None)
    @given(marked_texts())
    def tally(case: tuple[str, int, int, str]) -> None:
        answered[0] += _marked_as_normalize(*case)

    tally()
    assert answered[0] >= 40
    quote = "\u201cLarge models [sic] are increasingly used.\u201d"
    assert _marked_as_normalize(quote, 14, 19, " ")
    assert _marked_as_normalize("[T]he results hold.", 0, 3, "T")


@pytest.mark.parametrize(("text", "insert"), [
    ("x\n[sic] y", " "), ("x\u00a0\n\u00a0[sic] y", " "), ("x][sic] y", " "), ("x [sic](y)", " "),
    ("x [sic]: y", " "), ("x [sic][y]", " "), ("x'[T]he", "T"), ("x\u2019[T]he", "T"),
    ("x\"[T]he", "T"), ("\u201c[T]he x\u201d", "T"), ("x [1]st", "1"), ("x [sic] - y", " "),
    ("x -[sic] y", " "), ("x [sic]-y", " "), ("x-\n[sic]y", " "), ("# [sic] x", " "),
    ("[sic] # x", " "), ("x [sic]'s", " "), ("12 [sic]\"", " "), ("'[sic] x'", " "),
    ("x (sic) (y)", " "), ("x ] (sic) y", " "), ("x [sic]\n- y", " "), ("x [sic]", " "),
    ("[sic]", " "), ("x [Sic] y", " ")])
def test_normalize_marked_on_the_edge_cases(text: str, insert: str) -> None:
    start = min(i for i in (text.find("["), text.find("(")) if i != -1)
    end = text.index("]" if text[start] == "[" else ")", start) + 1
    _marked_as_normalize(text, start, end, insert)


def test_normalize_elided_leaves_a_whole_normalized_in_chunks_to_normalize() -> None:
    parts = ["word " * (CHUNK_CHARS // 5), "more words"]
    assert normalize_elided(parts, ["\u2026"], len(parts[0]) + 1 + len(parts[1])) is None
    assert normalize_elided(["some words", "more words"], ["\u2026"], 21) is not None


@pytest.mark.parametrize("original", [
    "plain text, the same normalized", "- a list item with its marker removed",
    "Two  spaces and\na line break", "A ligature \ufb01nds its way", "<b>markup</b> text here",
    "# heading\n\nand a paragraph", "LEAD"])
def test_located_match_maps_the_span_and_each_piece_as_original_span_does(
        original: str) -> None:
    doc = normalize_with_map(original)
    if original == "LEAD":  # identity maps, leading markers removed
        plain = normalize_with_map("plain text here")
        original = "- - " + plain.text
        doc = NormalizedText(original, plain.text, plain.chars, plain.layout, (), 4)
    n = len(doc.text)
    spans = [Span(0, n, ((0, n),), False), Span(1, n - 1, ((1, 3), (5, n - 1)), True),
             Span(2, n, ((2, n),), True), Span(0, 4, ((0, 2), (2, 3), (3, 4)), True)]
    for span in spans:
        start, end = doc.original_span(span.start, span.end)
        pieces = tuple(doc.original_span(s, e) for s, e in span.pieces)
        match = located_match(GateResult.FOUND, doc, "d", "d", span, ("d",))
        assert (match.start, match.end, match.pieces, match.text) == (
            start, end, pieces, original[start:end]), (original, span)


@settings(max_examples=1500, deadline=None)
@given(_TEXT | _MARKED)
def test_a_quote_parsed_after_its_cut_gets_the_parse_made_from_its_marks(text: str) -> None:
    """parse_quote reads the quote the fast path last cut from its cut: the same parse."""
    marks = mark_list(text)
    if "(" in text or "[" in text or text.count(".") > 2:
        assert (cut_without_insertions(text, marks) is None) == (
            not marks or any(m.lastgroup == "insertion" for m in marks))
    elif "\u2026" in text:
        cut_at_ellipses(text)
    assert parse_quote(text) == parse_marked(text, marks)


def _left_ok_asking_every_rule(hay: str, pos: int, needle: str, bracket: bool) -> bool:
    """search._left_ok as written before it skipped the word, compound and bracket rules
    next to a phrase edge (a space, sentence punctuation)."""
    if pos == 0:
        return True
    first, before = needle[0], hay[pos - 1]
    if bracket and hay[pos - 2 if before == " " and pos >= 2 else pos - 1] == "]":
        return False
    if is_spaced_word_char(first) and is_spaced_word_char(before):
        return False
    if inside_compound(hay, pos - 1, first):
        return False
    if not first.isdigit():
        return True
    if before in ".," and pos >= 2 and hay[pos - 2].isdigit():
        return False
    return not (before == "-" and (pos < 2 or not is_spaced_word_char(hay[pos - 2])))


def _right_ok_asking_every_rule(hay: str, end: int, needle: str, bracket: bool) -> bool:
    if end >= len(hay):
        return True
    last, after = needle[-1], hay[end]
    if bracket and (after == "[" or (after == " " and hay[end + 1:end + 2] == "[")):
        return False
    if is_spaced_word_char(last) and is_spaced_word_char(after):
        return False
    if inside_compound(hay, end, last):
        return False
    if last.isdigit():
        if after == "%":
            return False
        if after in ".," and end + 1 < len(hay) and hay[end + 1].isdigit():
            return False
    return True


@settings(max_examples=5000, deadline=None)
@given(st.text(alphabet="a1-. ,;:!?%[]_\u4e00\u00e9", min_size=1, max_size=8),
       st.text(alphabet="a1-. ,%[]\u4e00", min_size=1, max_size=3), st.integers(0, 8),
       st.booleans())
def test_quote_edges_next_to_a_phrase_edge_are_judged_as_by_every_rule(
        hay: str, needle: str, at: int, bracket: bool) -> None:
    at = min(at, len(hay))
    assert _left_ok(hay, at, needle, bracket) == _left_ok_asking_every_rule(
        hay, at, needle, bracket)
    assert _right_ok(hay, at, needle, bracket) == _right_ok_asking_every_rule(
        hay, at, needle, bracket)
