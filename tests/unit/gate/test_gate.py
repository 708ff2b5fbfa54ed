"""quote_gate: every named failure mode, elided quotes, offsets and bad input."""

from __future__ import annotations

import json

import pytest

from vcg_otel import Corpus, quote_gate
from vcg_otel.gate import GateResult, NotFoundReason

DOCS = {
    "paper": (
        "We evaluate retrieval-augmented generation on three benchmarks. "
        "The proposed reranker improves accuracy by 4.2% over the baseline, "
        "although gains shrink on long documents.\n\n"
        "In a second study, the model may overfit when data is scarce."
    ),
    "blog": "Cats sleep for most of the day. Dogs, by contrast, are awake far longer.",
    "ru": "\u041c\u043e\u0434\u0435\u043b\u044c \u043f\u043e\u043a\u0430\u0437\u0430\u043b\u0430 "
    "\u0432\u044b\u0441\u043e\u043a\u0443\u044e \u0442\u043e\u0447\u043d\u043e\u0441\u0442\u044c.",
    "zh": "\u6211\u4eec\u63d0\u51fa\u4e86\u4e00\u79cd\u65b0\u7684\u68c0\u7d22\u65b9\u6cd5\uff0c"
    "\u5b83\u663e\u8457\u63d0\u9ad8\u4e86\u51c6\u786e\u7387\u3002",
    "fr": "L'\u00e9tude montre une am\u00e9lioration nette des r\u00e9sultats.",
}


def gate(quote: str, doc: str = "paper") -> object:
    return quote_gate(quote, doc, DOCS)


def test_exact_quote_is_found_with_original_offsets() -> None:
    quote = "improves accuracy by 4.2% over the baseline"
    m = quote_gate(quote, "paper", DOCS)
    assert m == "found" and m.result is GateResult.FOUND
    assert m.start is not None and m.end is not None
    assert DOCS["paper"][m.start:m.end] == quote == m.text
    assert m.document_id == "paper" and not m.elided


def test_fabricated_quote_is_not_found() -> None:
    m = quote_gate("the reranker halves latency on every benchmark", "paper", DOCS)
    assert m == "not_found"
    assert m.reason is NotFoundReason.NO_MATCH
    assert m.start is None and m.document_id is None


def test_frankenquote_of_two_real_halves_is_not_found() -> None:
    assert gate("The proposed reranker improves accuracy when data is scarce") == "not_found"


def test_misattributed_real_quote_names_its_true_source() -> None:
    m = quote_gate("Dogs, by contrast, are awake far longer", "paper", DOCS)
    assert m == "misattributed"
    assert m.source_document_ids == ("blog",) and m.document_id == "blog"
    assert m.text == DOCS["blog"][m.start:m.end]  # type: ignore[misc]


def test_unknown_document_with_real_quote_is_misattributed() -> None:
    m = quote_gate("Cats sleep for most of the day", "no-such-doc", DOCS)
    assert m == "misattributed" and m.source_document_ids == ("blog",)


def test_unknown_document_with_fabricated_quote_is_not_found() -> None:
    m = quote_gate("Cats never sleep", "no-such-doc", DOCS)
    assert m == "not_found" and m.reason is NotFoundReason.UNKNOWN_DOCUMENT


@pytest.mark.parametrize("quote", ["", "   ", "...", "\u201c\u201d", "\u2014 ; !", "\u200b"])
def test_empty_or_punctuation_only_quote_fails_closed(quote: str) -> None:
    m = gate(quote)
    assert m == "not_found" and m.reason is NotFoundReason.EMPTY_QUOTE


def test_changed_number_or_percent_is_not_found() -> None:
    assert gate("improves accuracy by 4.2%") == "found"
    assert gate("improves accuracy by 4.3%") == "not_found"
    assert gate("improves accuracy by 42%") == "not_found"
    assert gate("improves accuracy by 4") == "not_found"  # a number cut short
    assert gate("improves accuracy by 4.2") == "not_found"  # the % dropped


_DOSE = {"d": "Mice received -2.5 mg/kg at night; the control arm got (\u22121.5 mg/kg) at dawn "
              "and the third arm 10-20 mg/kg of COVID-19 serum."}


@pytest.mark.parametrize("quote", ["2.5 mg/kg at night", "1.5 mg/kg", ".5 mg/kg at night"])
def test_quote_that_drops_a_minus_sign_is_not_found(quote: str) -> None:
    assert quote_gate(quote, "d", _DOSE) == "not_found"


def test_signed_numbers_and_hyphens_that_join_still_match() -> None:
    assert quote_gate("-2.5 mg/kg at night", "d", _DOSE) == "found"
    assert quote_gate("received \u22122.5 mg/kg", "d", _DOSE) == "found"  # U+2212 = hyphen-minus
    assert quote_gate("\u22121.5 mg/kg", "d", _DOSE) == "found"
    assert quote_gate("10-20 mg/kg of COVID-19 serum", "d", _DOSE) == "found"


@pytest.mark.parametrize("quote", ["20 mg/kg of COVID-19 serum", "19 serum", "third arm 10"])
def test_quote_that_cuts_a_range_or_compound_in_two_is_not_found(quote: str) -> None:
    # "20" of "10-20" is another dose, as "fatal" of "non-fatal" is another word (issue 18)
    assert quote_gate(quote, "d", _DOSE) == "not_found"


def test_quote_cut_inside_a_word_is_not_found() -> None:
    assert gate("mproves accuracy") == "not_found"
    assert gate("improves accura") == "not_found"


def test_cyrillic_text_matches_in_any_case() -> None:
    upper = "ПОКАЗАЛА ВЫСОКУЮ"
    changed = "показала низкую"  # "высокую" (high) changed to "низкую" (low)
    assert gate(upper, "ru") == "found"  # upper case against lower-case text
    assert gate(changed, "ru") == "not_found"


def test_cjk_quote_without_spaces_is_found_and_fabrication_is_not() -> None:
    assert gate("\u5b83\u663e\u8457\u63d0\u9ad8\u4e86\u51c6\u786e\u7387", "zh") == "found"
    assert gate("\u5b83\u663e\u8457\u964d\u4f4e\u4e86\u51c6\u786e\u7387", "zh") == "not_found"


def test_accented_latin_and_combining_marks_match_but_accents_matter() -> None:
    assert gate("une ame\u0301lioration nette", "fr") == "found"
    assert gate("UNE AM\u00c9LIORATION NETTE", "fr") == "found"
    assert gate("une amelioration nette", "fr") == "not_found"


def test_soft_hyphen_inside_a_word_is_repaired() -> None:
    assert gate("retrieval-aug\u00admented gene\u00adration") == "found"


def test_hyphen_line_break_inside_a_word_is_repaired() -> None:
    assert gate("The proposed rerank-\ner improves") == "found"


def test_look_alike_letters_are_repaired() -> None:
    assert gate("Th\u0435 pr\u043e\u0440\u043esed reranker") == "found"


def test_repairs_never_rescue_a_fabrication() -> None:
    # Every repair applied at once to a quote whose words were changed still fails.
    assert gate("Th\u0435 pro\u00adposed re-\nranker  w\u043ersens accuracy") == "not_found"
    assert gate("\u201cimproves accuracy by 5.2%\u201d") == "not_found"
    assert gate("IMPROVES ACCURACY BY 4.2% OVER THE \ufb01NAL BASELINE") == "not_found"


def test_typography_and_whitespace_noise_are_accepted() -> None:
    m = gate("\u201cThe  proposed\nreranker improves accuracy by 4.2%\u00a0over the baseline,\u201d"
             )
    assert m == "found"
    assert m.text == "The proposed reranker improves accuracy by 4.2% over the baseline"  # type: ignore[attr-defined]


# --- elided quotes -------------------------------------------------------------------------


@pytest.mark.parametrize("mark", ["\u2026", "...", ". . .", "[\u2026]", "[...]", "(...)"])
def test_ellipsis_between_pieces_is_accepted_and_spans_the_omission(mark: str) -> None:
    m = gate(f"The proposed reranker {mark} although gains shrink")
    assert m == "found" and m.elided  # type: ignore[attr-defined]
    assert m.text.startswith("The proposed reranker improves")  # type: ignore[attr-defined]
    assert m.text.endswith("although gains shrink")  # type: ignore[attr-defined]
    assert len(m.pieces) == 2  # type: ignore[attr-defined]


def test_leading_and_trailing_ellipsis_are_accepted() -> None:
    assert gate("\u2026 improves accuracy by 4.2% over the baseline \u2026") == "found"
    assert gate("[...] gains shrink on long documents") == "found"


@pytest.mark.parametrize(
    "quote",
    [
        "the model [the reranker] may overfit",
        "the model may overfit [sic] when data is scarce",
        "the model may overfit when data is scarce (emphasis added)",
        "[T]he proposed reranker improves accuracy",
        "[I]n a second study, the model may overfit",
    ],
)
def test_bracketed_insertions_and_capitalisation_are_accepted(quote: str) -> None:
    assert gate(quote) == "found"


def test_elided_pieces_out_of_order_fail() -> None:
    assert gate("although gains shrink \u2026 The proposed reranker") == "not_found"


def test_elided_pieces_from_two_documents_fail() -> None:
    assert gate("The proposed reranker \u2026 are awake far longer") == "not_found"


def test_elision_across_a_paragraph_break_fails() -> None:
    assert gate("gains shrink \u2026 the model may overfit") == "not_found"


def test_elision_longer_than_max_gap_fails_and_max_gap_is_configurable() -> None:
    quote = "We evaluate retrieval-augmented generation \u2026 gains shrink on long documents"
    assert quote_gate(quote, "paper", DOCS) == "found"
    assert quote_gate(quote, "paper", DOCS, max_gap=40) == "not_found"


def test_frankenquote_with_an_ellipsis_inside_one_passage_is_elided_not_fabricated() -> None:
    m = gate("We evaluate \u2026 over the baseline")
    assert m == "found" and m.elided  # type: ignore[attr-defined]


def test_elided_quote_found_only_elsewhere_is_misattributed() -> None:
    m = quote_gate("Cats sleep \u2026 are awake far longer", "paper", DOCS)
    assert m == "misattributed" and m.source_document_ids == ("blog",)


# --- results and input ---------------------------------------------------------------------


def test_gate_result_compares_equal_to_plain_strings() -> None:
    m = gate("improves accuracy")
    assert m == "found" and m != "not_found" and "found" == m  # noqa: SIM300
    assert m in {"found", "partial"} and m in ("found",)
    assert str(m) == "found" and f"{m}" == "found"
    assert GateResult.MISATTRIBUTED == "misattributed"
    assert json.loads(json.dumps(m.to_dict()))["result"] == "found"  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("args", "name"),
    [
        ((b"quote", "paper", DOCS), "quote"),
        (("quote", 3.5, DOCS), "cited_doc_id"),
        (("quote", "paper", ["not", "a", "mapping"]), "docs"),
        (("quote", "paper", {"paper": b"bytes"}), "paper"),
    ],
)
def test_wrong_types_raise_type_error_naming_the_argument(args: tuple, name: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(TypeError, match=name):
        quote_gate(*args)


def test_integer_document_ids_work() -> None:
    assert quote_gate("alpha beta", 7, {7: "alpha beta gamma"}) == "found"


def test_huge_and_binary_looking_content_does_not_crash() -> None:
    doc = "\x00\x01\x02 binary \ufffd\udc80 " * 1000 + "needle here" + "\U0010ffff" * 1000
    assert quote_gate("needle here", "d", {"d": doc}) == "found"
    assert quote_gate("\x00\x01\x02", "d", {"d": doc}) == "not_found"  # no letters: empty
    assert quote_gate("x" * 1_000_000, "d", {"d": doc}) == "not_found"


def test_corpus_with_many_documents_finds_misattribution_through_its_index() -> None:
    docs = {f"d{i}": f"document number {i} talks about topic {i * 7} only" for i in range(200)}
    docs["d150"] += " and the hidden sentence lives here"
    corpus = Corpus(docs)
    m = quote_gate("the hidden sentence lives here", "d3", corpus)
    assert m == "misattributed" and m.source_document_ids == ("d150",)
    assert quote_gate("the hidden sentence dies here", "d3", corpus) == "not_found"
    assert quote_gate("talks about topic 21 only", "d3", corpus) == "found"
