"""OpenTelemetry's GenAI conventions, end to end in process: the real SDK tracer, meter and
logger providers with in-memory exporters; judge calls over real HTTP through litellm where a
user would have them. Documents are arXiv abstracts (benchmarks/data)."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry.sdk._logs import LoggerProvider, ReadableLogRecord
from opentelemetry.sdk._logs.export import SimpleLogRecordProcessor
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import HistogramDataPoint, InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as ga
from opentelemetry.semconv.attributes.error_attributes import ERROR_TYPE
from opentelemetry.trace import SpanKind, StatusCode
from support.abstract_case import (
    DOCS,
    FABRICATED,
    HONEST,
    IDS,
    MISATTRIBUTED,
    SECRET_REASONING,
    SKILLS,
    Judge,
)

from vcg_otel.audit import Auditor, AuditReport
from vcg_otel.otel import semconv
from vcg_otel.otel.content import ContentPolicy
from vcg_otel.otel.metrics import instruments_for, record_metrics
from vcg_otel.otel.record import emit_audit

try:  # the newer name (the old one is a deprecated alias in 1.45)
    from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter as InMemoryLogs
except ImportError:  # pragma: no cover - older SDK
    from opentelemetry.sdk._logs.export import InMemoryLogExporter as InMemoryLogs

class Telemetry:
    def __init__(self) -> None:
        self.spans_out = InMemorySpanExporter()
        self.tracer_provider = TracerProvider()
        self.tracer_provider.add_span_processor(SimpleSpanProcessor(self.spans_out))
        self.logs_out = InMemoryLogs()
        self.logger_provider = LoggerProvider()
        self.logger_provider.add_log_record_processor(SimpleLogRecordProcessor(self.logs_out))
        self.reader = InMemoryMetricReader()
        self.meter_provider = MeterProvider(metric_readers=[self.reader])

    def record(self, report: AuditReport, *, capture: bool = True, check_spans: bool = True,
               span_events: bool | None = None) -> None:
        emit_audit(self.tracer_provider.get_tracer("test"), report,
                   ContentPolicy.resolve(capture), check_spans=check_spans,
                   span_events=span_events, meter_provider=self.meter_provider,
                   logger_provider=self.logger_provider)

    def spans(self, name: str | None = None) -> list[ReadableSpan]:
        return [s for s in self.spans_out.get_finished_spans() if name in (None, s.name)]

    def judges(self) -> list[ReadableSpan]:
        return [s for s in self.spans() if s.kind is SpanKind.CLIENT]

    def events(self, name: str) -> list[ReadableLogRecord]:
        return [r for r in self.logs_out.get_finished_logs() if r.log_record.event_name == name]

    def histogram(self, name: str) -> list[HistogramDataPoint]:
        data = self.reader.get_metrics_data()
        points: list[HistogramDataPoint] = []
        for rm in data.resource_metrics if data else ():
            for sm in rm.scope_metrics:
                for m in sm.metrics:
                    if m.name == name:
                        points += [p for p in m.data.data_points
                                   if isinstance(p, HistogramDataPoint)]
        return points


@pytest.fixture
def telemetry() -> Iterator[Telemetry]:
    t = Telemetry()
    yield t
    t.tracer_provider.shutdown()
    t.logger_provider.shutdown()


def audit(*citations: dict[str, Any], judge: Any = None) -> AuditReport:
    return Auditor(Judge() if judge is None else judge, cache=False).audit(list(citations), DOCS)


def by_index(records: list[ReadableLogRecord]) -> dict[int, Any]:
    return {r.log_record.attributes[semconv.CITATION_INDEX]: r.log_record for r in records}


def test_judge_call_is_a_genai_client_span_next_to_the_openinference_one(
        telemetry: Telemetry) -> None:
    telemetry.record(audit(HONEST))
    (judge,) = telemetry.judges()
    (check,) = telemetry.spans(semconv.SPAN_CHECK)
    assert judge.name == "chat gpt-4o-mini"
    assert judge.parent is not None and judge.parent.span_id == check.context.span_id
    a = judge.attributes or {}
    assert a[ga.GEN_AI_OPERATION_NAME] == "chat"
    assert a[ga.GEN_AI_PROVIDER_NAME] == "openai"
    assert a[ga.GEN_AI_REQUEST_MODEL] == "gpt-4o-mini"
    assert a[ga.GEN_AI_RESPONSE_MODEL] == "gpt-4o-mini-2024-07-18"
    assert (a[ga.GEN_AI_USAGE_INPUT_TOKENS], a[ga.GEN_AI_USAGE_OUTPUT_TOKENS]) == (200, 30)
    assert ERROR_TYPE not in a and judge.status.status_code is not StatusCode.ERROR
    # what Phoenix renders stays
    assert a[semconv.OPENINFERENCE_SPAN_KIND] == "LLM"
    assert a[semconv.LLM_MODEL_NAME] == "gpt-4o-mini-2024-07-18"
    assert a[semconv.LLM_TOKEN_TOTAL] == 230


def test_failed_closed_judge_call_carries_error_type(telemetry: Telemetry) -> None:
    telemetry.record(audit(SKILLS))
    (judge,) = telemetry.judges()
    assert judge.status.status_code is StatusCode.ERROR
    assert (judge.attributes or {})[ERROR_TYPE] == "no_json"


def test_every_verdict_is_an_evaluation_result_event_correlated_with_its_check_span(
        telemetry: Telemetry) -> None:
    telemetry.record(audit(HONEST, SKILLS, FABRICATED, MISATTRIBUTED))
    checks = {s.attributes[semconv.CITATION_INDEX]: s  # type: ignore[index]
              for s in telemetry.spans(semconv.SPAN_CHECK)}
    results = by_index(telemetry.events(semconv.EVENT_EVALUATION_RESULT))
    assert sorted(results) == [0, 1, 2, 3]
    for index, record in results.items():
        assert record.trace_id == checks[index].context.trace_id
        assert record.span_id == checks[index].context.span_id
        assert record.attributes[ga.GEN_AI_EVALUATION_NAME] == "citation_verdict"
    labels = {i: r.attributes[ga.GEN_AI_EVALUATION_SCORE_LABEL] for i, r in results.items()}
    assert labels == {0: "supports", 1: "unjudged", 2: "not_found", 3: "misattributed"}
    scores = {i: r.attributes[ga.GEN_AI_EVALUATION_SCORE_VALUE] for i, r in results.items()}
    assert scores == {0: 0.0, 1: 0.0, 2: 1.0, 3: 1.0}
    assert results[1].attributes[ERROR_TYPE] == "no_json"
    assert ERROR_TYPE not in results[0].attributes
    assert results[0].attributes[ga.GEN_AI_EVALUATION_EXPLANATION] == SECRET_REASONING
    assert results[3].attributes[ga.GEN_AI_EVALUATION_EXPLANATION] == (
        f"quote found only in {IDS[2]}")


def test_fail_closed_is_a_log_based_event_on_the_check_span_and_still_a_span_event(
        telemetry: Telemetry) -> None:
    telemetry.record(audit(HONEST, SKILLS))
    (record,) = [r.log_record for r in telemetry.events(semconv.EVENT_FAIL_CLOSED)]
    check = next(s for s in telemetry.spans(semconv.SPAN_CHECK)
                 if (s.attributes or {})[semconv.CITATION_INDEX] == 1)
    assert record.span_id == check.context.span_id
    assert record.attributes[semconv.EVENT_ATTR_REASON] == "no_json"
    assert record.attributes[semconv.CITATION_INDEX] == 1
    assert record.severity_text == "WARN"
    assert [e.name for e in check.events] == [semconv.EVENT_FAIL_CLOSED]  # default: both


def test_check_events_mode_emits_check_events_on_the_audit_span(telemetry: Telemetry) -> None:
    telemetry.record(audit(HONEST, FABRICATED), check_spans=False)
    (audit_span,) = telemetry.spans(semconv.SPAN_AUDIT)
    checks = by_index(telemetry.events(semconv.EVENT_CHECK))
    assert [checks[i].attributes[semconv.VERDICT] for i in (0, 1)] == ["supports", "not_found"]
    for record in [*checks.values(), *by_index(
            telemetry.events(semconv.EVENT_EVALUATION_RESULT)).values()]:
        assert record.span_id == audit_span.context.span_id
    assert semconv.OPENINFERENCE_SPAN_KIND not in checks[0].attributes
    assert [e.name for e in audit_span.events] == [semconv.EVENT_CHECK] * 2


def test_without_a_logger_provider_no_log_record_is_built(
        telemetry: Telemetry, monkeypatch: pytest.MonkeyPatch) -> None:
    from opentelemetry._logs import LogRecord, NoOpLoggerProvider

    from vcg_otel.otel import events

    built: list[Any] = []
    monkeypatch.setattr(events, "LogRecord", lambda **kw: built.append(kw) or LogRecord(**kw))
    assert events.logger_for(NoOpLoggerProvider()) is None
    emit_audit(telemetry.tracer_provider.get_tracer("test"), audit(HONEST, SKILLS),
               ContentPolicy.resolve(True), logger_provider=NoOpLoggerProvider())
    assert built == []
    telemetry.record(audit(HONEST))  # and the same spy sees records with a real provider
    assert len(built) == 1


def test_span_events_switch_off_leaves_only_log_based_events(
        telemetry: Telemetry, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(semconv.ENV_SPAN_EVENTS, "false")
    telemetry.record(audit(HONEST, SKILLS), check_spans=False)
    assert all(not s.events for s in telemetry.spans())
    assert len(telemetry.events(semconv.EVENT_CHECK)) == 2
    assert len(telemetry.events(semconv.EVENT_FAIL_CLOSED)) == 1
    assert len(telemetry.events(semconv.EVENT_EVALUATION_RESULT)) == 2


def test_content_capture_off_puts_no_content_in_log_records(telemetry: Telemetry) -> None:
    report = audit(HONEST, SKILLS, FABRICATED, MISATTRIBUTED)
    telemetry.record(report, capture=False, check_spans=False)
    records = telemetry.logs_out.get_finished_logs()
    assert len(records) == 4 + 4 + 1  # checks, results, one fail-closed
    texts = [c[k] for c in (HONEST, SKILLS, FABRICATED, MISATTRIBUTED) for k in ("claim",
                                                                                 "quote")]
    texts += [SECRET_REASONING, "I cannot decide", "quote found only", "not found in any"]
    for r in records:
        values = json.dumps(dict(r.log_record.attributes or {}), default=str)
        assert r.log_record.body is None
        for text in texts:
            assert text not in values, (r.log_record.event_name, text)
    assert all(ga.GEN_AI_EVALUATION_EXPLANATION not in (r.log_record.attributes or {})
               for r in records)


def test_message_content_needs_both_the_conventions_opt_in_and_ours(
        telemetry: Telemetry, monkeypatch: pytest.MonkeyPatch) -> None:
    report = audit(HONEST)
    telemetry.record(report)  # ours on, the conventions' opt-in unset: no gen_ai messages
    monkeypatch.setenv(semconv.ENV_GENAI_CAPTURE, "true")
    telemetry.record(report, capture=False)  # opted in, ours off: none
    telemetry.record(report)  # both: the messages, in the conventions' schema
    first, hidden, both = (j.attributes or {} for j in telemetry.judges())
    for attrs in (first, hidden):
        assert ga.GEN_AI_INPUT_MESSAGES not in attrs and ga.GEN_AI_OUTPUT_MESSAGES not in attrs
    (message,) = json.loads(both[ga.GEN_AI_INPUT_MESSAGES])
    assert message["role"] == "user" and HONEST["quote"] in message["parts"][0]["content"]
    (answer,) = json.loads(both[ga.GEN_AI_OUTPUT_MESSAGES])
    assert answer["role"] == "assistant" and SECRET_REASONING in answer["parts"][0]["content"]


def test_genai_client_metrics_per_judge_call_with_the_advised_buckets(
        telemetry: Telemetry) -> None:
    telemetry.record(audit(HONEST, SKILLS, FABRICATED))  # two judge calls; one failed closed
    durations = telemetry.histogram("gen_ai.client.operation.duration")
    assert sorted(p.count for p in durations) == [1, 1]
    failed = next(p for p in durations if ERROR_TYPE in p.attributes)
    assert failed.attributes[ERROR_TYPE] == "no_json"
    assert tuple(failed.explicit_bounds) == semconv.GENAI_DURATION_BUCKETS
    common = {ga.GEN_AI_OPERATION_NAME: "chat", ga.GEN_AI_PROVIDER_NAME: "openai",
              ga.GEN_AI_REQUEST_MODEL: "gpt-4o-mini",
              ga.GEN_AI_RESPONSE_MODEL: "gpt-4o-mini-2024-07-18"}
    tokens = {p.attributes[ga.GEN_AI_TOKEN_TYPE]: p
              for p in telemetry.histogram("gen_ai.client.token.usage")}
    assert set(tokens) == {"input", "output"}
    assert (tokens["input"].sum, tokens["input"].count) == (350, 2)
    assert (tokens["output"].sum, tokens["output"].count) == (42, 2)
    for p in tokens.values():
        assert {k: v for k, v in p.attributes.items() if k != ga.GEN_AI_TOKEN_TYPE} == common
        assert tuple(p.explicit_bounds) == semconv.GENAI_TOKEN_BUCKETS


class SpyHistogram:
    """Keeps each attributes dict it is handed, and a copy taken at that moment."""

    def __init__(self) -> None:
        self.calls: list[tuple[dict[str, Any], dict[str, Any]]] = []

    def record(self, amount: float, attributes: dict[str, Any] | None = None,
               context: Any = None) -> None:
        self.calls.append((attributes or {}, dict(attributes or {})))


def test_attributes_handed_to_a_histogram_are_never_changed_afterwards() -> None:
    # SDK 1.39 keeps the dict it was given as the point's attributes: popping error.type
    # from it after recording the duration erased error.type from the recorded point.
    durations, tokens = SpyHistogram(), SpyHistogram()
    instruments = dataclasses.replace(instruments_for(MeterProvider()),
                                      genai_duration=durations, genai_tokens=tokens)
    record_metrics(instruments, audit(SKILLS))
    (given, at_the_time), = durations.calls
    assert given == at_the_time and given[ERROR_TYPE] == "no_json"
    assert all(given == at_the_time for given, at_the_time in tokens.calls)


def test_a_judge_that_reports_no_usage_records_no_token_metric(telemetry: Telemetry) -> None:
    def plain(system: str, user: str) -> str:
        return json.dumps({"verdict": "supports", "confidence": 0.8, "reasoning": "yes"})

    telemetry.record(audit(HONEST, judge=plain))
    assert telemetry.histogram("gen_ai.client.token.usage") == []
    (duration,) = telemetry.histogram("gen_ai.client.operation.duration")
    assert duration.attributes == {ga.GEN_AI_OPERATION_NAME: "chat",
                                   ga.GEN_AI_PROVIDER_NAME: "_OTHER"}
    (judge,) = telemetry.judges()
    assert judge.name == "chat"  # a plain callable names no model
    assert ga.GEN_AI_USAGE_INPUT_TOKENS not in (judge.attributes or {})  # unknown, not 0


def test_litellm_judge_over_http_names_provider_and_models(
        telemetry: Telemetry, openai_server: Any) -> None:
    from support.fake_openai import Reply

    from vcg_otel.llm.litellm import LiteLLMJudge

    openai_server.responder = lambda body: Reply(json.dumps(
        {"verdict": "supports", "confidence": 0.9, "reasoning": "stated"}), 120, 9)
    judge = LiteLLMJudge("openai/test-judge", api_base=openai_server.base_url,
                         api_key="sk-test", max_retries=0)
    telemetry.record(audit(HONEST, judge=judge))
    (span,) = telemetry.judges()
    a = span.attributes or {}
    assert span.name == "chat test-judge"
    assert (a[ga.GEN_AI_PROVIDER_NAME], a[ga.GEN_AI_REQUEST_MODEL],
            a[ga.GEN_AI_RESPONSE_MODEL]) == ("openai", "test-judge", "test-judge")
    assert (a[ga.GEN_AI_USAGE_INPUT_TOKENS], a[ga.GEN_AI_USAGE_OUTPUT_TOKENS]) == (120, 9)


_DECORATED = """
import json, sys
from opentelemetry import _logs
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import SimpleLogRecordProcessor
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
try:
    from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter as Logs
except ImportError:
    from opentelemetry.sdk._logs.export import InMemoryLogExporter as Logs
from vcg_otel import audited_citations

logs, spans = Logs(), InMemorySpanExporter()
provider = LoggerProvider()
provider.add_log_record_processor(SimpleLogRecordProcessor(logs))
_logs.set_logger_provider(provider)
tracer_provider = TracerProvider()
tracer_provider.add_span_processor(SimpleSpanProcessor(spans))
docs = json.loads(sys.argv[1])
answer = audited_citations(tracer_provider=tracer_provider)(lambda documents: json.loads(
    sys.argv[2]))
answer(docs)
checks = {s.context.span_id for s in spans.get_finished_spans() if s.name == "citation.check"}
print(json.dumps([[r.log_record.event_name, r.log_record.span_id in checks]
                  for r in logs.get_finished_logs()]))
"""


def test_decorated_handler_emits_to_the_global_logger_provider() -> None:
    # a process of its own: the global logger provider can be set once per process
    out = subprocess.run(
        [sys.executable, "-c", _DECORATED, json.dumps(DOCS),
         json.dumps({"citations": [HONEST, FABRICATED]})],
        capture_output=True, text=True, timeout=120, check=True)
    events = json.loads(out.stdout)
    assert events == [["gen_ai.evaluation.result", True]] * 2
