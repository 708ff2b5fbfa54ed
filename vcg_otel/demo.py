"""``vcg-otel demo``: a real RAG pipeline whose citations are audited inside its own trace.

A Haystack pipeline answers seven questions over four bundled paper abstracts
(``vcg_otel/data/demo/*.txt``): an in-memory document store, a BM25 retriever, a prompt
builder, Haystack's ``OpenAIChatGenerator`` calling a model over HTTP, and the
:class:`~vcg_otel.integrations.haystack.ReplyCitationChecker`. The model is the bundled
:class:`~vcg_otel.answer_server.AnswerServer` on 127.0.0.1 (offline, deterministic, no
weights): its answers (``vcg_otel/data/demo/answers.json``) cite the abstracts by file stem
with a realistic mix -- honest quotes, an elided one (``…``, reranking), an editorial
``[W]ith`` (chunking), a fabricated one (GPU memory), a number changed (completeness fell by
19 points), a "frankenquote" stitched from two real halves (judges), and a real passage cited
to the wrong document (the 7% figure, cited to the judges paper). One answer (citations)
cites as most models do, without quotes, by numbered markers: ``[1]`` and ``[2]`` name two of
the three retrieved sources, ``[7]`` a source never retrieved (``unknown_source``, a
fabricated citation never sent to the judge); the checker reads the markers itself.

The demo starts Phoenix (extra ``demo``) in a temporary directory, instruments Haystack with
the OpenInference instrumentor, runs the pipeline once per question (one trace each: the
retriever, the prompt, the LLM call and the checker, with the ``citation_audit`` span inside
the checker's span), reads the spans and annotations back *from Phoenix* and prints the rates
it finds there. The directory is removed at the end unless ``--keep``.

With ``VCG_JUDGE_MODEL`` set (a litellm model string) the checker runs the skeptical judge
too; without it the audit is gate-only, and the demo says so.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from importlib import resources
from typing import TYPE_CHECKING, Any

from .llm import judge_model_from_env
from .otel import semconv

if TYPE_CHECKING:
    from haystack import Pipeline

__all__ = ["PROJECT", "answer_book", "build_pipeline", "documents", "run_demo"]

PROJECT = "vcg-otel-demo"
#: What the demo imports beyond the core (extra ``demo``); the Phoenix server is checked by
#: :class:`~vcg_otel.phoenix.local.LocalPhoenix` when it starts.
_NEEDS = ("haystack", "openinference.instrumentation.haystack", "opentelemetry.sdk")
#: What the answer server says to a question outside its answer book.
UNKNOWN = json.dumps({"answer": "I don't know.", "citations": []})
TEMPLATE = (
    "Answer the question from these sources only. Reply with JSON: {\"answer\": str, "
    "\"citations\": [{\"claim\": str, \"quote\": str, \"doc_id\": str}]}, each quote copied "
    "verbatim from the source named by doc_id (the name in brackets, without .txt).\n"
    "{% for doc in documents %}[{{ doc.meta.file_name }}] {{ doc.content }}\n{% endfor %}"
    "Question: {{ question }}")


def _data() -> Any:
    return resources.files("vcg_otel") / "data" / "demo"


def documents() -> dict[str, str]:
    """The bundled abstracts: file name -> text."""
    files = sorted((f for f in _data().iterdir() if f.name.endswith(".txt")),
                   key=lambda f: f.name)
    return {f.name: f.read_text(encoding="utf-8").strip() for f in files}


def answer_book() -> dict[str, str]:
    """The answer server's script: question -> the model's answer text, in the order the demo
    asks them (a JSON object with a citations list, or plain text citing by markers)."""
    book = json.loads((_data() / "answers.json").read_text(encoding="utf-8"))
    return {question: answer if isinstance(answer, str) else json.dumps(answer,
                                                                        ensure_ascii=False)
            for question, answer in book.items()}


def build_pipeline(base_url: str, judge_model: str | None = None) -> Pipeline:
    """The demo's RAG pipeline, with its generator calling the model at ``base_url``."""
    from haystack import Document, Pipeline
    from haystack.components.builders import ChatPromptBuilder
    from haystack.components.generators.chat import OpenAIChatGenerator
    from haystack.components.retrievers.in_memory import InMemoryBM25Retriever
    from haystack.dataclasses import ChatMessage
    from haystack.document_stores.in_memory import InMemoryDocumentStore
    from haystack.utils import Secret

    from .integrations.haystack import ReplyCitationChecker

    store = InMemoryDocumentStore()
    store.write_documents([Document(content=text, meta={"file_name": name})
                           for name, text in documents().items()])
    pipe = Pipeline()
    pipe.add_component("retriever", InMemoryBM25Retriever(store, top_k=3))
    pipe.add_component("prompt", ChatPromptBuilder(
        template=[ChatMessage.from_user(TEMPLATE)], required_variables="*"))
    pipe.add_component("llm", OpenAIChatGenerator(
        api_key=Secret.from_token("no-key-needed"), model="vcg-otel-demo-answers",
        api_base_url=base_url, max_retries=0, timeout=30))
    pipe.add_component("checker", ReplyCitationChecker(judge_model=judge_model))
    pipe.connect("retriever.documents", "prompt.documents")
    pipe.connect("prompt.prompt", "llm.messages")
    pipe.connect("llm.replies", "checker.replies")
    pipe.connect("retriever.documents", "checker.documents")
    return pipe


def _judge_model() -> str | None:
    model = judge_model_from_env()
    if not model:
        print("judge: none, gate only (set VCG_JUDGE_MODEL to a litellm model string, e.g. "
              "openai/gpt-4o-mini, to add the skeptical judge)")
        return None
    print(f"judge: {model} via litellm")
    return model


def _rates(checks: list[Mapping[str, Any]]) -> str:
    """The rates over the ``citation.check`` spans' attributes. Quoted citations (the gate
    ran: ``citation.gate.result``) and quote-less ones are counted apart, so each rate says
    what it is over: not_found and misattributed over the quotes, unknown_source over the
    citations without a quote."""
    quoted = [str(a.get(semconv.VERDICT)) for a in checks if semconv.GATE_RESULT in a]
    marked = [str(a.get(semconv.VERDICT)) for a in checks if semconv.GATE_RESULT not in a]

    def rate(verdicts: list[str], outcome: str) -> str:
        return f"{verdicts.count(outcome) / (len(verdicts) or 1):.1%}"

    return (f"{len(checks)} citations: of the {len(quoted)} quoted, fabrication (not_found) "
            f"rate {rate(quoted, 'not_found')}, misattribution rate "
            f"{rate(quoted, 'misattributed')}; of the {len(marked)} without a quote, "
            f"unknown-source rate {rate(marked, 'unknown_source')}")


def _expected_citations(book: dict[str, str]) -> int:
    from .reading.answers import citations_in_text

    return sum(len(citations_in_text(answer)) for answer in book.values())


@contextmanager
def _instrumented(provider: Any) -> Iterator[None]:
    """The pipeline traced the way a Haystack user traces one: the OpenInference instrumentor.
    The provider is also made global, which is what the checker's spans use (the demo is the
    application here; a library would not do this)."""
    from openinference.instrumentation.haystack import HaystackInstrumentor
    from opentelemetry import trace

    trace.set_tracer_provider(provider)
    instrumentor = HaystackInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    try:
        yield
    finally:
        instrumentor.uninstrument()


def _ask_all(provider: Any, judge_model: str | None) -> None:
    """One pipeline run per question, each its own trace."""
    from .answer_server import AnswerServer

    book = answer_book()
    with AnswerServer(book, UNKNOWN) as model, _instrumented(provider):
        print(f"answer server (the pipeline's model, OpenAI-compatible): {model.base_url}")
        pipe = build_pipeline(model.base_url, judge_model)
        for question in book:
            pipe.run({"retriever": {"query": question}, "prompt": {"question": question}})
    provider.force_flush()


def _by_trace(spans: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Spans grouped by trace, traces in the order they started."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for s in spans:
        groups.setdefault(s["context"]["trace_id"], []).append(s)
    return sorted(groups.values(), key=lambda m: min(s["start_time"] for s in m))


def _shape(members: list[dict[str, Any]]) -> tuple[str, ...]:
    """A trace as an indented tree of span names and kinds (repeated siblings shown once)."""
    children: dict[str | None, list[dict[str, Any]]] = {}
    ids = {s["context"]["span_id"] for s in members}
    for s in sorted(members, key=lambda s: s["start_time"]):
        parent = s.get("parent_id")
        children.setdefault(parent if parent in ids else None, []).append(s)
    lines: list[str] = []

    def walk(parent: str | None, depth: int) -> None:
        seen: set[str] = set()
        for s in children.get(parent, []):
            if s["name"] in seen:
                continue
            seen.add(s["name"])
            lines.append(f"{'  ' * depth}{s['name']}  {s.get('span_kind', '')}")
            walk(s["context"]["span_id"], depth + 1)

    walk(None, 0)
    return tuple(lines)


def _question(members: list[dict[str, Any]]) -> str:
    """The question a trace answered, from its retriever span's input."""
    for s in members:
        if s.get("span_kind") == "RETRIEVER":
            try:
                return str(json.loads(s["attributes"]["input.value"])["query"])
            except (KeyError, TypeError, ValueError):
                break
    return "?"


def _trace_summary(spans: list[dict[str, Any]]) -> list[str]:
    """How each request looks in Phoenix: the trace's tree, and its question and verdicts."""
    traces = [m for m in _by_trace(spans) if any(s["name"] == semconv.SPAN_AUDIT for s in m)]
    shapes = Counter(_shape(m) for m in traces)
    lines = []
    for shape, count in shapes.most_common():
        lines.append(f"  {count} of {len(traces)} requests, one trace each:")
        lines += [f"    {line}" for line in shape]
    width = max((len(_question(m)) for m in traces), default=0) + 2
    for members in traces:
        checks = sorted((s for s in members if s["name"] == semconv.SPAN_CHECK),
                        key=lambda s: s["attributes"].get(semconv.CITATION_INDEX, 0))
        verdicts = ", ".join(str(s["attributes"].get(semconv.VERDICT)) for s in checks)
        lines.append(f"  {_question(members):<{width}}{verdicts}")
    return lines


def _read_back(phoenix: Any, expected: int) -> None:
    deadline = time.monotonic() + 30
    spans: list[dict[str, Any]] = []
    while time.monotonic() < deadline:
        spans = phoenix.spans(PROJECT)
        if sum(1 for s in spans if s["name"] == semconv.SPAN_CHECK) >= expected:
            break
        time.sleep(0.2)
    checks = [s for s in spans if s["name"] == semconv.SPAN_CHECK]
    print("\nread back from Phoenix:")
    print("\n".join(_trace_summary(spans)))
    print("  " + _rates([s["attributes"] for s in checks]))
    fractions: dict[str, float] = {}
    while time.monotonic() < deadline and not fractions:  # annotations arrive after spans
        fractions = phoenix.label_fractions(PROJECT)
        time.sleep(0.2)
    if fractions:
        share = fractions.get("fabricated", 0.0)
        print(f"  requests with a fabricated citation (not_found, misattributed or "
              f"unknown_source; annotation citation_fabrication): {share:.1%}")


def _console_run(judge_model: str | None) -> int:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import ConsoleSpanExporter, SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(ConsoleSpanExporter()))
    provider.add_span_processor(SimpleSpanProcessor(memory))
    _ask_all(provider, judge_model)
    checks = [s.attributes or {} for s in memory.get_finished_spans()
              if s.name == semconv.SPAN_CHECK]
    print("\n" + _rates(checks) + " (from the exported spans)")
    return 0


def _wait_for_ctrl_c() -> None:
    try:
        while True:
            time.sleep(1)
    except KeyboardInterrupt:
        pass


def run_demo(no_server: bool = False, keep: bool = False, port: int | None = None) -> int:
    """Run the demo (see the module docstring). Returns the process exit code."""
    missing = [name for name in _NEEDS if importlib.util.find_spec(name) is None]
    if missing:
        print(f"vcg-otel demo needs {', '.join(missing)}: pip install 'vcg-otel[demo]'",
              file=sys.stderr)
        return 2
    # Haystack reports usage to PostHog unless told not to: the demo stays offline.
    os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")
    judge_model = _judge_model()
    if no_server:
        return _console_run(judge_model)

    from .phoenix import LocalPhoenix, register

    workdir = tempfile.mkdtemp(prefix="vcg-otel-phoenix-")
    try:
        phoenix = LocalPhoenix(workdir, port)
        print(f"starting Phoenix (SQLite in {workdir}) ...", flush=True)
        phoenix.start()
        try:
            print(f"Phoenix is up: {phoenix.url}/projects  (project {PROJECT!r})", flush=True)
            provider = register(project_name=PROJECT, endpoint=phoenix.url)
            _ask_all(provider, judge_model)
            _read_back(phoenix, _expected_citations(answer_book()))
            print("\nIn the Phoenix UI, filter spans with:\n"
                  "  span_kind == 'EVALUATOR' and citation.gate.result == 'misattributed'")
            provider.shutdown()
            if keep:
                print(f"\nPhoenix keeps running at {phoenix.url} - press Ctrl-C to stop.",
                      flush=True)
                _wait_for_ctrl_c()
        finally:
            phoenix.stop()
    finally:
        if keep:
            print(f"Phoenix's data stays in {workdir} (PHOENIX_WORKING_DIR={workdir} "
                  "phoenix serve opens it again)")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    return 0
