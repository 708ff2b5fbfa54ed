"""Issue 19, item 12: with content capture off, a cited document id is exported only when it
resolved to a retrieved document. Anything else sitting where an id goes is the answer's
text: the first word of a Markdown footnote definition (``[^1]: Patient Jane Doe ...``) must
not reach ``citation.document.id``, on the check span, its events or its log records."""

from __future__ import annotations

from typing import Any

import pytest
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import SimpleLogRecordProcessor
from support.telemetry import Telemetry

from vcg_otel import audited_citations
from vcg_otel.otel import semconv

try:  # the newer name (the old one is a deprecated alias)
    from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter as LogExporter
except ImportError:  # pragma: no cover - older SDK
    from opentelemetry.sdk._logs.export import InMemoryLogExporter as LogExporter  # type: ignore

NOTES = [
    "Discharge note. The patient improved markedly after the second week of treatment.",
    "Ward report. Blood pressure stayed within range during the stay.",
]
FOOTNOTED = ("The patient improved markedly [^1].\n\n"
             "[^1]: Patient Jane Doe, discharge summary, ward 4.")
RESOLVED = 'Her pressure "stayed within range during the stay" [2].'


def audit(answer: str, capture: bool) -> tuple[Telemetry, Any]:
    telemetry = Telemetry()
    logs = LogExporter()
    loggers = LoggerProvider()
    loggers.add_log_record_processor(SimpleLogRecordProcessor(logs))

    @audited_citations(capture_content=capture, logger_provider=loggers,
                       **telemetry.providers)
    def handler(question: str, documents: list[str]) -> str:
        return answer

    assert handler("How is she?", NOTES) == answer
    return telemetry, logs


def everything(telemetry: Telemetry, logs: Any) -> list[str]:
    """Every attribute value written: spans, span events, log records."""
    values: list[str] = []
    for span in telemetry.spans():
        values += [str(v) for v in (span.attributes or {}).values()]
        for event in span.events:
            values += [str(v) for v in (event.attributes or {}).values()]
    for record in logs.get_finished_logs():
        values += [str(v) for v in (record.log_record.attributes or {}).values()]
        values.append(str(record.log_record.body))
    return values


def test_the_first_word_of_a_footnote_definition_is_not_exported_with_capture_off() -> None:
    telemetry, logs = audit(FOOTNOTED, capture=False)
    (check,) = telemetry.spans(semconv.SPAN_CHECK)
    assert check.attributes[semconv.VERDICT] == "unknown_source"  # type: ignore[index]
    assert semconv.CITATION_DOCUMENT_ID not in (check.attributes or {})
    written = everything(telemetry, logs)
    assert not [v for v in written if "Patient" in v or "Jane" in v]


def test_an_id_that_resolved_to_a_retrieved_document_is_still_exported() -> None:
    telemetry, logs = audit(RESOLVED, capture=False)
    (check,) = telemetry.spans(semconv.SPAN_CHECK)
    assert check.attributes[semconv.GATE_RESULT] == "found"  # type: ignore[index]
    assert check.attributes[semconv.CITATION_DOCUMENT_ID] == "2"  # type: ignore[index]
    records = [r.log_record.attributes or {} for r in logs.get_finished_logs()]
    assert any(a.get(semconv.CITATION_DOCUMENT_ID) == "2" for a in records)


@pytest.mark.parametrize("answer", [FOOTNOTED, RESOLVED])
def test_with_capture_on_the_id_is_exported_as_cited(answer: str) -> None:
    telemetry, _ = audit(answer, capture=True)
    (check,) = telemetry.spans(semconv.SPAN_CHECK)
    assert check.attributes[semconv.CITATION_DOCUMENT_ID] in ("Patient", "2")  # type: ignore[index]
