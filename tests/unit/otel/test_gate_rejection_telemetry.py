"""Issue 18: what the gate forgave, and how a rejected quote differs from its source, reach the
check span, the evaluation event and the metrics, so invented quotes and misquotes can be
alerted on apart; the differing words are content, exported only with capture on."""

from __future__ import annotations

from typing import Any

from cases import load_corpus
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import SimpleLogRecordProcessor
from support.telemetry import Telemetry

from vcg_otel import audited_citations
from vcg_otel.otel import semconv

try:
    from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter as LogExporter
except ImportError:  # pragma: no cover - older SDK
    from opentelemetry.sdk._logs.export import InMemoryLogExporter as LogExporter  # type: ignore

CITED = "2608.05138v1"
DOCS = {CITED: load_corpus()[CITED]}
SOURCE = "a Nemotron 1B embedder improves nDCG@10 from 0.362 to 0.835"
CITATIONS = [
    {"claim": "slip", "quote": "After fine tuning on 65773 Greek retrieval pairs a Nemotron",
     "doc_id": CITED},
    {"claim": "misquote", "quote": SOURCE.replace("improves", "degrades"), "doc_id": CITED},
    {"claim": "invented", "quote": "Our quantum annealer factors every prime below a billion "
                                   "in constant time on commodity hardware", "doc_id": CITED},
]


def audit(capture: bool) -> tuple[Telemetry, Any]:
    telemetry = Telemetry()
    logs = LogExporter()
    loggers = LoggerProvider()
    loggers.add_log_record_processor(SimpleLogRecordProcessor(logs))

    @audited_citations(capture_content=capture, logger_provider=loggers, **telemetry.providers)
    def handler(question: str) -> dict[str, Any]:
        return {"documents": DOCS, "citations": CITATIONS}

    handler("q")
    return telemetry, logs


def checks(telemetry: Telemetry) -> dict[str, dict[str, Any]]:
    spans = telemetry.spans(semconv.SPAN_CHECK)
    return {str(dict(s.attributes or {})[semconv.CITATION_INDEX]): dict(s.attributes or {})
            for s in spans}


def test_the_check_span_records_forgiven_slips_and_the_rejection_with_its_closest_passage(
) -> None:
    telemetry, _ = audit(capture=True)
    by_index = checks(telemetry)
    slip, misquote, invented = by_index["0"], by_index["1"], by_index["2"]
    assert slip[semconv.GATE_RESULT] == "found"
    assert list(slip[semconv.GATE_FORGIVEN]) == ["hyphen", "punctuation", "thousands_separator"]
    assert semconv.GATE_REJECTION not in slip
    assert misquote[semconv.GATE_RESULT] == "not_found"  # the verdict stays not_found
    assert misquote[semconv.GATE_REJECTION] == "altered"
    start, end = misquote[semconv.GATE_CLOSEST_START], misquote[semconv.GATE_CLOSEST_END]
    assert DOCS[CITED][start:end] == SOURCE
    assert misquote[semconv.GATE_CLOSEST_DOCUMENT_ID] == CITED
    assert misquote[semconv.GATE_CLOSEST_SCORE] >= 0.75
    assert list(misquote[semconv.GATE_DIFF_REPLACED]) == ["improves -> degrades"]
    assert misquote[semconv.GATE_DIFF_REPLACED_COUNT] == 1
    assert invented[semconv.GATE_REJECTION] == "invented"


def test_the_differing_words_are_hidden_with_capture_off_but_offsets_and_counts_stay() -> None:
    telemetry, logs = audit(capture=False)
    misquote = checks(telemetry)["1"]
    assert misquote[semconv.GATE_REJECTION] == "altered"
    assert misquote[semconv.GATE_DIFF_REPLACED_COUNT] == 1
    assert semconv.GATE_CLOSEST_START in misquote and semconv.GATE_CLOSEST_SCORE in misquote
    for name in (semconv.GATE_DIFF_REPLACED, semconv.GATE_DIFF_ADDED, semconv.GATE_DIFF_REMOVED):
        assert name not in misquote
    written = [str(v) for span in telemetry.spans() for v in (span.attributes or {}).values()]
    written += [str(v) for r in logs.get_finished_logs()
                for v in (r.log_record.attributes or {}).values()]
    assert not [v for v in written if "degrades" in v]


def test_the_evaluation_event_carries_the_rejection_kind() -> None:
    _, logs = audit(capture=False)
    kinds = sorted(str(r.log_record.attributes.get(semconv.GATE_REJECTION))  # type: ignore[union-attr]
                   for r in logs.get_finished_logs()
                   if r.log_record.event_name == semconv.EVENT_EVALUATION_RESULT)
    assert kinds == ["None", "altered", "invented"]


def test_the_audits_counter_keeps_invented_quotes_and_misquotes_apart() -> None:
    telemetry, _ = audit(capture=False)
    points = telemetry.metric_points(semconv.METRIC_AUDITS)
    final = {(a.get(semconv.VERDICT), a.get(semconv.GATE_REJECTION)): v for a, v in points
             if a[semconv.ATTR_STAGE] == semconv.STAGE_FINAL}
    assert final[("not_found", "altered")] == 1
    assert final[("not_found", "invented")] == 1
    gate = {(a.get(semconv.VERDICT), a.get(semconv.GATE_REJECTION)): v for a, v in points
            if a[semconv.ATTR_STAGE] == semconv.STAGE_GATE}
    assert gate[("found", None)] == 1 and gate[("not_found", "invented")] == 1
