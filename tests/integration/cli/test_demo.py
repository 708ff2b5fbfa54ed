"""``vcg-otel demo``: a real Haystack RAG pipeline, its model the bundled answer server, its
audit inside its own trace, read back from a real Phoenix; the temporary directory removed.

The demo runs as users run it, as a separate process (it installs the global tracer provider
and the OpenInference Haystack instrumentor, as an application does).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("haystack")

from support.fake_openai import FakeOpenAI, Reply
from support.frameworks import one_trace_with_audit_inside
from support.phoenix_server import PhoenixServer

from vcg_otel import demo
from vcg_otel.answer_server import AnswerServer

RATES = ("14 citations: of the 11 quoted, fabrication (not_found) rate 27.3%, misattribution "
         "rate 9.1%; of the 3 without a quote, unknown-source rate 33.3%")
REQUESTS = "unknown_source; annotation citation_fabrication): 71.4%"
MARKED = "Can I trust the citations in generated answers?"  # cites [1], [2] and [7], no quotes


def _env(tmp: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "VCG_JUDGE_MODEL"}
    return {**env, "TMPDIR": str(tmp), "PYTHONUNBUFFERED": "1", **extra}


def _demo(*args: str, env: dict[str, str], timeout: float = 240,
          ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "vcg_otel.cli", "demo", *args],
                          capture_output=True, text=True, timeout=timeout, env=env)


def _phoenix_dirs(tmp: Path) -> list[Path]:
    return sorted(tmp.glob("vcg-otel-phoenix-*"))


# --- the bundled model and its answer book ----------------------------------------------------

def test_answer_server_answers_scripted_questions_to_an_openai_client() -> None:
    from openai import OpenAI

    book = demo.answer_book()
    question = next(iter(book))
    with AnswerServer(book, demo.UNKNOWN) as server:
        client = OpenAI(api_key="none", base_url=server.base_url, max_retries=0)
        prompt = f"[rerank-2026.txt] Some source text.\nQuestion: {question}"
        answer = client.chat.completions.create(
            model="any", messages=[{"role": "user", "content": prompt}])
        assert answer.choices[0].message.content == book[question]
        other = client.chat.completions.create(
            model="any", messages=[{"role": "user", "content": "Question: what else?"}])
        assert other.choices[0].message.content == demo.UNKNOWN


def test_answer_server_refuses_what_is_not_a_chat_completion_request() -> None:
    with AnswerServer({}, demo.UNKNOWN) as server:
        for path, body, status in (("/chat/completions", b"not json", 400),
                                   ("/chat/completions", b"[1, 2]", 400),
                                   ("/embeddings", b"{}", 404)):
            request = urllib.request.Request(server.base_url + path, data=body)
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(request, timeout=10)
            assert refused.value.code == status


def test_answer_book_cites_bundled_documents_with_every_kind_of_citation() -> None:
    """Every cited name is a bundled file's stem, and the book holds what the demo promises:
    honest, elided, fabricated, frankenquote and misattributed quotes."""
    stems = {name.removesuffix(".txt") for name in demo.documents()}
    assert len(stems) == 4
    book = demo.answer_book()
    citations = [c for question, answer in book.items() if question != MARKED
                 for c in json.loads(answer)["citations"]]
    assert {c["doc_id"] for c in citations} == stems
    assert any("\u2026" in c["quote"] for c in citations)  # elided
    assert len(citations) == 11


def test_the_marker_answer_cites_without_quotes_and_one_source_beyond_those_retrieved() -> None:
    """Plain text, as most models answer: [1] and [2] of the three retrieved sources, [7] of
    none; the checker's extraction reads one quote-less citation per marker."""
    from vcg_otel.integrations.answers import citations_in_text

    found = citations_in_text(demo.answer_book()[MARKED])
    assert [(c.document_id, c.quote) for c in found] == [("1", None), ("2", None), ("7", None)]
    assert found[0].claim.startswith("In a manual audit, one in five quotes")


# --- the demo, run as a user runs it ---------------------------------------------------------

def test_demo_without_a_server_prints_spans_and_rates(tmp_path: Path) -> None:
    out = _demo("--no-server", env=_env(tmp_path), timeout=120)
    assert out.returncode == 0, out.stderr
    assert "gate only" in out.stdout
    for name in ("Pipeline.run", "InMemoryBM25Retriever.run", "OpenAIChatGenerator.run",
                 "ReplyCitationChecker.run", "citation_audit"):
        assert f'"name": "{name}"' in out.stdout, name
    assert f"{RATES} (from the exported spans)" in out.stdout
    assert _phoenix_dirs(tmp_path) == []


def test_demo_with_a_judge_judges_the_quotes_that_exist_through_litellm(
        tmp_path: Path, openai_server: FakeOpenAI) -> None:
    verdict = '{"verdict": "supports", "confidence": 0.9, "reasoning": "scripted"}'
    openai_server.responder = lambda body: Reply(verdict, 50, 10)
    out = _demo("--no-server", timeout=120, env=_env(
        tmp_path, VCG_JUDGE_MODEL="openai/test-judge", OPENAI_API_KEY="sk-test",
        OPENAI_API_BASE=openai_server.base_url))
    assert out.returncode == 0, out.stderr
    assert "judge: openai/test-judge via litellm" in out.stdout
    assert f"{RATES} (from the exported spans)" in out.stdout
    assert out.stdout.count('"citation.verdict": "supports"') == 9
    # the 7 found quotes and the 2 marked claims whose source exists were judged; the 3 not
    # found, the misattributed quote and the unknown source [7] never sent
    assert len(openai_server.requests) == 9
    sent = json.dumps(openai_server.requests)
    assert "halve these errors" not in sent and "accuracy by 4.2% over BM25" in sent


def test_demo_reads_its_rates_back_from_a_real_phoenix_and_removes_its_directory(
        tmp_path: Path) -> None:
    out = _demo(env=_env(tmp_path))
    assert out.returncode == 0, out.stderr + out.stdout
    assert "Phoenix is up: http://127.0.0.1:" in out.stdout
    assert "read back from Phoenix:" in out.stdout
    assert "7 of 7 requests, one trace each:" in out.stdout
    for question, verdicts in (("Does reranking help RAG?", "found, found"),  # one elided
                               ("What does reranking cost?", "found, not_found"),
                               ("How common are citation errors?", "found, misattributed"),
                               ("Are LLM judges reliable?", "found, not_found"),  # frankenquote
                               ("Do small chunks hurt answers?", "not_found"),
                               (MARKED, "unverifiable, unverifiable, unknown_source")):
        assert re.search(rf"^  {re.escape(question)} +{verdicts}$", out.stdout, re.M), question
    assert f"  {RATES}\n" in out.stdout
    assert REQUESTS in out.stdout
    assert _phoenix_dirs(tmp_path) == []  # Phoenix's SQLite directory is gone


def test_demo_without_haystack_says_which_extra_to_install(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "haystack" else real(name, *a))
    assert demo.run_demo(no_server=True) == 2
    assert "pip install 'vcg-otel[demo]'" in capsys.readouterr().err


def test_demo_directory_is_removed_when_phoenix_fails_to_start(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from vcg_otel.phoenix.local import LocalPhoenix

    def refuse(self: LocalPhoenix, timeout: float = 0) -> None:
        assert Path(self.workdir).is_dir()
        raise RuntimeError("Phoenix exited during start-up")

    monkeypatch.setattr(LocalPhoenix, "start", refuse)
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    monkeypatch.delenv("VCG_JUDGE_MODEL", raising=False)
    with pytest.raises(RuntimeError, match="start-up"):
        demo.run_demo()
    assert _phoenix_dirs(tmp_path) == []


def _checker_traces(phoenix: PhoenixServer) -> list[list[dict[str, Any]]]:
    traces: dict[str, list[dict[str, Any]]] = {}
    for s in phoenix.spans(demo.PROJECT):
        traces.setdefault(s["context"]["trace_id"], []).append(s)
    return list(traces.values())


def test_demo_keep_leaves_phoenix_up_with_one_trace_per_request_then_keeps_its_data(
        tmp_path: Path) -> None:
    """With ``--keep`` the demo's own Phoenix stays up: each request is one trace in which the
    retriever, the LLM call over HTTP and the audit share the trace, the ``citation_audit``
    span under the checker component's span; after Ctrl-C the data directory stays."""
    process = subprocess.Popen([sys.executable, "-m", "vcg_otel.cli", "demo", "--keep"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               env=_env(tmp_path))
    lines: list[str] = []
    try:
        assert process.stdout is not None
        for line in process.stdout:
            lines.append(line)
            if "press Ctrl-C to stop" in line:
                break
        running = re.search(r"Phoenix keeps running at (http://127\.0\.0\.1:(\d+)) ",
                            "".join(lines))
        assert running, "".join(lines)
        url, port = running.group(1), int(running.group(2))
        phoenix = PhoenixServer(tmp_path, port)  # a reader of the demo's server
        traces = _checker_traces(phoenix)
        assert len(traces) == 7, "".join(lines)
        for spans in traces:
            parent = one_trace_with_audit_inside(spans)
            assert parent["name"] == "ReplyCitationChecker.run"
            kinds = {s["span_kind"] for s in spans}
            assert {"RETRIEVER", "LLM", "GUARDRAIL", "EVALUATOR"} <= kinds
            root = next(s for s in spans if s["parent_id"] is None)
            assert root["name"] == "Pipeline.run"
        process.send_signal(signal.SIGINT)
        rest, _ = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, "".join(lines) + rest
    kept = _phoenix_dirs(tmp_path)
    assert len(kept) == 1 and (kept[0] / "phoenix.log").exists()
    assert f"Phoenix's data stays in {kept[0]}" in rest
    with pytest.raises(OSError):  # Phoenix itself was stopped
        urllib.request.urlopen(f"{url}/healthz", timeout=2)
