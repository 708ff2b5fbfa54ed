"""normalize(): each repair the gate relies on, and the offset maps back to the original."""

from __future__ import annotations

import re
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vcg_otel.gate import normalize, normalize_with_map


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Hello   World", "hello world"),
        ("  padded\t\n", "padded"),
        ("\u201cCurly\u201d \u2018quotes\u2019 it\u2019s", "curly quotes it's"),
        ("a\u2014b", "a - b"),
        ("a -- b", "a - b"),
        ("10\u201320", "10-20"),
        ("wait\u2026", "wait..."),
        ("non\u00a0breaking\u2009thin\u3000ideographic", "non breaking thin ideographic"),
        ("zero\u200bwidth\u200djoin\ufeff", "zerowidthjoin"),
        ("soft\u00adhyphen", "softhyphen"),
        ("\ufb01rst \ufb02ow o\ufb00er", "first flow offer"),
        ("transfor-\nmation", "transformation"),
        ("STRASSE Stra\u00dfe", "strasse strasse"),
        ("\uff28\uff45\uff4c\uff4c\uff4f", "hello"),
    ],
)
def test_typography_and_pdf_damage_fold_to_one_form(raw: str, expected: str) -> None:
    assert normalize(raw) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("**Fast**: very `fast`.", "fast: very fast."),
        ("read_config_file", "read config file"),
        ("L_{c} and x_1", "l {c} and x 1"),
        ("a [link](https://x.y/a_b) here", "a link here"),
        ("<p>A &amp; B&nbsp;&eacute;</p>", "a & b \u00e9"),
        ("# Title\n\n- item one\n> quoted", "title item one quoted"),
        ("said \u201cno\u201d and 'yes' but don't", "said no and yes but don't"),
        ("2*3 and 12\" and 5' and ~5 and |x|", "2*3 and 12\" and 5' and ~5 and |x|"),
        ("&lt;b&gt;bold&lt;/b&gt;", "bold"),
        ("-- leading dash", "leading dash"),
    ],
)
def test_markup_and_skippable_characters_read_as_a_reader_sees_them(
    raw: str, expected: str
) -> None:
    assert normalize(raw) == expected
    assert normalize(expected) == expected


def test_numbers_decimal_points_and_percent_are_preserved() -> None:
    assert normalize("Accuracy rose 3.5% (from 91.2 to 94.7)") == (
        "accuracy rose 3.5% (from 91.2 to 94.7)"
    )
    assert normalize("3.5%") != normalize("35%")
    assert normalize("1,000") != normalize("1000")


def test_composed_and_decomposed_accents_are_equal_but_accents_are_kept() -> None:
    assert normalize("caf\u00e9") == normalize("cafe\u0301")
    assert normalize("r\u00e9sum\u00e9") != normalize("resume")


def test_case_folding_works_for_cyrillic_and_greek() -> None:
    assert normalize("\u041c\u041e\u0421\u041a\u0412\u0410") == normalize(
        "\u043c\u043e\u0441\u043a\u0432\u0430"
    )
    sofia_upper, sofia_lower = "\u03a3\u039f\u03a6\u0399\u0391", "\u03c3\u03bf\u03c6\u03b9\u03b1"
    assert normalize(sofia_upper) == normalize(sofia_lower)


def test_cyrillic_look_alikes_fold_to_latin_but_distinct_letters_do_not() -> None:
    spoofed = "r\u0435sults \u0441\u043ert \u0443\u0445"  # Cyrillic е, с, о, у, х
    assert normalize(spoofed) == "results cort yx"
    # и (Cyrillic i) and н (Cyrillic n) do not look like Latin letters: never folded.
    assert normalize("\u0438\u043d") != normalize("un")
    assert normalize("\u0438\u043d") != normalize("nh")


def test_cjk_text_is_kept_and_matches_itself() -> None:
    text = "\u5927\u578b\u8bed\u8a00\u6a21\u578b\u7684\u8bc4\u4f30"
    assert normalize(text) == text
    assert normalize("\uff21\uff29\u6a21\u578b") == "ai\u6a21\u578b"


def test_type_errors_name_the_argument() -> None:
    with pytest.raises(TypeError, match="text must be str"):
        normalize(b"bytes")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="text must be str"):
        normalize_with_map(None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "raw",
    [
        "",
        " ",
        "\x00\x01\ufffe",
        "\ud800 lone surrogate",
        "\U0001f600\U0010ffff\U000e0001",
        "\u0301\u0301 marks first",
        "\u200b\u0301a",
        "x" * 10 + "\u0130" * 5 + "y",
        # found by hypothesis: marks on dashes, spacing diacritics, look-alike bases
        "\u2014\u0301", "\u00b8", "\u2014\u00b8\u2014", "\u0430\u0301", "-- --",
        # found by atheris: a half-width letter that folds to a vowel jamo (a mark here)
        "\uffd3", "a\uffd3b", "\u1100\uffd3",
        # issue 12: symbols that decompose to a symbol plus a mark NFC will not recompose
        "\u2adc", "a\u2adcb", "\u2adc\u0301", "\U0001d15e", "\U0001d1c0",
    ],
)
def test_any_string_is_handled_without_a_crash(raw: str) -> None:
    out = normalize_with_map(raw)
    assert normalize(raw) == out.text  # the fast path and the mapped path agree
    assert normalize(out.text) == out.text
    start, end = out.original_span(0, len(out.text))
    assert 0 <= start <= end <= len(raw)


def test_offsets_point_at_the_original_passage() -> None:
    raw = "Intro.  The \ufb01nal  RESULT\u2014\u201cgood\u201d\u2026 ends"
    nt = normalize_with_map(raw)
    needle = "final result - good..."  # the quotation marks are skippable
    pos = nt.text.index(needle)
    start, end = nt.original_span(pos, pos + len(needle))
    assert raw[start:end] == "\ufb01nal  RESULT\u2014\u201cgood\u201d\u2026"


def test_large_documents_normalize_in_chunks_with_the_same_result() -> None:
    module = sys.modules["vcg_otel.gate.normalize"]
    unit = "Alpha  beta\u2014gamma ﬁ \u03bb-\nfunction, caf\u00e9 \u0441\u043e\u0441. "
    text = unit * (module.CHUNK_CHARS // len(unit) * 3)
    chunked = normalize_with_map(text)
    old = module.CHUNK_CHARS
    module.CHUNK_CHARS = 10**12
    try:
        whole = normalize_with_map(text)
    finally:
        module.CHUNK_CHARS = old
    assert chunked.text == whole.text
    for pos in (0, 17, len(whole.text) // 2, len(whole.text) - 5):
        assert chunked.original_span(pos, pos + 5) == whole.original_span(pos, pos + 5)


# --- stage B finds its matches from candidate starts ----------------------------------------

_normalize_module = sys.modules["vcg_otel.gate.normalize"]


def test_no_whitespace_but_ascii_reaches_the_layout_stage() -> None:
    """Stage B looks for ASCII whitespace only: every other whitespace character is folded to a
    space by stage A, in the translate path, and in what markup decodes (``&nbsp;``)."""
    spaces = [chr(c) for c in range(0x80, 0x110000) if chr(c).isspace()]
    assert len(spaces) == 19  # U+0085, U+00A0, U+1680, U+2000..U+200A, U+2028.., U+3000
    for ch in spaces:
        assert _normalize_module._char_info(ch)[0] == " ", hex(ord(ch))
        assert normalize(f"a{ch}b") == "a b"
        assert normalize_with_map(f"\u00e9{ch}b").text == "\u00e9 b"
    assert normalize("a&nbsp;&#x2003;b") == "a b"


_layout_text = st.lists(st.sampled_from(
    ["a", "b", " ", " ", "  ", "-", "--", "\n", "\r\n", "\r", "\t", "\x0b", "\x0c", "\x1c",
     "\x1f", "1", ".", "\u00e9", "_"]), max_size=16).map("".join)


@settings(max_examples=2000, deadline=None)
@given(text=_layout_text, bounds=st.tuples(st.integers(0, 40), st.integers(0, 40)))
def test_layout_matches_from_candidate_starts_equal_a_full_regex_scan(
    text: str, bounds: tuple[int, int]
) -> None:
    lead, stop = min(bounds[0], len(text)), min(max(bounds), len(text))
    fast = [m.span() for m in _normalize_module._layout_matches(text, lead, stop)]
    full = [m.span() for m in _normalize_module._LAYOUT.finditer(text, lead, stop)]
    assert fast == full


@settings(max_examples=300, deadline=None)
@given(size=st.sampled_from([0, 7, 1023, 1024, 1025, 2500]),
       marks=st.lists(st.tuples(st.integers(0, 2600), st.text(
           st.sampled_from("\u00e9\u03c0\u0301\u00a0\U0001f600"), min_size=1, max_size=4)),
           max_size=6))
def test_non_ascii_runs_found_block_by_block_equal_a_full_regex_scan(
    size: int, marks: list[tuple[int, str]]
) -> None:
    chars = ["a"] * size
    for at, run in marks:
        chars[at:at + len(run)] = run  # may land across a block edge or past the end
    text = "".join(chars)
    full = [m.span() for m in _normalize_module._NON_ASCII_RUN.finditer(text)]
    assert _normalize_module._non_ascii_runs(text) == full


# --- the fast path of normalize(): plain prose skips the markup passes and the layout scan ----

from vcg_otel.gate.markup import (  # noqa: E402
    MARKUP_CHARS,
    markup_edits,
    may_have_markup,
    skippable_edits,
)

# Every character that can start a construct, a skippable run, a line-start marker or a layout
# change, characters that fold into one of them, and pieces of real constructs.
_TRIGGER_ALPHABET = sorted(
    set(MARKUP_CHARS) | set("#>*+-|=`~[ \t\n\r\x0b\x0c\x1c\x1f")
    | {"\uff1c", "\uff06", "\u2019", "\u201c", "\u2014", "\u2013", "\u00a0", "\u00ad",
       "\u2022", "\u2003"}
)
_trigger_text = st.lists(
    st.sampled_from(
        [*_TRIGGER_ALPHABET, "a", "b", "e", "1", "2", ".", ":", "(", ")", "!", " ", "word",
         "&amp;", "&lt;b&gt;", "<b>", "</p>", "<!--", "-->", "](x)", "[1]", "^2", "--", "- ",
         "# ", "> ", "```", "[a]: x", "\\*", "**", "__"]
    ),
    max_size=14,
).map("".join)


def _full_path(text: str) -> str:
    """normalize() with both shortcuts switched off: markup passes and stage B always run."""
    module = _normalize_module
    saved = module.may_have_markup, module._LAYOUT_POSSIBLE
    module.may_have_markup = lambda _text: True
    module._LAYOUT_POSSIBLE = re.compile("")  # always "possible"
    try:
        return module.normalize(text)
    finally:
        module.may_have_markup, module._LAYOUT_POSSIBLE = saved


@settings(max_examples=3000, deadline=None)
@given(text=_trigger_text)
def test_fast_path_of_normalize_equals_the_full_path(text: str) -> None:
    assert normalize(text) == _full_path(text) == normalize_with_map(text).text


@settings(max_examples=3000, deadline=None)
@given(text=_trigger_text)
def test_text_without_markup_characters_has_no_markup_edits(text: str) -> None:
    if may_have_markup(text):
        return
    for html in (False, True):
        for lines in (False, True):
            assert markup_edits(text, html, lines) == []
    assert skippable_edits(text) == []


@settings(max_examples=3000, deadline=None)
@given(text=_layout_text)
def test_text_without_a_possible_layout_match_has_none(text: str) -> None:
    if _normalize_module._LAYOUT_POSSIBLE.search(text) is None:
        assert _normalize_module._LAYOUT.search(text) is None


def test_plain_prose_takes_the_fast_path() -> None:
    prose = "the state-of-the-art model, trained for 3.5 days (on 8 gpus), reached 91.2%."
    assert not may_have_markup(prose)
    assert _normalize_module._LAYOUT_POSSIBLE.search(prose) is None
    assert normalize(prose) == _full_path(prose) == prose


# --- parse_quote finds editorial marks from their first characters ---------------------------

_mark_text = st.lists(
    st.sampled_from(
        ["a", "B", "x", "1", " ", "\t", ".", "..", ". . .", "\u2026", "[", "]", "(", ")",
         "[...]", "(\u2026)", "sic", "SIC", "emphasis added", "citations omitted", "[a]",
         "[T]he", "[the court]", "[^1]", "\n"]
    ),
    max_size=16,
).map("".join)


@settings(max_examples=3000, deadline=None)
@given(text=_mark_text)
def test_editorial_marks_found_from_their_first_characters_equal_a_full_scan(text: str) -> None:
    quote = sys.modules["vcg_otel.gate.quote"]
    full = re.compile(quote._MARKS_BODY, re.IGNORECASE)
    fast = [(m.span(), m.lastgroup) for m in quote.MARKS.finditer(text)]
    assert fast == [(m.span(), m.lastgroup) for m in full.finditer(text)]


@pytest.mark.parametrize(("text", "breaks"), [
    ("one paragraph\nwith lines", False), ("two\n\nparagraphs", True), ("two\n \t\nparas", True),
    ("two\r\n\r\nparas", True), ("two\u2029paras", True), ("\n\n", True), ("a\r\rb", False),
    ("", False), ("a\n\u00a0\nb", True), ("a\n\u2028\nb", True)])
def test_a_paragraph_break_is_a_blank_line_or_u2029_and_is_kept_once_looked_up(
        text: str, breaks: bool) -> None:
    doc = normalize_with_map(text)
    assert doc.has_paragraph_break() is breaks
    assert doc.has_paragraph_break() is breaks  # the kept answer
    assert breaks == (re.search(r"\n[^\S\n]*\n|\r\n[^\S\r\n]*\r\n|\u2029", text) is not None)
