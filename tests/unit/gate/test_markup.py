"""A reader's view: quotes of rendered Markdown, HTML and PDF text are found in the raw chunk,
and markup tolerance never rescues a fabrication."""

from __future__ import annotations

import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vcg_otel import Corpus, normalize, quote_gate
from vcg_otel.gate import normalize_with_map

# The table: raw document text, and the quote a reader of the rendered text writes.
READER_QUOTES = [
    ("The results are **statistically significant** across all three cohorts.",
     "The results are statistically significant across all three cohorts"),
    ("See the [installation guide](https://x.y/install) for supported platforms and versions.",
     "See the installation guide for supported platforms and versions"),
    ("This is _not_ a recommendation to stop treatment early.",
     "This is not a recommendation to stop treatment early"),
    ("Revenue grew 12% year over year &amp; margins held steady in Q3.",
     "Revenue grew 12% year over year & margins held steady in Q3"),
    ("<p>The committee <b>approved</b> the budget on Monday.</p>",
     "The committee approved the budget on Monday"),
    ("Mortality fell by 30%[12] in the treated group over five years.",
     "Mortality fell by 30% in the treated group over five years"),
    ("| aspirin | 100 mg daily for adults over 50 |", "aspirin 100 mg daily for adults over 50"),
    ("Call read config file to load the settings", "Call read_config_file to load the settings"),
    ("The plan is free for students and teachers",
     'The plan is "free" for students and teachers'),
    # more of CommonMark and GFM
    ("Use ~~the old~~ the new `load()` call", "Use the old the new load() call"),
    ("see [the guide][guide] first\n\n[guide]: https://x.y/g \"Guide\"", "see the guide first"),
    ("see [the guide] first\n\n[the guide]: https://x.y/g", "see the guide first"),
    ("visit <https://example.org/docs> today", "visit https://example.org/docs today"),
    ("[![build](https://ci/badge.svg)](https://ci) passing", "build passing"),
    ("## Installation\n\n- install it\n- run `tool --help`",
     "Installation install it run tool --help"),
    ("> quoted advice\n> continues here", "quoted advice continues here"),
    ("| name | dose |\n|:-----|-----:|\n| aspirin | 100 mg |", "name dose aspirin 100 mg"),
    ("Escape \\*stars\\* and \\_underscores\\_ here", "Escape stars and underscores here"),
    ("as shown before[^1] in trials\n\n[^1]: The note.", "as shown before in trials"),
    ("text with <span class=\"x\">inline</span> HTML", "text with inline HTML"),
    ("reported by Smith^12 in 2019", "reported by Smith in 2019"),
    ("as in earlier work[3, 4] and later[5-7].", "as in earlier work and later"),
    ("use `TypedDict`s and `attrs`'s API", "use TypedDicts and attrs's API"),
    ("**MAJOR**.**MINOR**.**PATCH**", "MAJOR.MINOR.PATCH"),
    ("> removed as of tinytag\n> 2.0.0, in the future",
     "removed as of tinytag 2.0.0, in the future"),
    ("thanks to [markdown-it]: the authors\n\n[markdown-it]: https://x.y",
     "thanks to markdown-it: the authors"),
    # HTML
    ("<html><head><style>p {color: red}</style><script>var x = 1;</script></head>"
     "<body><p>Caf&eacute; prices rose &#8212; by 4&nbsp;%.</p></body></html>",
     "Café prices rose — by 4 %"),
    ("<ul><li>first item</li><li>second item</li></ul>", "first item second item"),
    ("<p>First paragraph ends.</p><p>Second begins here.</p>",
     "First paragraph ends. Second begins here"),
    ("<pre>$ make\n# comment stays\n- dash stays</pre><p>x</p><p>y</p><p>z</p>",
     "$ make # comment stays - dash stays"),
    # PDF extraction damage
    ("planning for Long-\n-horizon tasks", "planning for Long-horizon tasks"),
    ("\u2022 first point\n\u2022 second point", "first point second point"),
    ("a \u201cfree\u201d plan", "a free plan"),
]


@pytest.mark.parametrize(("doc", "quote"), READER_QUOTES)
def test_a_quote_of_the_rendered_text_is_found_in_the_raw_chunk(doc: str, quote: str) -> None:
    m = quote_gate(quote, "d", {"d": doc, "other": "unrelated text"})
    assert m == "found", (doc, quote)
    assert m.start is not None and m.end is not None
    assert m.text == doc[m.start:m.end]  # the raw passage, offsets in the raw original


@pytest.mark.parametrize(
    ("doc", "quote"),
    [
        ("The results are **statistically significant** across all three cohorts.",
         "The results are **statistically significant** across"),
        ("Run `pip install tool` to start", "Run `pip install tool` to start"),
        ("See the [guide](https://x.y) now", "See the [guide](https://x.y) now"),
        ("Mortality fell by 30%[12] in the treated group", "fell by 30%[12] in the treated"),
        ("<b>bold</b> claim here", "<b>bold</b> claim here"),
    ],
)
def test_a_quote_that_keeps_some_markup_still_matches(doc: str, quote: str) -> None:
    assert quote_gate(quote, "d", {"d": doc}) == "found"


def test_offsets_cover_markup_inside_the_span_and_not_outside() -> None:
    doc = "Intro. The results are **statistically significant** across cohorts. End."
    m = quote_gate("statistically significant across cohorts", "d", {"d": doc})
    assert m.text == "statistically significant** across cohorts"
    m = quote_gate("are statistically significant", "d", {"d": doc})
    assert m.text == "are **statistically significant"
    link = "Read [the installation guide](https://x.y/install) first."
    m = quote_gate("the installation guide first", "d", {"d": link})
    assert m.text == "the installation guide](https://x.y/install) first"


def test_offsets_map_through_entities_and_tags() -> None:
    doc = "<p>Revenue grew 12% &amp; margins <em>held</em> steady.</p>"
    nt = normalize_with_map(doc)
    assert nt.text == "revenue grew 12% & margins held steady."
    start = nt.text.index("& margins held")
    o_start, o_end = nt.original_span(start, start + len("& margins held"))
    assert doc[o_start:o_end] == "&amp; margins <em>held"


# --- what carries meaning stays significant ------------------------------------------------

MEANING_DOC = (
    "## Results\n\nIn the **treated** group, mortality fell by **3.5%**[12] over *five* years; "
    "the effect was _not_ seen in controls. The dose was **-2.5 mg/kg** at a cost of "
    "**$40** per patient, and the trial is [registered](https://x.y/t) in **2019**."
)


@pytest.mark.parametrize(
    ("name", "quote"),
    [
        ("changed digit", "mortality fell by 3.6% over five years"),
        ("dropped decimal point", "mortality fell by 35% over five years"),
        ("changed percent", "mortality fell by 3.5 over five years"),
        ("dropped minus sign", "The dose was 2.5 mg/kg at a cost of"),
        ("changed unit", "The dose was -2.5 mg/lb at a cost of"),
        ("changed currency", "at a cost of €40 per patient"),
        ("swapped words", "In the treated group, mortality fell by 3.5% over years five"),
        ("inserted not", "the effect was not not seen in controls"),
        ("dropped not", "the effect was seen in controls"),
        ("changed year", "the trial is registered in 2018"),
        ("frankenquote", "In the treated group, mortality was not seen in controls"),
    ],
)
def test_markup_tolerance_never_rescues_a_fabrication(name: str, quote: str) -> None:
    assert quote_gate(quote, "d", {"d": MEANING_DOC}) == "not_found", name


def test_a_fabrication_that_is_really_elsewhere_is_misattributed() -> None:
    docs = {"a": MEANING_DOC, "b": "Other text: the effect was **not** seen in controls."}
    m = quote_gate("the effect was not seen in controls", "b", docs)
    assert m == "found"
    m = quote_gate("mortality fell by 3.5% over five years", "b", docs)
    assert m == "misattributed" and m.source_document_ids == ("a",)


@pytest.mark.parametrize(
    ("doc", "quote"),
    [
        ("Table [2] shows 12 patients", "Table shows 12 patients"),  # standing alone: text
        ("then x[3] = 5 holds", "then x = 5 holds"),  # code: an index is text
        ("call sys.argv[1] here", "call sys.argv[2] here"),
        ("call f(x)[1] here", "call f(x) here"),
        ("runs in O(n^2) time", "runs in O(n) time"),  # an exponent is text
        ("the Skill^2-Bench suite", "the Skill-Bench suite"),
        ("match [^0-9] only", "match only"),  # a regular expression, not a footnote
        ("costs ~30% more", "costs 30% more"),  # "approximately" is meaning
        ("a 12\" screen", "a 12' screen"),  # inches are not feet
        ("a 2*3 grid", "a 23 grid"),
        ("values |x| < 1 hold", "values x < 1 hold"),
    ],
)
def test_only_markers_and_markup_are_skipped_never_text(doc: str, quote: str) -> None:
    assert quote_gate(quote, "d", {"d": doc}) == "not_found", (doc, quote)


def test_code_in_fences_keeps_its_line_starts() -> None:
    doc = "Example:\n\n```python\nx = load()\n# comment here\n- not a list\n```\n\nDone."
    assert quote_gate("x = load() # comment here - not a list", "d", {"d": doc}) == "found"


def test_html_lines_are_not_markdown() -> None:
    doc = ("<p>If the\n+ indicator is removed from the example, make warns.</p>"
           "<p>a</p><p>b</p><p>c</p>")
    assert quote_gate("If the + indicator is removed", "d", {"d": doc}) == "found"
    assert quote_gate("If the indicator is removed", "d", {"d": doc}) == "not_found"


def test_script_and_style_contents_are_dropped() -> None:
    doc = "<p>Before</p><script>var secret = 'text';</script><style>p{}</style><p>After</p>"
    assert normalize(doc) == "before after"


# --- properties ---------------------------------------------------------------------------

_WORDS = ("alpha", "beta", "gamma", "delta", "omega", "sigma", "kappa", "theta", "not", "dose",
          "3.5", "-2", "12%", "$40", "mg", "2019", "0.05")


def _decorate(word: str, style: int) -> str:
    """``word`` as raw Markdown/HTML that renders as ``word``."""
    if not word[0].isalpha():
        return (f"**{word}**", f"<b>{word}</b>", f"`{word}`", word)[style % 4]
    cited = f"{word}[{style + 1}]" if len(word) >= 3 else word  # markers glue to words
    return (word, f"**{word}**", f"_{word}_", f"`{word}`", f"[{word}](https://x.y/{style})",
            f"<em>{word}</em>", f"~~{word}~~", cited)[style % 8]


@st.composite
def _documents(draw: st.DrawFn) -> tuple[list[str], str]:
    words = draw(st.lists(st.sampled_from(_WORDS), min_size=8, max_size=30))
    styles = draw(st.lists(st.integers(0, 7), min_size=len(words), max_size=len(words)))
    raw = " ".join(_decorate(w, s) for w, s in zip(words, styles, strict=True))
    return words, raw


_SETTINGS = settings(max_examples=300, deadline=None, derandomize=True,
                     suppress_health_check=list(HealthCheck))


@_SETTINGS
@given(_documents(), st.data())
def test_every_rendered_passage_is_found_in_the_raw_markup(
    doc: tuple[list[str], str], data: st.DataObject
) -> None:
    words, raw = doc
    i = data.draw(st.integers(0, len(words) - 3))
    j = data.draw(st.integers(i + 3, len(words)))
    quote = " ".join(words[i:j])
    assert quote_gate(quote, "d", {"d": raw}) == "found", (raw, quote)


def _mutations(quote: list[str]) -> list[list[str]]:
    out = []
    for k, word in enumerate(quote):
        if any(c.isdigit() for c in word):
            digit = next(c for c in word if c.isdigit())
            out.append([*quote[:k], word.replace(digit, str((int(digit) + 1) % 10), 1),
                        *quote[k + 1:]])
        if word.startswith("-"):
            out.append([*quote[:k], word[1:], *quote[k + 1:]])
        if word == "not":
            out.append([*quote[:k], *quote[k + 1:]])
        else:
            out.append([*quote[:k], "not", *quote[k:]])
        if k + 1 < len(quote) and quote[k] != quote[k + 1]:
            out.append([*quote[:k], quote[k + 1], quote[k], *quote[k + 2:]])
    return out


@_SETTINGS
@given(_documents(), st.data())
def test_markup_removal_never_makes_a_mutated_quote_match(
    doc: tuple[list[str], str], data: st.DataObject
) -> None:
    """Whatever the gate finds in the raw markup it also finds in the rendered text: markup
    adds no match (and a mutation that is not in the rendered text is not found at all)."""
    words, raw = doc
    i = data.draw(st.integers(0, len(words) - 3))
    j = data.draw(st.integers(i + 3, len(words)))
    rendered = " ".join(words)
    for mutated in _mutations(words[i:j]):
        quote = " ".join(mutated)
        if quote_gate(quote, "d", {"d": raw}) == "found":
            assert quote_gate(quote, "d", {"d": rendered}) == "found", (raw, quote)


_MARKUP_PIECES = st.sampled_from([
    "*", "**", "_", "`", "~~", "~", "|", "#", "# ", "> ", "- ", "+ ", "\n", "\n\n", " ", "[",
    "]", "(", ")", "](", "![", "[^1]", "[12]", "^3", "&amp;", "&lt;", "&gt;", "&#38;", "&", ";",
    "<b>", "</b>", "<p>", "</p>", "<!--", "-->", "<script>", "</script>", "\\", "'", '"', "3",
    "5.2", "-", "--", "a", "word", "x", "\u00e9", "\u00a0", "\u2022", "```", "```py", "\t",
    ":", "[x]: u", "lt;", "amp;", "<", ">", "=", "===", "|---|", "    ",
])


@settings(max_examples=3000, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(st.lists(_MARKUP_PIECES, max_size=14), st.integers(0, 60), st.integers(0, 60))
def test_normalization_of_markup_is_idempotent_and_maps_inside_the_original(
    pieces: list[str], a: int, b: int
) -> None:
    text = "".join(pieces)
    once = normalize(text)
    assert normalize(once) == once
    nt = normalize_with_map(text)
    assert nt.text == once
    lo, hi = sorted((min(a, len(once)), min(b, len(once))))
    start, end = nt.original_span(lo, hi)
    assert 0 <= start <= end <= len(text)


def test_a_corpus_of_mixed_formats_needs_no_configuration() -> None:
    corpus = Corpus({
        "md": "# Title\n\nThe **new** method [works](https://x.y) well.",
        "html": "<p>The committee <b>approved</b> the budget.</p>",
        "pdf": "A plan that is free for stu-\ndents and teachers.",
        "text": "Plain prose without any markup at all.",
    })
    assert quote_gate("The new method works well", "md", corpus) == "found"
    assert quote_gate("The committee approved the budget", "html", corpus) == "found"
    assert quote_gate('a plan that is "free" for students', "pdf", corpus) == "found"
    assert quote_gate("The committee approved the budget", "md", corpus) == "misattributed"


def test_long_markdown_is_cut_into_chunks_between_paragraphs(
        monkeypatch: pytest.MonkeyPatch) -> None:
    module = sys.modules["vcg_otel.gate.normalize"]
    paragraph = "See [the guide for part {n}](https://x.y/{n}) and **more** about it.\n\n"
    text = "".join(paragraph.format(n=n) for n in range(3 * module.CHUNK_CHARS // len(paragraph)))
    chunked = normalize_with_map(text)
    monkeypatch.setattr(module, "CHUNK_CHARS", 10**12)  # one chunk: the reference
    whole = normalize_with_map(text)
    assert chunked.text == whole.text
    assert "](" not in chunked.text
    start = chunked.text.index("see the guide for part 2000")
    o_start, o_end = chunked.original_span(start, start + len("see the guide for part 2000"))
    assert text[o_start:o_end] == "See [the guide for part 2000"


@pytest.mark.parametrize(
    "hostile",
    ["a](" * 20000, "word" + "[1]" * 20000, "<!--" * 16000, "<script>" * 8000,
     "[x](" * 16000, "abc[^1]" * 9000, "&amp;" * 13000 + "lt;"],
)
def test_hostile_markup_costs_linear_work(hostile: str) -> None:
    """Thousands of link openings with no target, comments and scripts with no end: every
    scan is bounded or remembered (quadratic before: "a](" * 20000 took 3 s). One chunk
    each (at most 64 kB), so idempotence holds exactly."""
    once = normalize(hostile)
    assert normalize(once) == once
