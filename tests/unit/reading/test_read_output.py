"""``read_output``: one reading path, one budget and one completeness rule for every front end
(issue 20 items 1-4, issue 19 item 3). The documents are real arXiv abstracts."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from support.paths import ROOT
from support.telemetry import Telemetry

from vcg_otel import audited_citations
from vcg_otel.audit import Auditor
from vcg_otel.cli import main
from vcg_otel.documents import find_chunks
from vcg_otel.extract import MAX_TEXT_CHARS
from vcg_otel.otel import semconv
from vcg_otel.reading import read_output

ABSTRACTS = json.loads((ROOT / "benchmarks/data/arxiv_abstracts_295.json").read_text())
KEY = sorted(ABSTRACTS)[0]
TEXT = ABSTRACTS[KEY]
QUOTE = " ".join(TEXT.split()[3:11])  # eight words of a real abstract, as a model quotes them
LONG_TAIL = " filler" * (MAX_TEXT_CHARS // 7 + 10_000)  # past the reading budget's characters


def long_answer() -> str:
    return f'As shown, "{QUOTE}" [{KEY}].{LONG_TAIL}'


def test_an_answer_over_the_text_budget_keeps_the_quote_before_the_cut_and_says_so() -> None:
    answer = long_answer()
    assert len(answer) > MAX_TEXT_CHARS
    citations, documents, completeness = read_output(answer, kwargs={"documents": ABSTRACTS})
    assert [(c.document_id, c.quote) for c in citations] == [(KEY, QUOTE)]
    assert completeness.citations_cut == "text_chars" and not completeness.complete
    assert completeness.documents_cut is None  # the documents were all read
    report = Auditor().audit(citations, documents)
    assert [r.outcome.value for r in report.results] == ["found"]


def test_the_decorator_audits_what_it_found_before_the_cut_and_records_the_cut(
    telemetry: Telemetry
) -> None:
    @audited_citations(**telemetry.providers)
    def answer(question: str, documents: dict[str, str]) -> str:
        return long_answer()

    answer("q", ABSTRACTS)
    (audit,) = telemetry.spans(semconv.SPAN_AUDIT)
    assert audit.attributes[semconv.AUDIT_EXTRACT_LIMIT] == "text_chars"
    assert audit.attributes[semconv.AUDIT_STATUS] == semconv.STATUS_AUDITED
    (check,) = telemetry.spans(semconv.SPAN_CHECK)
    assert check.attributes[semconv.GATE_RESULT] == "found"


def test_the_cli_reports_an_incomplete_audit_and_fails_the_gate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answers = tmp_path / "answers.jsonl"
    answers.write_text(json.dumps({"id": "long", "answer": long_answer()}) + "\n")
    docs = tmp_path / "docs.json"
    docs.write_text(json.dumps({KEY: TEXT}))
    code = main(["audit", str(answers), "--docs", str(docs), "--no-progress",
                 "--fail-on", "fabricated>0.5"])
    out, err = capsys.readouterr()
    assert code == 1, (out, err)
    assert "FAIL incomplete audit" in err  # the summary and the gates' lines are on stderr
    assert "incomplete audit: 1 answer read only in part" in err
    assert re.search(r"^found\s+1\s", err, re.M)  # the quote before the cut was audited
    assert "no citations found" not in err
    assert "read only in part (text_chars)" in err


def test_a_dict_of_document_fields_is_one_document_not_a_mapping_of_id_to_text() -> None:
    """Cohere's ``{"id", "snippet", "title"}``: never three documents named id, snippet, title."""
    cohere_doc = {"id": "doc_0", "snippet": "Emperor penguins are the tallest.",
                  "title": "Tall penguins"}
    named = [names for _, _, names in find_chunks({"documents": [cohere_doc]})]
    assert not any(n for ns in named for n, _ in ns if n in ("id", "snippet", "title"))
    assert list(find_chunks({"a": "first text", "b": "second text"}))  # a real id -> text map


def test_a_chunk_cited_by_its_file_stem_is_found_by_the_cli_as_by_the_decorator(
    tmp_path: Path, telemetry: Telemetry, capsys: pytest.CaptureFixture[str]
) -> None:
    """One document model: the same logged answer audits the same in ``vcg-otel audit`` and
    live (before, the CLI's flat reader called it ``misattributed``)."""
    chunk = {"id": "3f2a9c1e-uuid", "text": TEXT, "metadata": {"source": "papers/smith-2026.pdf"}}
    answer = {"answer": f'The paper says "{QUOTE}" [smith-2026].', "documents": [chunk]}
    answers = tmp_path / "answers.jsonl"
    answers.write_text(json.dumps(answer) + "\n")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "other.txt").write_text(ABSTRACTS[sorted(ABSTRACTS)[1]])
    out = tmp_path / "out.jsonl"
    assert main(["audit", str(answers), "--docs", str(docs), "--out", str(out),
                 "--no-progress"]) == 0
    (row,) = [json.loads(line) for line in out.read_text().splitlines()]

    @audited_citations(**telemetry.providers)
    def live(documents: list[dict[str, object]]) -> dict[str, object]:
        return {"answer": answer["answer"]}

    live([chunk])
    (check,) = telemetry.spans(semconv.SPAN_CHECK)
    assert row["outcome"] == check.attributes[semconv.VERDICT] == "found"


def test_inline_quotes_and_markers_in_one_answer_are_all_audited() -> None:
    """A fabricated ``[7]`` of three sources next to a quote is reported, not dropped."""
    docs = [ABSTRACTS[k] for k in sorted(ABSTRACTS)[:3]]
    answer = f'It "{QUOTE}" [1]. It also cures every disease [7].'
    citations, documents, _ = read_output({"answer": answer}, kwargs={"documents": docs})
    report = Auditor().audit(citations, documents)
    assert [(r.citation.quote, r.outcome.value) for r in report.results] == [
        (QUOTE, "found"), (None, "unknown_source")]


def test_no_front_end_keeps_a_reader_of_its_own() -> None:
    """The decorator, the integrations and the CLI read through ``read_output`` only."""
    for path in ("vcg_otel/decorator.py", "vcg_otel/cli.py", "vcg_otel/integrations/_record.py",
                 "vcg_otel/instrumentor.py"):
        source = (ROOT / path).read_text()
        for reader in ("extract_citations", "answer_citations", "call_sources"):
            assert reader not in source, (path, reader)


def test_recognising_a_large_mapping_asks_only_for_the_keys_formats_define() -> None:
    # A handler returning the retrieved abstracts by id: the format readers look for their
    # own few keys in it, they do not walk its 10,000 keys once per reader.
    from collections.abc import Iterator, Mapping

    from vcg_otel.reading.registry import recognise

    class Retrieved(Mapping[str, str]):
        def __init__(self, texts: dict[str, str]) -> None:
            self.texts, self.walked = texts, 0

        def __getitem__(self, key: str) -> str:
            return self.texts[key]

        def __iter__(self) -> Iterator[str]:
            for key in self.texts:
                self.walked += 1
                yield key

        def __len__(self) -> int:
            return len(self.texts)

    texts = list(ABSTRACTS.values())
    result = Retrieved({f"doc-{i}": texts[i % len(texts)] for i in range(10_000)})
    assert recognise(result, {}) is None
    assert result.walked == 0  # each of the FORMATS walked all 10,000 before
