"""The vcg-otel command: batch audits, CI gating, clear input errors (the demo: test_demo.py)."""

from __future__ import annotations

import json
import os
import re
import signal
import stat
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from support.cli_files import ANSWERS, write_jsonl
from support.fake_openai import FakeOpenAI, Reply
from support.phoenix_server import PhoenixServer, poll

from vcg_otel.cli import main


@pytest.mark.parametrize("docs", ["docs_dir", "docs_jsonl", "docs_json"])
def test_audit_writes_results_and_a_summary(files: dict[str, Path], docs: str,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["audit", str(files["answers"]), "--docs", str(files[docs]),
                 "--out", str(files["out"])])
    assert code == 0
    results = [json.loads(line) for line in files["out"].read_text().splitlines()]
    assert [(r["answer_id"], r["outcome"]) for r in results] == [
        ("a1", "found"), ("a1", "misattributed"), ("a2", "not_found"), ("a2", "found")]
    assert results[1]["gate"]["source_document_ids"] == ["blog"]
    summary = capsys.readouterr()
    assert "2 answers, 4 citations" in summary.err  # the summary is on stderr
    assert re.search(r"^misattributed\s+1\s+0\.2500$", summary.err, re.M)
    assert "auditing [" in summary.err  # progress
    assert summary.out == ""


def test_fail_on_thresholds_set_the_exit_code(files: dict[str, Path],
                                              capsys: pytest.CaptureFixture[str]) -> None:
    base = ["audit", str(files["answers"]), "--docs", str(files["docs_dir"]), "--no-progress"]
    assert main([*base, "--fail-on", "misattributed>0.3"]) == 0
    assert main([*base, "--fail-on", "misattributed>0.2", "--fail-on", "not_found>0.9"]) == 1
    out = capsys.readouterr().err
    assert "FAIL misattributed rate 0.2500 > 0.2" in out
    assert main([*base, "--fail-on", "fabricated>=0.5"]) == 1


def test_bad_threshold_is_a_usage_error(files: dict[str, Path],
                                        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["audit", str(files["answers"]), "--docs", str(files["docs_dir"]),
              "--fail-on", "made_up>0.1"])
    assert caught.value.code == 2
    assert "bad threshold" in capsys.readouterr().err


def test_bad_answers_line_names_file_and_line_and_leaves_no_output(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    broken = files["answers"].parent / "broken.jsonl"
    broken.write_text(json.dumps(ANSWERS[0]) + "\n" + "{not json\n")
    code = main(["audit", str(broken), "--docs", str(files["docs_dir"]),
                 "--out", str(files["out"])])
    assert code == 2
    assert f"{broken}:2: invalid JSON" in capsys.readouterr().err
    assert not files["out"].exists()
    assert not list(files["out"].parent.glob("*.partial"))


def test_bad_documents_file_is_named(files: dict[str, Path],
                                     capsys: pytest.CaptureFixture[str]) -> None:
    bad = write_jsonl(files["answers"].parent / "bad_docs.jsonl", [{"id": "x", "text": "ok"},
                                                                  {"no": "id"}])
    assert main(["audit", str(files["answers"]), "--docs", str(bad)]) == 2
    assert f"{bad}:2: expected an object with 'id' and 'text'" in capsys.readouterr().err
    missing = files["answers"].parent / "missing.json"
    assert main(["audit", str(files["answers"]), "--docs", str(missing)]) == 2


def judged_audit(server: FakeOpenAI, answers: Path, docs: Path, *args: str
                 ) -> subprocess.CompletedProcess[str]:
    """``vcg-otel audit --judge`` in its own process, the judge litellm over HTTP to the fake
    OpenAI server, which answers ``supports`` with 100 prompt and 10 completion tokens."""
    verdict = json.dumps({"verdict": "supports", "confidence": 0.9, "reasoning": "ok"})
    server.responder = lambda body: Reply(verdict, 100, 10)
    env = {**os.environ, "OPENAI_API_KEY": "sk-test", "OPENAI_API_BASE": server.base_url}
    return subprocess.run(
        [sys.executable, "-m", "vcg_otel.cli", "audit", str(answers), "--docs", str(docs),
         "--judge", "openai/test-judge", "--no-progress", *args],
        capture_output=True, text=True, timeout=120, env=env)


def test_judge_through_litellm_with_tokens(files: dict[str, Path], openai_server: FakeOpenAI
                                           ) -> None:
    out = judged_audit(openai_server, files["answers"], files["docs_dir"],
                       "--out", str(files["out"]))
    assert out.returncode == 0, out.stderr
    assert re.search(r"^supports\s+2\s+0\.5000$", out.stderr, re.M)
    assert "tokens: 200 prompt, 20 completion" in out.stderr
    assert len(openai_server.requests) == 2  # only the two quotes that exist were judged


# Numbered-marker citations as apps log them: {claim, doc_id} with the marker's number and no
# quote, over the bundled demo abstracts (positions 1-4 in file-name order: chunking-2024,
# citations-2025, judges-2026, rerank-2026); [7] names a source that was never retrieved.
MARKED = {"id": "marked", "answer": "Reranking helps [4]. Judges are lenient [3]. "
                                    "Rerankers double GPU memory [7].", "citations": [
    {"claim": "Reranking improves answer accuracy by 4.2% over a BM25 baseline.", "doc_id": "4"},
    {"claim": "LLM judges say yes for 31% of claims the passage does not establish.",
     "doc_id": "3"},
    {"claim": "Rerankers double GPU memory.", "doc_id": "7"}]}


@pytest.fixture
def marked(tmp_path: Path) -> dict[str, Path]:
    from vcg_otel import demo

    docs_dir = tmp_path / "abstracts"
    docs_dir.mkdir()
    for name, text in demo.documents().items():
        (docs_dir / name).write_text(text, encoding="utf-8")
    return {"answers": write_jsonl(tmp_path / "marked.jsonl", [MARKED]), "docs": docs_dir,
            "out": tmp_path / "marked-results.jsonl"}


def test_quoteless_citations_are_audited_and_an_unknown_source_counts_as_fabricated(
    marked: dict[str, Path]
) -> None:
    proc = vcg("audit", marked["answers"], "--docs", marked["docs"], "--out", marked["out"],
               "--fail-on", "fabricated>0")
    assert proc.returncode == 1, proc.stderr
    assert "warning" not in proc.stderr  # quote-less citations are first-class
    assert re.search(r"^unknown_source\s+1\s+0\.3333$", proc.stderr, re.M)
    assert re.search(r"^unverifiable\s+2\s+0\.6667$", proc.stderr, re.M)  # no judge
    assert "FAIL fabricated rate 0.3333 > 0" in proc.stderr
    results = [json.loads(line) for line in marked["out"].read_text().splitlines()]
    assert [r["outcome"] for r in results] == ["unverifiable", "unverifiable", "unknown_source"]
    rerank, judges, unknown = (r["evidence"] for r in results)
    assert unknown["unknown"] is True and unknown["evidence"] is None
    for found, doc in ((rerank, "rerank-2026"), (judges, "judges-2026")):
        best = found["evidence"]["passages"][0]
        assert best["document_id"] == doc and found["evidence"]["score"] > 0
        assert 0 <= best["sentence_start"] < best["sentence_end"] <= best["end"]
        assert "signal" in found["evidence"]
    text = (marked["docs"] / "rerank-2026.txt").read_text()
    best = rerank["evidence"]["passages"][0]
    assert "4.2%" in text[best["sentence_start"]:best["sentence_end"]]  # offsets are real


def test_the_judge_reads_quoteless_citations_but_never_an_unknown_source(
    marked: dict[str, Path], openai_server: FakeOpenAI
) -> None:
    proc = judged_audit(openai_server, marked["answers"], marked["docs"],
                        "--out", str(marked["out"]), "--fail-on", "fabricated>0")
    assert proc.returncode == 1, proc.stderr
    results = [json.loads(line) for line in marked["out"].read_text().splitlines()]
    assert [r["outcome"] for r in results] == ["supports", "supports", "unknown_source"]
    assert len(openai_server.requests) == 2  # the source that does not exist is never judged
    sent = json.dumps(openai_server.requests)
    assert "GPU memory" not in sent and "4.2%" in sent
    assert "tokens: 200 prompt, 20 completion" in proc.stderr


def test_spans_are_exported_to_phoenix(files: dict[str, Path], phoenix: PhoenixServer) -> None:
    project = "cli-export"
    assert main(["audit", str(files["answers"]), "--docs", str(files["docs_dir"]),
                 "--phoenix", phoenix.url, "--project", project, "--no-progress"]) == 0
    spans = poll(lambda: phoenix.spans(project), lambda s: len(s) >= 6)
    audits = [s for s in spans if s["name"] == "citation_audit"]
    assert sorted(s["attributes"]["citation.answer.id"] for s in audits) == ["a1", "a2"]
    assert sum(1 for s in spans if s["name"] == "citation.check") == 4


# --- the real command: exit codes, clear input errors, clean interruption ----------------------

CLI = Path(sys.executable).parent / "vcg-otel"


def vcg(*args: str | Path, env: dict[str, str] | None = None, timeout: float = 120,
        ) -> subprocess.CompletedProcess[str]:
    """The installed console script, as a user or a CI job runs it."""
    command = [str(CLI)] if CLI.exists() else [sys.executable, "-m", "vcg_otel.cli"]
    return subprocess.run([*command, *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, env=env)


def assert_input_error(proc: subprocess.CompletedProcess[str], message: str) -> None:
    """Exit 2 with one clear line naming the fault, never a traceback."""
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert f"vcg-otel: error: {message}" in proc.stderr, proc.stderr


def test_invalid_utf8_is_an_input_error_naming_file_and_line(files: dict[str, Path]) -> None:
    tmp = files["answers"].parent
    answers = tmp / "latin1.jsonl"
    answers.write_bytes(files["answers"].read_bytes() + '{"citations": [{"claim": "caf\xe9", '
                        '"quote": "q", "doc_id": "paper"}]}\n'.encode("latin-1"))
    assert_input_error(vcg("audit", answers, "--docs", files["docs_dir"]),
                       f"{answers}:3: not UTF-8 (byte 0xe9 at column 30)")
    (files["docs_dir"] / "notes.txt").write_bytes(b"fine\nstill fine\nna\xefve\n")
    assert_input_error(vcg("audit", files["answers"], "--docs", files["docs_dir"]),
                       f"{files['docs_dir'] / 'notes.txt'}:3: not UTF-8 (byte 0xef at column 3)")
    docs_json = tmp / "latin1.json"
    docs_json.write_bytes(b'{\n"paper": "caf\xe9"\n}\n')
    assert_input_error(vcg("audit", files["answers"], "--docs", docs_json),
                       f"{docs_json}:2: not UTF-8 (byte 0xe9 at column 14)")


def test_deeply_nested_line_is_an_input_error(files: dict[str, Path]) -> None:
    deep = files["answers"].parent / "deep.jsonl"
    deep.write_text(json.dumps(ANSWERS[0]) + "\n" + '{"a":' * 5000 + "1" + "}" * 5000 + "\n")
    assert_input_error(vcg("audit", deep, "--docs", files["docs_dir"]),
                       f"{deep}:2: JSON nested too deeply")
    huge = files["answers"].parent / "huge_number.jsonl"
    huge.write_text('{"id": ' + "9" * 5000 + "}\n")
    proc = vcg("audit", huge, "--docs", files["docs_dir"])
    assert_input_error(proc, f"{huge}:1: invalid JSON")


def test_invalid_json_message_says_where_and_why(files: dict[str, Path]) -> None:
    broken = files["answers"].parent / "broken.jsonl"
    broken.write_text('{"id": "a1", "citations": "unterminated\n')
    proc = vcg("audit", broken, "--docs", files["docs_dir"])
    assert_input_error(proc, f"{broken}:1: invalid JSON at column 40: Invalid control character")
    assert not proc.stderr.rstrip().endswith(" at")


@pytest.mark.parametrize("where", ["missing/results.jsonl", "a_directory", "/proc/self/x"])
def test_unwritable_out_is_refused_before_the_audit(files: dict[str, Path], where: str) -> None:
    tmp = files["answers"].parent
    (tmp / "a_directory").mkdir()
    out = Path(where) if where.startswith("/") else tmp / where
    proc = vcg("audit", files["answers"], "--docs", files["docs_dir"], "--out", out)
    reason = {"missing/results.jsonl": f"directory {tmp / 'missing'} does not exist",
              "a_directory": "is a directory", "/proc/self/x": "cannot write"}[where]
    assert_input_error(proc, f"--out {out}: {reason}")
    assert "auditing [" not in proc.stderr  # refused before a single answer was audited
    assert not list(tmp.rglob("*.partial"))


def test_out_into_a_pipe_is_written_through_not_replaced(files: dict[str, Path]) -> None:
    fifo = files["answers"].parent / "results.fifo"
    os.mkfifo(fifo)
    received: list[str] = []
    reader = threading.Thread(target=lambda: received.extend(fifo.read_text().splitlines()))
    reader.start()
    proc = vcg("audit", files["answers"], "--docs", files["docs_dir"], "--out", fifo,
               "--no-progress")
    reader.join(30)
    assert proc.returncode == 0, proc.stderr
    assert [json.loads(line)["outcome"] for line in received] == [
        "found", "misattributed", "not_found", "found"]
    assert stat.S_ISFIFO(fifo.stat().st_mode)


def test_answers_from_a_pipe_are_audited(files: dict[str, Path]) -> None:
    fifo = files["answers"].parent / "answers.fifo"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes(files["answers"].read_bytes()))
    writer.start()
    proc = vcg("audit", fifo, "--docs", files["docs_dir"], timeout=60)
    writer.join(30)
    assert proc.returncode == 0, proc.stderr
    assert "2 answers, 4 citations" in proc.stderr


def test_zero_concurrency_is_a_usage_error(files: dict[str, Path]) -> None:
    proc = vcg("audit", files["answers"], "--docs", files["docs_dir"], "--concurrency", "0")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "argument --concurrency: must be a whole number >= 1, not '0'" in proc.stderr


def test_answers_without_auditable_citations_are_reported_and_counted(
    files: dict[str, Path]
) -> None:
    odd = write_jsonl(files["answers"].parent / "odd.jsonl", [
        [1, 2, 3],
        {},
        {"citations": "see x"},
        {"id": "no-doc", "citations": [{"claim": "c", "quote": "improves accuracy by 4.2%"}]},
        {"id": "no-quote", "citations": [{"claim": "c", "doc_id": "paper"}]},
        ANSWERS[0],
    ])
    proc = vcg("audit", odd, "--docs", files["docs_dir"], "--out", files["out"])
    assert proc.returncode == 0, proc.stderr
    for line in (1, 2, 3):
        assert f"vcg-otel: warning: {odd}:{line}: no citations found; answer skipped" in (
            proc.stderr)
    assert f"vcg-otel: warning: {odd}:4: citation 1 has no doc_id; not audited" in proc.stderr
    assert "has no quote" not in proc.stderr  # a quote-less citation is audited, no warning
    assert "6 answers, 3 citations" in proc.stderr
    assert "not audited: 3 answers without citations, 1 citation without a doc_id" in proc.stderr
    results = [json.loads(line) for line in files["out"].read_text().splitlines()]
    assert [(r["answer_id"], r["outcome"]) for r in results] == [
        ("no-quote", "unverifiable"), ("a1", "found"), ("a1", "misattributed")]


def test_extractor_failure_is_an_input_error_naming_the_line(
    files: dict[str, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def explode(record: Any, budget: Any = None) -> Any:
        raise TypeError("unhashable type: 'dict'")

    monkeypatch.setattr("vcg_otel.reading.output.extract_citations", explode)  # the CLI reads there
    assert main(["audit", str(files["answers"]), "--docs", str(files["docs_dir"]),
                 "--out", str(files["out"])]) == 2
    assert (f"vcg-otel: error: {files['answers']}:1: cannot read this record "
            "(TypeError: unhashable type: 'dict')") in capsys.readouterr().err
    assert not files["out"].exists()


def test_internal_error_exits_3_not_1(files: dict[str, Path], monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    def broken(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("a bug")

    monkeypatch.setattr("vcg_otel.audit.Auditor.audit", broken)
    assert main(["audit", str(files["answers"]), "--docs", str(files["docs_dir"]),
                 "--fail-on", "misattributed>0.9", "--out", str(files["out"])]) == 3
    err = capsys.readouterr().err
    assert "RuntimeError: a bug" in err and "vcg-otel: internal error" in err
    assert not list(files["out"].parent.glob("*.partial"))


@pytest.mark.parametrize("empty", ["answers", "docs"])
def test_an_audit_of_nothing_does_not_pass_fail_on(files: dict[str, Path], empty: str) -> None:
    tmp = files["answers"].parent
    answers, docs = files["answers"], files["docs_dir"]
    if empty == "answers":
        answers = tmp / "empty.jsonl"
        answers.write_text("\n\n")
    else:
        docs = tmp / "no_docs"
        docs.mkdir()
    base = ("audit", answers, "--docs", docs, "--fail-on", "fabricated>0.02")
    what = f"{answers}: no answers" if empty == "answers" else f"{docs}: no documents"
    assert_input_error(vcg(*base), what)
    allowed = vcg(*base, "--allow-empty")
    assert f"vcg-otel: warning: {what}" in allowed.stderr
    # --allow-empty accepts the empty input; the audit itself still decides the exit code.
    # With no documents nothing can be checked: every citation is unverifiable, as in the
    # decorator (one reading path, one document model), never a fabrication.
    assert allowed.returncode == 0, allowed.stderr
    if empty == "docs":
        assert "unverifiable" in allowed.stderr and "not_found" not in allowed.stderr


def test_answers_that_yield_no_citation_at_all_are_refused(files: dict[str, Path]) -> None:
    nothing = write_jsonl(files["answers"].parent / "nothing.jsonl", [{}, [1, 2, 3]])
    assert_input_error(vcg("audit", nothing, "--docs", files["docs_dir"], "--fail-on",
                           "fabricated>0.02"), f"{nothing}: no citation was audited")


def test_inconsistent_follows_the_reports_rule(files: dict[str, Path]) -> None:
    base = ("audit", files["answers"], "--docs", files["docs_dir"], "--no-progress",
            "--fail-on", "inconsistent>0.3")
    strict = vcg(*base)  # misattributed + not_found of 4
    assert strict.returncode == 1 and "FAIL inconsistent rate 0.5000 > 0.3" in strict.stderr
    lenient = vcg(*base, "--misattributed-is-consistent")  # not_found only
    assert lenient.returncode == 0, lenient.stdout + lenient.stderr


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_mid_audit_leaves_no_partial_file(files: dict[str, Path],
                                                   openai_server: FakeOpenAI,
                                                   sig: signal.Signals) -> None:
    release = threading.Event()
    verdict = json.dumps({"verdict": "supports", "confidence": 0.9, "reasoning": "ok"})

    def hang(body: dict[str, Any]) -> Reply:
        release.wait(60)
        return Reply(verdict, 10, 1)

    openai_server.responder = hang
    env = {**os.environ, "OPENAI_API_KEY": "sk-test", "OPENAI_API_BASE": openai_server.base_url}
    command = [str(CLI)] if CLI.exists() else [sys.executable, "-m", "vcg_otel.cli"]
    proc = subprocess.Popen(
        [*command, "audit", str(files["answers"]), "--docs", str(files["docs_dir"]),
         "--judge", "openai/test-judge", "--out", str(files["out"]), "--no-progress"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert poll(lambda: len(openai_server.requests), bool, timeout=60)  # judge waiting
        assert list(files["out"].parent.glob(".results.jsonl.*.partial"))
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
    finally:
        release.set()
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 128 + sig, err
    assert ("terminated" if sig == signal.SIGTERM else "interrupted") in err
    assert not files["out"].exists()
    assert not list(files["out"].parent.glob("*.partial"))


def test_out_through_a_symlink_keeps_the_link(files: dict[str, Path]) -> None:
    real, link = files["out"].parent / "real.jsonl", files["out"].parent / "link.jsonl"
    link.symlink_to(real.name)
    proc = vcg("audit", files["answers"], "--docs", files["docs_dir"], "--out", link)
    assert proc.returncode == 0, proc.stderr
    assert link.is_symlink() and len(real.read_text().splitlines()) == 4


@pytest.mark.parametrize("results", ["file", "stdout"])
def test_a_reader_that_goes_away_ends_the_command_quietly(files: dict[str, Path],
                                                          results: str) -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)  # like `vcg-otel audit ... | head -0`
    out = files["out"] if results == "file" else Path("/dev/stdout")  # --out /dev/stdout | head
    answers = files["answers"].parent / "many.jsonl"  # results past one write buffer
    answers.write_text(files["answers"].read_text() * 100)
    try:
        command = [str(CLI)] if CLI.exists() else [sys.executable, "-m", "vcg_otel.cli"]
        proc = subprocess.run([*command, "audit", str(answers), "--docs",
                               str(files["docs_dir"]), "--out", str(out), "--no-progress"],
                              stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(write_end)
    assert "Traceback" not in proc.stderr and "Exception ignored" not in proc.stderr
    assert not list(files["out"].parent.glob("*.partial"))
    if results == "file":  # nothing of ours goes to stdout (the summary is on stderr)
        assert proc.returncode == 0, proc.stderr
        assert len(files["out"].read_text().splitlines()) == 400
    else:
        assert proc.returncode == 128 + signal.SIGPIPE, proc.stderr


def test_a_slipped_quote_cited_to_the_wrong_document_stays_misattributed_over_a_long_log(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # One --docs set serves every answer of the log, so it builds its word index once the
    # misses have paid for it. Quotes that joined a compound, dropped a thousands separator or
    # kept Rich's markup, cited to the wrong README or abstract, must still be misattributed
    # afterwards, as before the index (they were not_found: fabrications).
    root = Path(__file__).resolve().parents[3]
    abstracts = json.loads((root / "benchmarks/data/arxiv_abstracts_295.json").read_text())
    readmes = json.loads((root / "benchmarks/data/markup_samples.json").read_text())
    keys = ["2608.05138v1", "2608.04244v1", *sorted(abstracts)[:36]]
    docs = {k: abstracts[k] for k in keys}
    docs["md-rich"], docs["md-fastapi"] = readmes["md-rich"]["text"], readmes["md-fastapi"]["text"]
    (tmp_path / "docs.json").write_text(json.dumps(docs))
    other = sorted(abstracts)[5]
    invented = [f"the benchmark shows a {n} point gain on every held out split" for n in range(12)]
    slipped = [  # (quote as a model wrote it, the document it is from)
        ("After finetuning on 65773 Greek retrieval pairs", "2608.05138v1"),
        ("interventions are designed to preserve nontextual content", "2608.04244v1"),
        ('console.print("Where there is a [bold cyan]Will[/bold cyan] there [u]is[/u] a '
         '[i]way[/i].")', "md-rich"),
    ]
    records = [{"id": f"made-up-{i}", "answer": "...",
                "citations": [{"claim": "c", "quote": q, "doc_id": other}]}
               for i, q in enumerate(invented)]
    records += [{"id": f"slipped-{i}", "answer": "...",
                 "citations": [{"claim": "c", "quote": q, "doc_id": "md-fastapi"}]}
                for i, (q, _) in enumerate(slipped)]
    write_jsonl(tmp_path / "answers.jsonl", records)
    out = tmp_path / "results.jsonl"
    assert main(["audit", str(tmp_path / "answers.jsonl"), "--docs", str(tmp_path / "docs.json"),
                 "--out", str(out), "--no-progress"]) == 0
    results = {r["answer_id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert {results[f"made-up-{i}"]["outcome"] for i in range(len(invented))} == {"not_found"}
    for i, (_, source) in enumerate(slipped):
        r = results[f"slipped-{i}"]
        assert r["outcome"] == "misattributed", r
        assert r["gate"]["source_document_ids"] == [source]
