"""What the framework integration tests share: real documents, a model that answers with citations
over HTTP, a tracer provider exporting to a real Phoenix, and reading traces back.

The documents are real arXiv abstracts (benchmarks/data). The "model" is
tests/support/fake_openai.py: it answers with an honest, a fabricated and a misattributed citation
chosen from the chunks the framework's own store and splitter produced, so the ids the frameworks
give are the ids the test meets.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from support.fake_openai import FakeOpenAI, Reply
from support.paths import ROOT
from support.phoenix_server import PhoenixServer, poll

ABSTRACTS: dict[str, str] = json.loads(
    (ROOT / "benchmarks/data/arxiv_abstracts_295.json").read_text())
#: Three real abstracts, as files "<arxiv id>.txt"
PAPERS = {f"{arxiv_id}.txt": ABSTRACTS[arxiv_id] for arxiv_id in sorted(ABSTRACTS)[:3]}
FABRICATED = "the proposed method doubles accuracy on every benchmark we tried"


def words(text: str, start: int, count: int) -> str:
    """``count`` consecutive words of ``text`` from word ``start`` (a verbatim quote, without
    the sentence punctuation at its edges that the gate does not count as part of it)."""
    return " ".join(text.split()[start:start + count]).strip(".,;:()\"'")


@dataclass(frozen=True)
class Script:
    """The three citations a test answer makes, and the cited identifier."""

    cited: str  # how the answer names the honest document
    honest: str
    misattributed: str  # really from another document, cited as ``cited``
    fabricated: str = FABRICATED

    def citations(self) -> list[dict[str, str]]:
        return [
            {"claim": "The paper says so.", "quote": self.honest, "doc_id": self.cited},
            {"claim": "The paper says more.", "quote": self.fabricated, "doc_id": self.cited},
            {"claim": "The paper says this too.", "quote": self.misattributed,
             "doc_id": self.cited},
        ]

    def json_answer(self) -> str:
        return json.dumps({"answer": "An answer with three citations.",
                           "citations": self.citations()})

    def inline_answer(self) -> str:
        """Prose with inline quotes, as a model asked to cite ``"quote" [source]`` writes."""
        return " ".join(f'The paper says "{c["quote"]}" [{c["doc_id"]}].'
                        for c in self.citations())


def answer_with(server: FakeOpenAI, text: str) -> None:
    """Every chat request to ``server`` gets ``text`` as the model's answer."""
    server.responder = lambda body: Reply(text, prompt_tokens=120, completion_tokens=60)


def project() -> str:
    return f"it-{uuid.uuid4().hex[:8]}"


@contextmanager
def phoenix_provider(phoenix: PhoenixServer, name: str) -> Iterator[Any]:
    """An SDK tracer provider exporting to the real Phoenix, project ``name``."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    provider = TracerProvider(resource=Resource({"openinference.project.name": name}))
    provider.add_span_processor(SimpleSpanProcessor(OTLPSpanExporter(f"{phoenix.url}/v1/traces")))
    try:
        yield provider
    finally:
        provider.shutdown()


def read_trace(phoenix: PhoenixServer, name: str, expected_checks: int) -> list[dict[str, Any]]:
    """The project's spans, once the audit, its ``expected_checks`` check spans and the audit's
    parent arrived (Phoenix makes spans readable one by one, tens of milliseconds after the
    flush: on a loaded machine the framework span around the audit can come last)."""
    def complete(spans: list[dict[str, Any]]) -> bool:
        names = [s["name"] for s in spans]
        audit = next((s for s in spans if s["name"] == "citation_audit"), None)
        if audit is None or names.count("citation.check") < expected_checks:
            return False
        ids = {s["context"]["span_id"] for s in spans}
        return audit.get("parent_id") is None or audit["parent_id"] in ids

    return poll(lambda: phoenix.spans(name), complete)


def one_trace_with_audit_inside(spans: list[dict[str, Any]]) -> dict[str, Any]:
    """Assert every span shares one trace and the audit hangs under a framework span; returns
    the audit span's parent."""
    traces = {s["context"]["trace_id"] for s in spans}
    assert len(traces) == 1, sorted((s["name"], s["context"]["trace_id"]) for s in spans)
    by_id = {s["context"]["span_id"]: s for s in spans}
    audit = next(s for s in spans if s["name"] == "citation_audit")
    parent = by_id.get(audit["parent_id"])
    assert parent is not None, "the audit span has no parent in the trace"
    for s in spans:
        if s["name"] == "citation.check":
            assert s["parent_id"] == audit["context"]["span_id"]
    return parent


def checks_by_quote(spans: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The attributes of each check span, by quote."""
    return {s["attributes"]["citation.quote"]: s["attributes"]
            for s in spans if s["name"] == "citation.check"}
