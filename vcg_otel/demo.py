"""``vcg-otel demo``: a small audited RAG app sending its citations into a local Phoenix.

The app answers six questions over four bundled documents. Its answers cite their sources
with a realistic mix: honest quotes, an elided quote, a fabricated one, a "frankenquote"
stitched from two real halves, and a real passage cited to the wrong document. The demo
starts Phoenix (extra ``demo``), runs the app under ``@audited_citations``, then reads the
spans and annotations back *from Phoenix* and prints the rates it finds there.

With ``VCG_JUDGE_MODEL`` set (a litellm model string) the skeptical judge runs too; without
it the audit is gate-only, and the demo says so.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable
from typing import Any

from .decorator import audited_citations
from .otel import semconv

__all__ = ["ANSWERS", "DOCUMENTS", "build_app", "run_demo"]

PROJECT = "vcg-otel-demo"

DOCUMENTS: dict[str, str] = {
    "rerank-2026": (
        "We study cross-encoder reranking for retrieval-augmented generation. On three "
        "question-answering benchmarks the reranker improves answer accuracy by 4.2% over a "
        "BM25 baseline, although the gains shrink on documents longer than 2,000 tokens. "
        "Latency rises by 38 ms per query on a single GPU."
    ),
    "citations-2025": (
        "Citation errors are common in generated answers. In a manual audit of 1,200 answers, "
        "one in five quotes could not be traced to the cited source, and 7% of traceable "
        "quotes came from a different document than the one cited."
    ),
    "judges-2026": (
        "LLM judges are lenient by default: asked whether a passage supports a claim, they "
        "answer yes for 31% of claims that the passage does not establish. A burden-of-proof "
        "prompt cut this rate to 6% without lowering agreement on supported claims."
    ),
    "chunking-2024": (
        "Smaller chunks raise retrieval precision but lose context. With 256-token chunks, "
        "precision at 5 rose from 0.61 to 0.72, while answer completeness fell by 9 points."
    ),
}

# (question, answer text, citations: claim, quote, cited document)
ANSWERS: list[tuple[str, str, list[tuple[str, str, str]]]] = [
    ("Does reranking help RAG?", "Yes, modestly, and less on long documents.", [
        ("Reranking improves accuracy.",
         "the reranker improves answer accuracy by 4.2% over a BM25 baseline", "rerank-2026"),
        ("Gains are smaller on long documents.",
         "the reranker improves answer accuracy \u2026 although the gains shrink on documents "
         "longer than 2,000 tokens", "rerank-2026"),
    ]),
    ("What does reranking cost?", "Some latency.", [
        ("Reranking adds latency.", "Latency rises by 38 ms per query", "rerank-2026"),
        ("Reranking doubles GPU memory.",  # fabricated
         "the reranker doubles GPU memory use on every benchmark", "rerank-2026"),
    ]),
    ("How common are citation errors?", "Common.", [
        ("One in five quotes cannot be traced.",
         "one in five quotes could not be traced to the cited source", "citations-2025"),
        ("Misattribution is frequent.",  # a real passage, cited to the wrong document
         "7% of traceable quotes came from a different document", "judges-2026"),
    ]),
    ("Are LLM judges reliable?", "Not by default.", [
        ("Judges are lenient.", "LLM judges are lenient by default", "judges-2026"),
        ("A strict prompt fixes leniency.",  # frankenquote: two real halves, not one passage
         "A burden-of-proof prompt cut this rate to 6% of claims that the passage does not "
         "establish", "judges-2026"),
    ]),
    ("Should I use small chunks?", "It depends.", [
        ("Small chunks help precision.",
         "[W]ith 256-token chunks, precision at 5 rose from 0.61 to 0.72", "chunking-2024"),
        ("Small chunks lose context.", "Smaller chunks raise retrieval precision but lose "
         "context", "chunking-2024"),
    ]),
    ("Do small chunks hurt answers?", "Yes, completeness drops.", [
        ("Completeness falls.", "answer completeness fell by 19 points",  # number changed
         "chunking-2024"),
    ]),
]


def build_app(judge: Any, tracer_provider: Any) -> Callable[[str], dict[str, Any]]:
    """The demo's RAG handler, decorated the way an application would do it."""

    @audited_citations(judge=judge, tracer_provider=tracer_provider)
    def answer(question: str, documents: dict[str, str] = DOCUMENTS) -> dict[str, Any]:
        for q, text, citations in ANSWERS:  # stands in for retrieval + generation
            if q == question:
                return {"answer": text, "citations": [
                    {"claim": claim, "quote": quote, "doc_id": doc}
                    for claim, quote, doc in citations]}
        return {"answer": "I don't know.", "citations": []}

    return answer


def _judge() -> Any:
    model = os.environ.get(semconv.ENV_JUDGE_MODEL)
    if not model:
        print("judge: none, gate only (set VCG_JUDGE_MODEL to a litellm model string, e.g. "
              "openai/gpt-4o-mini, to add the skeptical judge)")
        return None
    from .llm import LiteLLMJudge

    print(f"judge: {model} via litellm")
    return LiteLLMJudge(model)


def _rates(verdicts: list[str]) -> str:
    total = len(verdicts) or 1
    fabricated = verdicts.count("not_found") / total
    misattributed = verdicts.count("misattributed") / total
    return (f"{len(verdicts)} citations: fabrication (not_found) rate {fabricated:.1%}, "
            f"misattribution rate {misattributed:.1%}")


def _run_app(provider: Any) -> None:
    app = build_app(_judge(), provider)
    for question, _, _ in ANSWERS:
        app(question)
    provider.force_flush()


def run_demo(no_server: bool = False, keep: bool = False, port: int | None = None) -> int:
    """Run the demo (see the module docstring). Returns the process exit code."""
    if no_server:
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import ConsoleSpanExporter, SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
            InMemorySpanExporter,
        )

        memory = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(ConsoleSpanExporter()))
        provider.add_span_processor(SimpleSpanProcessor(memory))
        _run_app(provider)
        verdicts = [str((s.attributes or {}).get(semconv.VERDICT))
                    for s in memory.get_finished_spans() if s.name == semconv.SPAN_CHECK]
        print("\n" + _rates(verdicts) + " (from the exported spans)")
        return 0

    from .phoenix import LocalPhoenix, register

    workdir = tempfile.mkdtemp(prefix="vcg-otel-phoenix-")
    phoenix = LocalPhoenix(workdir, port)
    print(f"starting Phoenix (SQLite in {workdir}) ...", flush=True)
    phoenix.start()
    try:
        print(f"Phoenix is up: {phoenix.url}/projects  (project {PROJECT!r})")
        provider = register(project_name=PROJECT, endpoint=phoenix.url)
        _run_app(provider)
        expected = sum(len(c) for _, _, c in ANSWERS)
        deadline = time.monotonic() + 30
        checks: list[dict[str, Any]] = []
        while time.monotonic() < deadline:
            checks = [s for s in phoenix.spans(PROJECT) if s["name"] == semconv.SPAN_CHECK]
            if len(checks) >= expected:
                break
            time.sleep(0.2)
        verdicts = [str(s["attributes"].get(semconv.VERDICT)) for s in checks]
        print("\nread back from Phoenix:")
        print("  " + _rates(verdicts))
        fractions = phoenix.label_fractions(PROJECT)
        if fractions:
            share = fractions.get("fabricated", 0.0)
            print(f"  requests with a fabricated or misattributed citation "
                  f"(annotation citation_fabrication): {share:.1%}")
        print("\nIn the Phoenix UI, filter spans with:\n"
              "  span_kind == 'EVALUATOR' and citation.gate.result == 'misattributed'")
        provider.shutdown()
        if keep:
            print(f"\nPhoenix keeps running at {phoenix.url} - press Ctrl-C to stop.")
            try:
                while True:
                    time.sleep(1)
            except KeyboardInterrupt:
                pass
    finally:
        phoenix.stop()
    return 0
