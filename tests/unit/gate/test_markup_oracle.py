"""Real documents against real renderers: every sentence a reader sees is found in the raw text.

The samples (benchmarks/data/markup_samples.json, provenance in benchmarks/data/README.md) are
Markdown package descriptions and HTML manuals written by people. The oracle is independent of
the gate: markdown-it-py renders the Markdown (CommonMark + GFM tables and strikethrough), the
standard library's html.parser reads the HTML; the gate sees only the raw text.
"""

from __future__ import annotations

import pytest
from markup_cases import Sample, crosses_markup, load_samples, reader_sentences

from vcg_otel import Corpus, quote_gate

pytest.importorskip("markdown_it")

SAMPLES = load_samples()
CORPUS = Corpus({s.doc_id: s.text for s in SAMPLES})


@pytest.mark.parametrize("sample", SAMPLES, ids=[s.doc_id for s in SAMPLES])
def test_every_sentence_of_the_rendered_document_is_found_in_the_raw_text(
    sample: Sample,
) -> None:
    sentences = reader_sentences(sample)
    assert len(sentences) >= 15
    missed = [q for q in sentences if quote_gate(q, sample.doc_id, CORPUS) != "found"]
    assert missed == []


def test_the_samples_really_cross_markup() -> None:
    """The suite is not plain text in disguise: a third of the sentences differ from every
    stretch of their raw document."""
    crossing = total = 0
    for sample in SAMPLES:
        for sentence in reader_sentences(sample):
            total += 1
            crossing += crosses_markup(sentence, sample.text)
    assert crossing / total > 0.3
    assert {s.format for s in SAMPLES} == {"markdown", "html"}


def test_matches_report_the_raw_passage() -> None:
    sample = next(s for s in SAMPLES if s.doc_id == "md-fastapi")
    for sentence in reader_sentences(sample)[:40]:
        m = quote_gate(sentence, sample.doc_id, CORPUS)
        assert m.start is not None and m.end is not None
        assert m.text == sample.text[m.start:m.end]
