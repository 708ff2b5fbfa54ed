"""span_gate: citations given as offsets fail closed, never clip, never raise on bad ranges."""

from __future__ import annotations

import pytest

from vcg_otel import span_gate
from vcg_otel.gate import NotFoundReason

DOC = "Intro text. The reranker improves accuracy by 4.2%. Closing remarks follow here."
DOCS = {"d": DOC}
START = DOC.index("The reranker")
END = DOC.index("4.2%") + 4


def test_valid_span_is_found_with_its_text() -> None:
    m = span_gate("d", START, END, DOCS)
    assert m == "found" and m.text == DOC[START:END] and (m.start, m.end) == (START, END)


def test_quote_must_match_inside_the_span_and_reports_its_own_offsets() -> None:
    m = span_gate("d", START, END, DOCS, quote="improves accuracy")
    assert m == "found"
    assert m.text == "improves accuracy" and DOC[m.start:m.end] == m.text  # type: ignore[misc]
    miss = span_gate("d", START, END, DOCS, quote="Closing remarks")
    assert miss == "not_found" and miss.reason is NotFoundReason.QUOTE_NOT_IN_SPAN


@pytest.mark.parametrize(
    ("start", "end", "reason"),
    [
        (-1, 10, NotFoundReason.OUT_OF_RANGE),
        (0, len(DOC) + 1, NotFoundReason.OUT_OF_RANGE),
        (30, 10, NotFoundReason.OUT_OF_RANGE),
        (10, 10, NotFoundReason.EMPTY_SPAN),
        (11, 12, NotFoundReason.EMPTY_SPAN),  # a single space: nothing to cite
        (10**12, 10**12 + 5, NotFoundReason.OUT_OF_RANGE),
    ],
)
def test_out_of_range_inverted_and_empty_spans_fail_closed(
    start: int, end: int, reason: NotFoundReason
) -> None:
    m = span_gate("d", start, end, DOCS)
    assert m == "not_found" and m.reason is reason


def test_span_outside_its_chunk_is_rejected_not_clipped() -> None:
    chunk = (START, END - 2)
    m = span_gate("d", START, END, DOCS, chunk=chunk)
    assert m == "not_found" and m.reason is NotFoundReason.OUTSIDE_CHUNK
    assert span_gate("d", START, END, DOCS, chunk=(0, len(DOC))) == "found"


def test_unknown_document_fails_closed() -> None:
    m = span_gate("nope", 0, 5, DOCS)
    assert m == "not_found" and m.reason is NotFoundReason.UNKNOWN_DOCUMENT


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"start": "0"}, "start"),
        ({"end": 5.0}, "end"),
        ({"start": True}, "start"),
        ({"quote": 42}, "quote"),
        ({"chunk": (0, "9")}, "chunk"),
        ({"chunk": 5}, "chunk"),
        ({"docs": "text"}, "docs"),
    ],
)
def test_wrong_types_raise_type_error_naming_the_argument(kwargs: dict, name: str) -> None:  # type: ignore[type-arg]
    args = {"doc_id": "d", "start": 0, "end": 5, "docs": DOCS, **kwargs}
    with pytest.raises(TypeError, match=name):
        span_gate(**args)
