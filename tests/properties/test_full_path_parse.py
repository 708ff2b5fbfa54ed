"""The full path parses a quote without marks as the needle the fast path has just read.

:func:`vcg_otel.gate.api.full_quote_gate` runs after the fast path missed. For a quote without
editorial marks it builds the parse (:func:`~vcg_otel.gate.quote.unmarked_parse`) from
:func:`~vcg_otel.gate.fast.unmarked_needle` (which
keeps its last answer) instead of parsing the quote again. Checked here, derandomized: that
parse is :func:`~vcg_otel.gate.quote.parse_quote`'s for the benchmark's quotes and for text
with every kind of mark, and the kept answer is never another quote's.
"""

from __future__ import annotations

from cases import build_cases, load_corpus
from hypothesis import given, settings
from hypothesis import strategies as st

from vcg_otel.gate.fast import unmarked_needle
from vcg_otel.gate.quote import parse_quote, unmarked_parse

_QUOTES = [c.quote for c in build_cases(load_corpus())]
# Words, spaces and every character an editorial mark or the normalization reads.
_PIECES = st.sampled_from(["word", "Two", "1,204", " ", "  ", "\n", "...", ". . .", "\u2026",
                           "[", "]", "(", ")", "[sic]", "[T]he", "(emphasis added)", "\"",
                           "\u201c", "'", "-", "\u2014", "\u00ad", ",", ".", "\u0430"])


def _same_parse(quote: str) -> None:
    needle = unmarked_needle(quote)
    if needle is not None:
        built = unmarked_parse(needle)  # what full_quote_gate builds from it
        assert built == parse_quote(quote), quote


def test_every_benchmark_quote_without_marks_is_parsed_as_parse_quote_parses_it() -> None:
    for quote in _QUOTES:
        _same_parse(quote)
    assert sum(unmarked_needle(q) is not None for q in _QUOTES) > len(_QUOTES) / 2


@settings(derandomize=True, database=None, max_examples=3000, deadline=None)
@given(pieces=st.lists(_PIECES, max_size=12))
def test_any_text_without_marks_is_parsed_as_parse_quote_parses_it(pieces: list[str]) -> None:
    _same_parse("".join(pieces))


def test_the_kept_needle_is_the_needle_of_the_quote_asked_for() -> None:
    a, b = "\u201cThe results hold.\u201d", "the results [sic] hold"
    same_text = "".join(["\u201cThe results ", "hold.\u201d"])
    assert same_text == a and same_text is not a
    for quote in (a, a, b, a, same_text, b, b, "", "...", a):
        assert unmarked_needle(quote) == (
            None if "[" in quote or not any(c.isalnum() for c in quote)
            else parse_quote(quote).needle), quote
