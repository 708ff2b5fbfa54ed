"""The gate's fast path (issue 24) answers exactly what the full path answers.

Case by case over every benchmark suite (plain, markup, PDF, transcription, rejection), and
over quotes hypothesis derives from those cases (derandomized: every run tries the same ones)
by cutting them, changing their case and dropping in the characters that decide whether the
fast path may answer: quotation marks, dashes, brackets, ellipses, soft hyphens, combining
marks, line breaks, markers.
"""

from __future__ import annotations

from functools import cache

import pytest
from cases import Case, build_cases, load_corpus
from hypothesis import given, settings
from hypothesis import strategies as st
from markup_cases import build_markup_cases, load_samples
from pdf_cases import build_pdf_cases
from transcription_cases import build_rejection_cases, build_transcription_cases

from vcg_otel import Corpus
from vcg_otel.gate.api import DEFAULT_MAX_GAP, checked_quote_gate, full_quote_gate
from vcg_otel.gate.fast import fast_found, plain_needle
from vcg_otel.gate.quote import parse_quote
from vcg_otel.gate.search import SearchBudget

Suite = tuple[Corpus, list[tuple[str, str]]]


@cache
def suites() -> dict[str, Suite]:
    """Every accuracy suite of benchmarks/gate_accuracy.py as (corpus, [(quote, cited)])."""
    plain = load_corpus()

    def of(docs: dict[str, str], cases: list[Case]) -> Suite:
        return Corpus(docs), [(c.quote, c.cited) for c in cases]

    markup_docs, markup, _ = build_markup_cases(load_samples())
    rejection_docs, rejected = build_rejection_cases()
    return {
        "plain": of(plain, build_cases(plain)),
        "markup": of(markup_docs, markup),
        "pdf": of(*build_pdf_cases(plain)),
        "transcription": of(*build_transcription_cases()),
        "rejection": (Corpus(rejection_docs), [(q, cited) for _, q, cited in rejected]),
    }


def full(quote: str, cited: str, corpus: Corpus) -> tuple[dict[str, object], int]:
    budget = SearchBudget()
    match = full_quote_gate(quote, cited, corpus, DEFAULT_MAX_GAP, budget)
    return match.to_dict(), budget.used


def gated(quote: str, cited: str, corpus: Corpus) -> tuple[dict[str, object], int]:
    budget = SearchBudget()
    match = checked_quote_gate(quote, cited, corpus, DEFAULT_MAX_GAP, budget)
    return match.to_dict(), budget.used


@pytest.mark.parametrize("suite", ["plain", "markup", "pdf", "transcription", "rejection"])
def test_fast_answers_equal_the_full_path_on_every_suite_case(suite: str) -> None:
    corpus, cases = suites()[suite]
    answered = 0
    for quote, cited in cases:
        budget = SearchBudget()
        fast = fast_found(quote, cited, corpus, budget)
        if fast is None:
            assert budget.used == 0, quote  # a fall-through leaves the budget as it was
            continue
        answered += 1
        assert (fast.to_dict(), budget.used) == full(quote, cited, corpus), quote
    if suite in ("plain", "pdf"):
        assert answered  # the common quote of these suites does take the fast path


@pytest.mark.parametrize("mode", ["smart_typography", "whitespace_noise", "hyphen_linebreak"])
def test_quotes_only_laid_out_get_their_needle_without_normalizing(mode: str) -> None:
    """Curly quotation marks around the quote, line breaks and runs of spaces, a hyphen at a
    line break: nine in ten found quotes of these benchmark modes get their needle from the
    fold alone (the others hold a dash, an inner quotation mark or a bracket), and it is
    the parse's."""
    found = [c.quote for c in build_cases(load_corpus())
             if c.mode == mode and c.expected == "found"]
    short = 0
    for quote in found:
        needle = plain_needle(quote)
        if needle is not None:
            short += 1
            assert needle == parse_quote(quote).needle, quote
    assert short >= 0.9 * len(found)


def test_the_plain_needle_is_the_parsed_needle() -> None:
    for quote, _ in suites()["plain"][1]:
        needle = plain_needle(quote)
        if needle is not None:
            parsed = parse_quote(quote)
            assert (parsed.needle, parsed.pieces, parsed.elided) == (needle, (needle,), False)


def test_a_fall_through_leaves_a_shared_budget_as_it_was() -> None:
    corpus = Corpus({"d": "alpha beta gamma delta", "e": "beta gamma"})
    budget = SearchBudget(steps=100)
    budget.spend(7)
    assert fast_found("gamma delta epsilon", "d", corpus, budget) is None
    assert fast_found("beta's gamma", "d", corpus, budget) is None  # not plain
    assert fast_found("bet", "d", corpus, budget) is None  # inside a word
    assert budget.used == 7


_DROPPED_IN = st.sampled_from(
    ["'", '"', "-", "--", " - ", "(", ")", "[", "]", "\u2026", "...", "\u00ad", "\u0301", "\n",
     "\t", "  ", "#", "* ", "_", "|", "\u2019", "\u2014", "\u00a0", "\ufb01", "\u0430", "1,204",
     "&amp;", "<b>", "[sic]", "(emphasis added)", ",", ";", ":", ".", "-\n", "- \n ", "\n-",
     "\n# ", "\n> ", " \n  ", "\u201c", "\u201d", "\u2018", "'s"])
_WRAPS = st.sampled_from([("", ""), ("\u201c", "\u201d"), ("\u2018", "\u2019"), ('"', '"'),
                          ("'", "'"), ("\u201c", ".\u201d"), ("\n", " \n")])


@st.composite
def derived_quote(draw: st.DrawFn) -> tuple[str, str, str]:
    suite = draw(st.sampled_from(["plain", "markup", "pdf", "transcription"]))
    _, cases = suites()[suite]
    quote, cited = draw(st.sampled_from(cases))
    words = quote.split(" ")
    lo = draw(st.integers(0, max(0, len(words) - 1)))
    hi = draw(st.integers(lo + 1, len(words)))
    cut = " ".join(words[lo:hi])
    if draw(st.booleans()):
        at = draw(st.integers(0, len(cut)))
        cut = cut[:at] + draw(_DROPPED_IN) + cut[at:]
    before, after = draw(_WRAPS)
    cut = before + cut + after
    case = draw(st.sampled_from(["as is", "upper", "lower"]))
    cut = cut.upper() if case == "upper" else cut.lower() if case == "lower" else cut
    return suite, cut, cited


@settings(derandomize=True, database=None, max_examples=800, deadline=None)
@given(derived_quote())
def test_derived_quotes_get_the_full_paths_answer(drawn: tuple[str, str, str]) -> None:
    suite, quote, cited = drawn
    corpus = suites()[suite][0]
    assert gated(quote, cited, corpus) == full(quote, cited, corpus)


# Marks as answers write them: ellipses of every spelling (between pieces, leading,
# trailing), annotations, a bracketed change of case, and (left to the full path) insertions.
_ELLIPSES = st.sampled_from(["\u2026", " \u2026 ", "...", " ... ", ". . .", " [...] ", " [\u2026] ",
                             " (...) ", "....", " \u2026", "\u2026 "])
_NOTES = st.sampled_from([" [sic] ", " (sic) ", " [SIC] ", " (emphasis added) ", " [sic]",
                          " [emphasis mine] "])


@st.composite
def marked_quote(draw: st.DrawFn) -> tuple[str, str, str]:
    """A quote of a benchmark suite, cut and marked: words dropped at an ellipsis (or two),
    an ellipsis before or after, an annotation, a change of case, an insertion; sometimes
    with words out of order or from another quote (then not found as marked)."""
    suite = draw(st.sampled_from(["plain", "plain", "markup", "pdf", "transcription"]))
    _, cases = suites()[suite]
    quote, cited = draw(st.sampled_from(cases))
    words = quote.split(" ")
    marked: list[str] = []
    i = 0
    while i < len(words):
        step = draw(st.integers(1, 6))
        marked.append(" ".join(words[i:i + step]))
        i += step
        if i < len(words):
            kind = draw(st.sampled_from(["ellipsis", "ellipsis", "keep", "keep", "keep", "note",
                                         "case", "insertion", "skip far"]))
            if kind == "ellipsis":
                i += draw(st.integers(1, 4))
                marked.append(draw(_ELLIPSES))
            elif kind == "note":
                marked.append(draw(_NOTES))
            elif kind == "case" and i < len(words) and words[i][:1].isalpha():
                word = words[i]
                marked.append(f" [{word[0].swapcase()}]{word[1:]}")
                i += 1
            elif kind == "insertion":
                marked.append(draw(st.sampled_from([" [the model] ", " [, ] ", " [it] "])))
            elif kind == "skip far":
                i += draw(st.integers(5, 60))
                marked.append(" \u2026 ")
            else:
                marked.append(" ")
    text = "".join(marked)
    if draw(st.integers(0, 3)) == 0:
        text = draw(_ELLIPSES).lstrip() + text
    if draw(st.integers(0, 3)) == 0:
        text += draw(_ELLIPSES).rstrip()
    if draw(st.integers(0, 7)) == 0:
        half = len(text) // 2
        text = text[half:] + " \u2026 " + text[:half]  # out of order
    before, after = draw(_WRAPS)
    return suite, before + text + after, cited


def checked_both_ways(quote: str, cited: str, corpus: Corpus, used: int, limit: int,
                      deadline: bool) -> tuple[tuple[object, ...], tuple[object, ...]]:
    """checked_quote_gate's and full_quote_gate's answers, and the state each leaves a
    shared budget in (steps used, the next look at the deadline)."""
    outcomes = []
    for gate in (checked_quote_gate, full_quote_gate):
        budget = SearchBudget(limit, _NeverExpires() if deadline else None)
        budget.used = used
        match = gate(quote, cited, corpus, DEFAULT_MAX_GAP, budget)
        outcomes.append((match.to_dict(), budget.used, budget.next_look))
    return outcomes[0], outcomes[1]


class _NeverExpires:
    def expired(self) -> bool:
        return False


@settings(derandomize=True, database=None, max_examples=1500, deadline=None)
@given(marked_quote(), st.sampled_from([(0, 10_000), (0, 10_000), (0, 3), (1020, 10_000),
                                        (5, 6), (0, 10_000)]),
       st.booleans())
def test_marked_quotes_get_the_full_paths_answer(drawn: tuple[str, str, str],
                                                  budget: tuple[int, int],
                                                  deadline: bool) -> None:
    """Found or not, cut short by a shared budget or not, with a deadline to look at or
    not: the fast path for marked quotes gives the full path's answer, and leaves the
    budget as the full path leaves it."""
    suite, quote, cited = drawn
    fast, full_answer = checked_both_ways(quote, cited, suites()[suite][0], *budget, deadline)
    assert fast == full_answer, quote


def test_most_marked_benchmark_quotes_take_the_fast_path() -> None:
    """The property above would prove little if the fast path never answered: the
    benchmark's marked found quotes (ellipsis, leading ellipsis, [sic], [T]he) mostly do,
    and every one it answers is the full path's answer."""
    corpus, _ = suites()["plain"]
    marked = [c for c in build_cases(load_corpus())
              if c.mode in ("ellipsis", "sic", "leading_ellipsis", "bracket_capital")
              and c.expected == "found"]
    answered = 0
    for case in marked:
        budget = SearchBudget()
        fast = fast_found(case.quote, case.cited, corpus, budget)
        if fast is not None:
            answered += 1
            assert (fast.to_dict(), budget.used) == full(case.quote, case.cited, corpus)
    assert answered >= 0.9 * len(marked)
