"""Issue 19, item 2 end to end: an async judge that swallows its cancellation cannot hang the
host. In a fresh interpreter, a decorated handler (sync, or async under the host's own
``asyncio.run``) audits with such a judge and ``timeout=1``: the call returns, the check
span records the timeout, ``asyncio.run`` ends, and the interpreter exits. The failure
signal is the subprocess timeout (generous: it only catches a hang), not a timing
assertion."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from support.paths import ROOT

SCRIPT = textwrap.dedent('''
    import asyncio, json, sys
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from vcg_otel import audited_citations

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    ended = []

    async def stubborn_judge(system, user):
        """Swallows every cancellation and waits again, for ever."""
        try:
            while True:
                try:
                    await asyncio.sleep(3600)
                except asyncio.CancelledError:
                    pass
        finally:
            ended.append("judge closed")

    DOCS = {"paper": "The proposed reranker improves accuracy by 4.2% over the baseline."}
    ANSWER = 'It helps: "improves accuracy by 4.2%" [paper].'
    decorate = audited_citations(judge=stubborn_judge, timeout=1, tracer_provider=provider)

    if sys.argv[1] == "sync":
        @decorate
        def answer(question, documents):
            return ANSWER

        returned = answer("q", DOCS)
    else:
        @decorate
        async def answer(question, documents):
            return ANSWER

        async def main():
            return await answer("q", DOCS)

        returned = asyncio.run(main())  # the host's own loop: it must end
    check = next(s for s in exporter.get_finished_spans() if s.name == "citation.check")
    print(json.dumps({"returned": returned, "verdict": check.attributes["citation.verdict"],
                      "reason": check.attributes["citation.judge.fail_reason"],
                      "ended": ended}), flush=True)
''')


@pytest.mark.parametrize("handler", ["sync", "async"])
def test_a_judge_that_swallows_cancellation_lets_the_call_return_and_the_host_exit(
        handler: str, tmp_path: Path) -> None:
    script = tmp_path / "host.py"
    script.write_text(SCRIPT)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "VCG_OTEL_SHUTDOWN_TIMEOUT": "5"}
    try:
        done = subprocess.run([sys.executable, str(script), handler], capture_output=True,
                              text=True, timeout=120, env=env, cwd=tmp_path)
    except subprocess.TimeoutExpired as hung:
        pytest.fail(f"the host never exited: {hung.stdout!r} {hung.stderr!r}")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["returned"] == 'It helps: "improves accuracy by 4.2%" [paper].'
    assert (result["verdict"], result["reason"]) == ("unjudged", "timeout")
    assert "Traceback" not in done.stderr and "unhandled exception" not in done.stderr
    if handler == "async":  # asyncio.run waited for the judge's task: it was made to end
        assert result["ended"] == ["judge closed"]
