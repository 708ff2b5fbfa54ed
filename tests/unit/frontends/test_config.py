"""One audit config and one telemetry config, each field with its environment variable, taken
alike by the decorator, the instrumentor, Auditor, the integrations and the CLI (issue 15)."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from vcg_otel import Auditor, audited_citations
from vcg_otel.audit import VerdictCache
from vcg_otel.cli import main
from vcg_otel.config import (
    AuditConfig,
    AuditSettings,
    Settings,
    TelemetryConfig,
    TelemetrySettings,
    env_vars,
)
from vcg_otel.judge.runner import WindowConfig
from vcg_otel.otel import semconv

DOCS = {"paper": "The reranker improves accuracy by 4.2% over the baseline.",
        "blog": "Cats sleep for most of the day."}
HONEST = {"claim": "The reranker helps.", "quote": "improves accuracy by 4.2%", "doc_id": "paper"}
MISATTRIBUTED = {"claim": "Cats sleep.", "quote": "Cats sleep for most of the day",
                 "doc_id": "paper"}

# A value for each variable that differs from the field's default, and what it must become.
ENV_VALUES: dict[str, tuple[str, Any]] = {
    semconv.ENV_JUDGE_TIMEOUT: ("2.5", 2.5),
    semconv.ENV_JUDGE_MAX_CONCURRENCY: ("3", 3),
    semconv.ENV_MAX_JUDGE_CALLS: ("4", 4),
    semconv.ENV_MAX_JUDGE_TOKENS: ("5000", 5000),
    semconv.ENV_JUDGE_SAMPLE_RATE: ("0.5", 0.5),
    semconv.ENV_JUDGE_CACHE: ("false", False),
    semconv.ENV_MAX_GAP: ("50", 50),
    semconv.ENV_MISATTRIBUTED_IS_CONSISTENT: ("yes", True),
    semconv.ENV_MAX_CITATIONS: ("7", 7),
    semconv.ENV_FOREGROUND_DEADLINE: ("0.25", 0.25),
    semconv.ENV_CAPTURE_CONTENT: ("off", False),
    semconv.ENV_SAMPLE_RATE: ("0.25", 0.25),
    semconv.ENV_CHECK_SPANS: ("0", False),
    semconv.ENV_SPAN_EVENTS: ("false", False),
    semconv.ENV_POSITION_BASE: ("1", 1),
    semconv.ENV_ID_KEYS: (" source_ref , chunk_of ", ("source_ref", "chunk_of")),
}


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    for name in [*env_vars(), semconv.ENV_HIDE_INPUTS, semconv.ENV_HIDE_OUTPUTS]:
        monkeypatch.delenv(name, raising=False)
    yield monkeypatch


def _config_of(field: str) -> Any:
    kind, name = field.split(".")
    return getattr({"AuditConfig": AuditConfig, "TelemetryConfig": TelemetryConfig}[kind](), name)


def test_every_field_but_the_objects_has_its_own_variable() -> None:
    assert set(env_vars()) == set(ENV_VALUES)
    fields = {f.split(".")[1] for f in env_vars().values()}
    keywords = set(AuditSettings.__annotations__) | set(TelemetrySettings.__annotations__)
    assert fields == keywords - {"window", "tracer_provider", "meter_provider", "logger_provider"}


@pytest.mark.parametrize("env", sorted(ENV_VALUES))
def test_each_variable_sets_its_field_and_an_argument_beats_it(
        clean_env: pytest.MonkeyPatch, env: str) -> None:
    field = env_vars()[env]
    default = _config_of(field)
    raw, expected = ENV_VALUES[env]
    assert default != expected
    clean_env.setenv(env, raw)
    assert _config_of(field) == expected
    kind, name = field.split(".")
    cls = AuditConfig if kind == "AuditConfig" else TelemetryConfig
    assert getattr(cls(**{name: default}), name) == default  # the argument wins


@pytest.mark.parametrize("raw", ["lots", "-3", "nan", "1e5x"])
def test_a_malformed_variable_warns_and_keeps_the_default_never_raises(
        clean_env: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, raw: str) -> None:
    for env in (semconv.ENV_JUDGE_TIMEOUT, semconv.ENV_MAX_CITATIONS, semconv.ENV_SAMPLE_RATE):
        clean_env.setenv(env, raw)
    with caplog.at_level(logging.WARNING, logger="vcg_otel.config"):
        audit, telemetry = AuditConfig(), TelemetryConfig()
    assert (audit.timeout, audit.max_citations, telemetry.sample_rate) == (30.0, 10_000, 1.0)
    assert semconv.ENV_JUDGE_TIMEOUT in caplog.text and raw in caplog.text


@pytest.mark.parametrize(("settings", "named"), [
    ({"timeout": -1}, "timeout"), ({"timeout": float("nan")}, "timeout"),
    ({"max_concurrency": 0}, "max_concurrency"), ({"max_tokens": -5}, "max_tokens"),
    ({"judge_sample_rate": 1.5}, "judge_sample_rate"), ({"cache": "yes"}, "cache"),
    ({"window": {"context_chars": 5}}, "window"), ({"max_citations": True}, "max_citations"),
    ({"misattributed_is_consistent": "no"}, "misattributed_is_consistent"),
    ({"position_base": 2}, "position_base"), ({"id_keys": "source"}, "id_keys"),
])
def test_a_bad_argument_raises_naming_it(settings: dict[str, Any], named: str) -> None:
    with pytest.raises(ValueError, match=named):
        AuditConfig(**settings)
    with pytest.raises(ValueError, match=named):
        Auditor(**settings)


def test_the_settings_keywords_are_exactly_the_config_fields() -> None:
    # The TypedDicts type the keywords of Auditor, the decorator and the integrations; they
    # must never drift from the dataclasses they feed.
    for typed, cls in ((AuditSettings, AuditConfig), (TelemetrySettings, TelemetryConfig)):
        init = {f for f, v in cls.__dataclass_fields__.items() if v.init}
        assert _keys(typed) == init
    assert _keys(Settings) == _keys(AuditSettings) | _keys(TelemetrySettings)


def _keys(typed: Any) -> set[str]:
    return set(typed.__required_keys__ | typed.__optional_keys__)


def test_none_still_means_no_cache_and_the_default_window() -> None:
    config = AuditConfig(cache=None, window=None)
    assert config.cache is False and config.window == WindowConfig()
    assert Auditor(cache=None).cache is None
    shared = VerdictCache()
    assert Auditor(cache=shared).cache is shared


# --- conflicts raise where the user configured --------------------------------------------


def test_auditor_with_audit_settings_raises_at_decoration_instead_of_dropping_them() -> None:
    # before: the seven audit keywords were passed to an Auditor that was then ignored
    with pytest.raises(TypeError, match="max_tokens, timeout would be ignored"):
        audited_citations(auditor=Auditor(), timeout=5, max_tokens=10)
    with pytest.raises(TypeError, match="judge"):
        audited_citations(auditor=Auditor(), judge=lambda s, u: "")
    with pytest.raises(TypeError, match="config"):
        audited_citations(auditor=Auditor(), config=AuditConfig())
    audited_citations(auditor=Auditor(), capture_content=False)  # telemetry is not the auditor's


def test_a_setting_given_as_keyword_and_in_its_config_raises_naming_it() -> None:
    with pytest.raises(TypeError, match="timeout given both"):
        audited_citations(config=AuditConfig(), timeout=5)
    with pytest.raises(TypeError, match="capture_content given both"):
        audited_citations(telemetry=TelemetryConfig(), capture_content=False)
    with pytest.raises(TypeError, match="timeout given both"):
        Auditor(config=AuditConfig(), timeout=5)


def test_an_unknown_setting_raises_at_decoration() -> None:
    with pytest.raises(TypeError, match=r"unknown setting.*time_out"):
        audited_citations(time_out=5)  # type: ignore[call-overload]


def test_the_instrumentor_rejects_what_the_decorator_rejects() -> None:
    pytest.importorskip("opentelemetry.instrumentation")
    from vcg_otel.instrumentor import CitationAuditInstrumentor

    with pytest.raises(TypeError, match="timeout given both"):
        CitationAuditInstrumentor().instrument(targets=[], config=AuditConfig(), timeout=5)
    CitationAuditInstrumentor().uninstrument()


# --- the two sample rates -----------------------------------------------------------------


def _recording() -> tuple[TracerProvider, InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider, exporter


def test_the_call_sample_rate_skips_calls_and_the_judge_sample_rate_skips_judging() -> None:
    judged: list[str] = []

    def judge(system: str, user: str) -> str:
        judged.append(user)
        return '{"verdict": "supports", "confidence": 0.9, "reasoning": "ok"}'

    provider, exporter = _recording()

    @audited_citations(judge=judge, telemetry=TelemetryConfig(sample_rate=0.0,
                                                              tracer_provider=provider))
    def never(documents: dict[str, str]) -> dict[str, Any]:
        return {"citations": [HONEST]}

    never(DOCS)
    assert exporter.get_finished_spans() == () and judged == []

    @audited_citations(judge=judge, config=AuditConfig(judge_sample_rate=0.0),
                       tracer_provider=provider)
    def unjudged(documents: dict[str, str]) -> dict[str, Any]:
        return {"citations": [HONEST]}

    unjudged(DOCS)
    (audit,) = [s for s in exporter.get_finished_spans() if s.name == semconv.SPAN_AUDIT]
    assert audit.attributes[semconv.COUNT_PREFIX + "found"] == 1 and judged == []


# --- one config, every front end ------------------------------------------------------------


def test_one_audit_config_means_the_same_in_the_decorator_auditor_and_cli(
        clean_env: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    config = AuditConfig(misattributed_is_consistent=True)
    assert Auditor(config=config).audit([MISATTRIBUTED], DOCS).inconsistent == []

    @audited_citations(mode="enforce", config=config)
    def answer(documents: dict[str, str]) -> dict[str, Any]:
        return {"citations": [MISATTRIBUTED]}

    assert answer(DOCS)["citations"] == [MISATTRIBUTED]  # kept: counted as consistent

    # the CLI takes the same setting from its variable
    answers = tmp_path / "answers.jsonl"
    answers.write_text(json.dumps({"citations": [MISATTRIBUTED]}) + "\n")
    docs = tmp_path / "docs.json"
    docs.write_text(json.dumps(DOCS))
    argv = ["audit", str(answers), "--docs", str(docs), "--no-progress",
            "--fail-on", "inconsistent>0"]
    assert main(argv) == 1
    clean_env.setenv(semconv.ENV_MISATTRIBUTED_IS_CONSISTENT, "true")
    assert main(argv) == 0
    capsys.readouterr()


def test_the_integrations_take_the_same_configs() -> None:
    pytest.importorskip("langchain_core")
    from vcg_otel.integrations.langchain import CitationAudit

    provider, exporter = _recording()
    audit = CitationAudit(config=AuditConfig(max_citations=1),
                          telemetry=TelemetryConfig(tracer_provider=provider,
                                                    capture_content=False))
    audit.invoke({"answer": "x", "citations": [HONEST, HONEST], "documents": DOCS})
    (span,) = [s for s in exporter.get_finished_spans() if s.name == semconv.SPAN_AUDIT]
    assert span.attributes[semconv.COUNT_TOTAL] == 1
    with pytest.raises(TypeError, match="timeout given both"):
        CitationAudit(config=AuditConfig(), timeout=3)


def test_the_decorator_resolves_ids_by_the_configured_id_keys_and_position_base() -> None:
    provider, exporter = _recording()
    chunk = {"page_content": DOCS["paper"], "metadata": {"paper_id": "smith-2026"}}
    honest = {**HONEST, "doc_id": "smith-2026"}

    def outcomes(**settings: Any) -> list[str]:
        exporter.clear()

        @audited_citations(tracer_provider=provider, **settings)
        def answer(documents: list[dict[str, Any]]) -> dict[str, Any]:
            return {"citations": [honest, {**HONEST, "doc_id": "2"}]}

        answer([{"page_content": DOCS["blog"]}, chunk])
        checks = sorted((s for s in exporter.get_finished_spans()
                         if s.name == semconv.SPAN_CHECK),
                        key=lambda s: s.attributes[semconv.CITATION_INDEX])
        return [s.attributes[semconv.GATE_RESULT] for s in checks]

    # the metadata key is not one frameworks use, and "[2]" of two sources is ambiguous
    # without a base: 0-based it names nothing
    assert outcomes(id_keys=["paper_id"], position_base=1) == ["found", "found"]
    assert outcomes(position_base=0)[0] != "found"
    assert outcomes(id_keys=["paper_id"], position_base=0)[1] != "found"
