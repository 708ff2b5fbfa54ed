"""Faults around the app: a black-holing OTLP endpoint, a hung judge at exit, no SDK at all.

In each, the handler's result and latency are unaffected in observe mode and nothing hangs
past its documented bound.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from vcg_otel import audited_citations
from vcg_otel.phoenix import register

DOCS = {"d": "The reranker improves accuracy by 4.2% over the baseline."}


@pytest.fixture
def black_hole() -> Iterator[str]:
    """Accepts connections and never answers."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(64)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
                held.append(conn)
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.getsockname()[1]}"
    stop.set()
    thread.join(2)
    for conn in held:
        conn.close()
    server.close()


def test_black_holing_endpoint_neither_slows_the_app_nor_hangs_shutdown(black_hole: str
                                                                        ) -> None:
    provider = register(project_name="black-hole", endpoint=black_hole, export_timeout=3.0)

    @audited_citations(tracer_provider=provider)
    def answer(documents: dict[str, str]) -> dict[str, Any]:
        return {"citations": [{"claim": "c", "quote": "improves accuracy", "doc_id": "d"}]}

    worst = 0.0
    for _ in range(40):
        t0 = time.perf_counter()
        assert answer(DOCS)["citations"]
        worst = max(worst, time.perf_counter() - t0)
    assert worst < 1.0  # a blocking export would take the full 3 s timeout
    t0 = time.perf_counter()
    provider.shutdown()
    assert time.perf_counter() - t0 < 25  # export timeout + annotation shutdown bound


def _run(code: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=timeout)


def test_interpreter_exit_waits_at_most_the_documented_bound_for_a_hung_judge() -> None:
    code = """
        import os, time
        os.environ["VCG_OTEL_SHUTDOWN_TIMEOUT"] = "1"
        from opentelemetry.sdk.trace import TracerProvider
        from vcg_otel import audited_citations

        def hung(system, user):
            time.sleep(3600)

        @audited_citations(judge=hung, background=True, timeout=None,
                           tracer_provider=TracerProvider())
        def answer(documents):
            return {"citations": [{"claim": "c", "quote": "improves accuracy", "doc_id": "d"}]}

        t0 = time.perf_counter()
        answer({"d": "The reranker improves accuracy."})
        print("returned after", round(time.perf_counter() - t0, 3))
    """
    t0 = time.perf_counter()
    out = _run(code)
    elapsed = time.perf_counter() - t0
    assert out.returncode == 0, out.stderr
    assert float(out.stdout.split()[-1]) < 0.5  # the handler did not wait for the judge
    assert elapsed < 15  # exit: 1 s bound (plus interpreter start-up), not an hour


def test_without_the_sdk_installed_everything_still_works() -> None:
    code = """
        import sys

        class Block:
            def find_spec(self, name, path=None, target=None):
                if name == "opentelemetry.sdk" or name.startswith("opentelemetry.sdk."):
                    raise ImportError("no SDK here")

        sys.meta_path.insert(0, Block())
        from vcg_otel import Auditor, audited_citations, quote_gate

        @audited_citations
        def answer(documents):
            return {"citations": [{"claim": "c", "quote": "improves accuracy", "doc_id": "d"}]}

        docs = {"d": "The reranker improves accuracy."}
        assert answer(docs)["citations"]
        assert quote_gate("improves accuracy", "d", docs) == "found"
        assert Auditor().audit(answer(docs)["citations"], docs).counts == {"found": 1}
        assert "opentelemetry.sdk" not in sys.modules
        print("ok")
    """
    out = _run(code)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


_HUNG_AUDITS = """
    import os, time
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from vcg_otel import audited_citations

    def hung(system, user):
        time.sleep(3600)

    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))

    @audited_citations(judge=hung, background=True, timeout=None, tracer_provider=provider)
    def answer(documents):
        return {"citations": [{"claim": "c", "quote": "improves accuracy", "doc_id": "d"}]}

    import atexit  # registered first, so it runs after the audits' shutdown (last in, first out)
    atexit.register(lambda: print("ended", len(memory.get_finished_spans())))
    for _ in range(COUNT):
        answer({"d": "The reranker improves accuracy."})
    print("returned")
"""


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "soon"])
def test_a_shutdown_timeout_that_is_not_a_finite_number_falls_back_to_the_default(
        value: str) -> None:
    code = f'import os\nos.environ["VCG_OTEL_SHUTDOWN_TIMEOUT"] = "{value}"\n'
    out = _run(code + textwrap.dedent(_HUNG_AUDITS).replace("COUNT", "1"), timeout=30)
    assert out.returncode == 0, out.stderr  # before: nan and inf waited for ever
    assert "VCG_OTEL_SHUTDOWN_TIMEOUT" in out.stderr and "using 5.0" in out.stderr


def test_exit_with_a_thousand_hung_audits_cancels_them_quietly_and_ends_their_spans() -> None:
    code = 'import os\nos.environ["VCG_OTEL_SHUTDOWN_TIMEOUT"] = "0.5"\n'
    out = _run(code + textwrap.dedent(_HUNG_AUDITS).replace("COUNT", "1200"), timeout=60)
    assert out.returncode == 0, out.stderr
    assert "Task was destroyed" not in out.stderr, out.stderr[:2000]
    assert out.stdout.split() == ["returned", "ended", "1200"]  # 1,000 cancelled, 200 dropped
