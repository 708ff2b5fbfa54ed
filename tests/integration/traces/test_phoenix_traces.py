"""``vcg-otel audit --from-phoenix``: the traces real apps already send, audited in a real
Phoenix and annotated there, with no vcg_otel in the app.

Real parts: LangChain, LlamaIndex and Haystack RAG apps (support.rag_apps) under their
OpenInference instrumentors, a model over HTTP (support.fake_openai), a real Phoenix server
(one for the session), annotations read back through ``arize-phoenix-client``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from support.fake_openai import FakeOpenAI
from support.frameworks import project
from support.phoenix_server import PhoenixServer, poll
from support.rag_apps import App, CountingIds, live_outcomes, run_traced, trace_outcomes

from vcg_otel.cli import main

FRAMEWORKS = ["langchain", "llamaindex", "haystack"]


def send(app: App, phoenix: PhoenixServer, name: str, times: int = 1,
         id_generator: Any = None) -> list[str]:
    """Run the app ``times`` into Phoenix project ``name``; its trace ids, once stored."""
    ids = run_traced(app, OTLPSpanExporter(f"{phoenix.url}/v1/traces"), name, times,
                     id_generator=id_generator)
    stored = poll(lambda: {s["context"]["trace_id"] for s in phoenix.spans(name, 1000)
                           if s.get("parent_id") is None},
                  lambda found: set(ids) <= found, timeout=60)
    assert set(ids) <= stored
    return ids


def audit(phoenix: PhoenixServer, name: str, *extra: str) -> tuple[int, list[dict[str, Any]]]:
    """Run the CLI against the project; (exit code, the --out records)."""
    out = Path(phoenix.workdir) / f"{name}-{len(extra)}-{abs(hash(extra))}.jsonl"
    code = main(["audit", "--from-phoenix", phoenix.url, "--project", name, "--no-progress",
                 "--out", str(out), *extra])
    records = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() \
        else []
    return code, records


def annotations(phoenix: PhoenixServer, name: str) -> list[dict[str, Any]]:
    """Every annotation of the project's spans, through the Phoenix client."""
    from phoenix.client import Client

    span_ids = [s["context"]["span_id"] for s in phoenix.spans(name, 1000)]
    return list(Client(base_url=phoenix.url).spans.get_span_annotations(
        span_ids=span_ids, project_identifier=name,
        include_annotation_names=["citation_verdict", "citation_fabrication"]))


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_a_framework_trace_audits_as_the_same_app_decorated_live(
        framework: str, apps: Any, model: FakeOpenAI, phoenix: PhoenixServer,
        tmp_path: Path) -> None:
    app = apps(framework)
    name = project()
    (trace_id,) = send(app, phoenix, name)
    code, records = audit(phoenix, name)
    assert code == 0
    assert {r["trace_id"] for r in records} == {trace_id}
    outcomes = trace_outcomes(records)
    assert {q: v for q, (v, _) in outcomes.items()} == app.quotes.expected()
    assert outcomes == live_outcomes(app)  # same verdicts, same chunks matched

    spans = {s["context"]["span_id"]: s for s in phoenix.spans(name, 1000)}
    notes = poll(lambda: annotations(phoenix, name), lambda found: len(found) >= 5)
    verdicts = [n for n in notes if n["name"] == "citation_verdict"]
    assert sorted(n["result"]["label"] for n in verdicts) == sorted(app.quotes.expected().values())
    answer_span = spans[verdicts[0]["span_id"]]
    assert {n["span_id"] for n in verdicts} == {answer_span["context"]["span_id"]}
    assert answer_span["span_kind"] == "LLM"  # the span whose output held the citations
    (request,) = [n for n in notes if n["name"] == "citation_fabrication"]
    assert spans[request["span_id"]]["parent_id"] is None  # on the root span
    assert (request["result"]["label"], request["result"]["score"]) == ("fabricated", 0.5)


def test_a_second_run_adds_nothing_and_a_new_trace_is_audited_by_the_next(
        apps: Any, model: FakeOpenAI, phoenix: PhoenixServer,
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    app = apps("langchain")
    name = project()
    cursor = str(tmp_path / "cursor.json")
    (_first,) = send(app, phoenix, name)
    assert audit(phoenix, name, "--cursor", cursor)[0] == 0
    written = poll(lambda: phoenix.stored(name)[1], lambda c: sum(c.values()) >= 5)
    capsys.readouterr()

    code, records = audit(phoenix, name, "--cursor", cursor)
    assert (code, records) == (0, [])
    assert "1 already audited" in capsys.readouterr().err
    assert phoenix.stored(name)[1] == written

    (second,) = send(app, phoenix, name)
    code, records = audit(phoenix, name, "--cursor", cursor)
    assert {r["trace_id"] for r in records} == {second}
    assert sum(poll(lambda: phoenix.stored(name)[1],
                    lambda c: sum(c.values()) >= 10).values()) == 10
    assert json.loads(Path(cursor).read_text())  # the cursor was kept


def test_a_new_audit_version_audits_again_beside_the_old_annotations(
        apps: Any, model: FakeOpenAI, phoenix: PhoenixServer, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    app = apps("langchain")
    name = project()
    send(app, phoenix, name)
    audit(phoenix, name)
    poll(lambda: annotations(phoenix, name), lambda found: len(found) >= 5)
    monkeypatch.setattr("vcg_otel.traces.annotate.GATE_VERSION", "test-next")
    code, records = audit(phoenix, name)
    assert code == 0 and len(records) == 4
    notes = poll(lambda: annotations(phoenix, name), lambda found: len(found) >= 10)
    assert len(notes) == 10
    assert {n["metadata"]["audit_version"] for n in notes} == {"gate-1", "gate-test-next"}


def test_two_shards_cover_every_trace_exactly_once(
        apps: Any, model: FakeOpenAI, phoenix: PhoenixServer,
        tmp_path: Path) -> None:
    app = apps("langchain")
    name = project()
    ids = send(app, phoenix, name, times=8, id_generator=CountingIds(21))
    shards = [{r["trace_id"] for r in audit(phoenix, name, "--shard", f"{k}/2")[1]}
              for k in (0, 1)]
    assert shards[0] and shards[1]  # the ids are fixed: both shards have some
    assert not shards[0] & shards[1]
    assert shards[0] | shards[1] == set(ids)


def test_a_trace_without_retriever_spans_is_counted_no_documents(
        apps: Any, model: FakeOpenAI, phoenix: PhoenixServer, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A chat model called on its own (no retriever in the trace): every citation is
    unverifiable, never not_found, and the trace is counted."""
    pytest.importorskip("langchain_openai")
    from langchain_openai import ChatOpenAI
    from openinference.instrumentation.langchain import LangChainInstrumentor

    app = apps("langchain")
    llm = ChatOpenAI(base_url=model.base_url, api_key="sk-test", model="test-model",
                     max_retries=0, timeout=10)
    bare = App("chat", lambda q: llm.invoke(q), app.quotes, LangChainInstrumentor())
    name = project()
    send(bare, phoenix, name)
    capsys.readouterr()
    code, records = audit(phoenix, name)
    assert code == 0
    assert {r["outcome"] for r in records} == {"unverifiable"}
    assert "1 without retrieved documents (no_documents)" in capsys.readouterr().err


def test_watch_audits_again_each_pass_and_keeps_the_tally(
        apps: Any, phoenix: PhoenixServer, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    app = apps("haystack")
    name = project()
    send(app, phoenix, name)
    capsys.readouterr()
    code, records = audit(phoenix, name, "--watch", "1", "--watch-passes", "2")
    err = capsys.readouterr().err
    assert code == 0 and len(records) == 4  # audited in the first pass only
    assert "so far: 1 traces read, 1 audited" in err  # the tally after the first pass
    assert "2 traces read, 1 audited" in err and "1 already audited" in err
