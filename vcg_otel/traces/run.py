"""``vcg-otel audit --from-phoenix URL --project NAME`` / ``--from-otlp FILE``: audit the traces
an app already sends, with no change to the app.

Each trace goes through :func:`~vcg_otel.traces.assemble.assemble` (answer, documents,
request), then the same reading path, document model, gate and judge as a decorated call
(:func:`read_answer`, :func:`vcg_otel.scope.documents_of`, :class:`vcg_otel.audit.Auditor`).
Results go to Phoenix as span annotations (:mod:`.annotate`), to ``--out`` as JSONL, and with
``--otlp-endpoint`` as our usual spans inside the audited trace (the ``citation_audit`` span's
parent is the answer span) and log records.
"""

from __future__ import annotations

import contextlib
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, TextIO

from ..audit import Auditor, AuditReport, Citation
from ..judge.verdict import Usage
from ..otel import semconv
from ..otel.content import ContentPolicy
from ..reading import read_output
from ..scope import audit_status, documents_of
from .annotate import REQUEST_ANNOTATION, audit_version, request_identifier, trace_annotations
from .assemble import Assembled, assemble
from .model import TraceRecord
from .select import ALL, Cursor, Shard

__all__ = ["TraceAudit", "TraceProgress", "TraceTally", "cursor_key", "read_answer",
           "summary_lines"]


def read_answer(answer: Any) -> list[Citation]:
    """The citations of an answer read from a span: the one reading path a decorated
    handler's result goes through (:func:`vcg_otel.reading.read_output`: the format readers,
    then the generic and framework-answer readers), one budget. The documents come from the
    trace's retriever spans, not from the answer."""
    return read_output(answer).citations


@dataclass
class TraceTally:
    """What a trace audit saw, for the summary (and the CLI's ``--fail-on`` rules)."""

    counts: Counter[str] = field(default_factory=Counter)
    usage: Usage = field(default_factory=Usage)
    traces: int = 0
    audited: int = 0
    already_audited: int = 0
    other_shard: int = 0
    without_citations: int = 0
    no_documents: int = 0
    open: int = 0
    citations: int = 0
    annotations: int = 0
    over_limit: int = 0
    #: where the time went: reading the source, auditing, writing annotations (seconds)
    reading: float = 0.0
    auditing: float = 0.0
    writing: float = 0.0

    def add(self, report: AuditReport) -> None:
        for r in report.results:
            self.counts[r.outcome.value] += 1
        self.counts["fabricated"] += len(report.fabricated)
        self.counts["inconsistent"] += len(report.inconsistent)
        self.usage = self.usage + report.usage
        self.citations += len(report)
        self.over_limit += report.skipped


class TraceAudit:
    """One run's machinery: the auditor, where results go, the tally.

    Args:
        auditor: the same :class:`Auditor` a decorated call uses (judge or gate only).
        shard: which traces are this worker's.
        write_result: ``--out``: called with each citation's JSON record.
        tracer: with ``--otlp-endpoint``: our spans, parented to the answer span.
        logger_provider: the log records' provider (``None``: no log records).
        policy: content capture (explanations in annotations, text on spans).
    """

    def __init__(self, auditor: Auditor, *, shard: Shard = ALL,
                 write_result: Callable[[dict[str, Any]], None] | None = None,
                 tracer: Any = None, logger_provider: Any = None,
                 policy: ContentPolicy | None = None,
                 progress: Callable[[TraceTally], None] | None = None) -> None:
        self.auditor, self.shard = auditor, shard
        self.write_result, self.tracer, self.logger_provider = (
            write_result, tracer, logger_provider)
        self.policy = policy if policy is not None else ContentPolicy.resolve()
        self.version = audit_version(auditor.judge is not None)
        self.tally = TraceTally()
        self.progress = progress

    # -- one trace -----------------------------------------------------------------------

    def audit_trace(self, trace: TraceRecord) -> tuple[Assembled, AuditReport] | None:
        """Audit one trace; ``None`` when it cites nothing (counted) or is still open."""
        if trace.root is None:
            self.tally.open += 1
            return None
        found = assemble(trace, read_answer)
        if found.answer_span is None:
            self.tally.without_citations += 1
            return None
        documents = documents_of(self.auditor, found.documents)
        report = self.auditor.audit(found.citations, documents)
        status = audit_status(found.citations, documents)
        if status == semconv.STATUS_NO_DOCUMENTS:
            self.tally.no_documents += 1
        self.tally.audited += 1
        self.tally.add(report)
        if self.tracer is not None:
            self._emit(found, report, status)
        if self.write_result is not None:
            for r in report.results:
                self.write_result({"trace_id": trace.trace_id,
                                   "span_id": found.answer_span.span_id,
                                   "audit_status": status, **r.to_dict()})
        return found, report

    def _emit(self, found: Assembled, report: AuditReport, status: str) -> None:
        """Our spans in the audited trace: ``citation_audit`` under the answer span."""
        from opentelemetry import context as otel_context
        from opentelemetry import trace as otel_trace

        from ..otel.record import emit_audit

        span = found.answer_span
        assert span is not None
        parent = otel_trace.NonRecordingSpan(otel_trace.SpanContext(
            int(span.trace_id, 16), int(span.span_id, 16), is_remote=True,
            trace_flags=otel_trace.TraceFlags(otel_trace.TraceFlags.SAMPLED)))
        token = otel_context.attach(otel_trace.set_span_in_context(parent))
        try:
            emit_audit(self.tracer, report, self.policy, status=status,
                       logger_provider=self.logger_provider)
        finally:
            otel_context.detach(token)

    # -- sources -------------------------------------------------------------------------

    def _mine(self, traces: Iterable[TraceRecord]) -> Iterator[TraceRecord]:
        for trace in traces:
            self.tally.traces += 1
            if self.shard.has(trace.trace_id):
                yield trace
            else:
                self.tally.other_shard += 1

    def run_otlp(self, source: Any) -> None:
        """Every trace of an OTLP/JSON file (:class:`~vcg_otel.traces.otlp.OtlpFileSource`)."""
        for trace in self._mine(self._timed(source.traces())):
            started = time.perf_counter()
            self.audit_trace(trace)
            self.tally.auditing += time.perf_counter() - started
            self._step()
        self.tally.open += source.open_traces

    def run_phoenix(self, source: Any, start_ns: int, end_ns: int, cursor: Cursor) -> None:
        """The traces of a Phoenix project whose root started in [start, end): a page at a
        time, skipping those this audit version annotated already, annotations written per
        page, the cursor saved after each page and at the end."""
        for page in self._timed(source.traces(start_ns, end_ns)):
            mine = list(self._mine(page))
            started = time.perf_counter()
            done = self._annotated(source, mine)
            self.tally.reading += time.perf_counter() - started
            started = time.perf_counter()
            notes: list[dict[str, Any]] = []
            for trace in mine:
                root = trace.root
                if root is not None and root.span_id in done:
                    self.tally.already_audited += 1
                    continue
                audited = self.audit_trace(trace)
                if audited is not None:
                    found, report = audited
                    assert found.answer_span is not None
                    notes += trace_annotations(report, found.answer_span.span_id,
                                               root.span_id if root else None, self.version,
                                               self.policy)
                self._step()
            self.tally.auditing += time.perf_counter() - started
            started = time.perf_counter()
            if notes:
                self.tally.annotations += source.write(notes)
            self.tally.writing += time.perf_counter() - started
            if page:
                cursor.save(max(t.start_ns for t in page))
        cursor.save(end_ns)

    def _timed(self, items: Iterator[Any]) -> Iterator[Any]:
        """``items``, the time spent producing each counted as reading."""
        while True:
            started = time.perf_counter()
            try:
                item = next(items)
            except StopIteration:
                return
            finally:
                self.tally.reading += time.perf_counter() - started
            yield item

    def _annotated(self, source: Any, traces: list[TraceRecord]) -> set[str]:
        """Root span ids whose ``citation_fabrication`` this audit version wrote."""
        roots = [t.root.span_id for t in traces if t.root is not None]
        wanted = request_identifier(self.version)
        return {str(a.get("span_id")) for a in source.annotations(roots, [REQUEST_ANNOTATION])
                if a.get("identifier") == wanted}

    def _step(self) -> None:
        if self.progress is not None:
            self.progress(self.tally)


class TraceProgress:
    """A progress line on stderr (the total is not known ahead: counts and rate)."""

    def __init__(self, stream: TextIO, enabled: bool, every: float = 2.0) -> None:
        self.stream, self.enabled, self.every = stream, enabled, every
        self.started = time.monotonic()
        self.last = 0.0
        self.tty = stream.isatty()

    def __call__(self, tally: TraceTally, final: bool = False) -> None:
        now = time.monotonic()
        if not self.enabled or (not final and now - self.last < self.every):
            return
        self.last = now
        rate = tally.traces / max(now - self.started, 1e-9)
        line = (f"traces: {tally.traces} read, {tally.audited} audited, "
                f"{tally.already_audited} already audited ({rate:,.0f}/s, "
                f"{tally.citations} citations)")
        with contextlib.suppress(OSError):
            self.stream.write(("\r" + line + ("\n" if final else "")) if self.tty
                              else line + "\n")
            self.stream.flush()


def summary_lines(tally: TraceTally, source: str) -> list[str]:
    """The trace part of the summary (the verdict table follows, as for answer files)."""
    lines = [f"{source}: {tally.traces} traces read, {tally.audited} audited"]
    notes = [f"{n} {what}" for n, what in (
        (tally.already_audited, "already audited (same audit version)"),
        (tally.other_shard, "in other shards"),
        (tally.without_citations, "without citations"),
        (tally.no_documents, "without retrieved documents (no_documents)"),
        (tally.open, "still open (no root span yet)")) if n]
    if notes:
        lines.append("  " + ", ".join(notes))
    if tally.annotations:
        lines.append(f"  {tally.annotations} annotations written")
    busy = tally.reading + tally.auditing + tally.writing
    if busy:
        lines.append(f"  time: {tally.reading:.1f} s reading, {tally.auditing:.1f} s auditing"
                     + (f", {tally.writing:.1f} s writing annotations" if tally.writing else "")
                     + f" ({tally.traces / busy:,.0f} traces/s)")
    return lines


def cursor_key(source: str, shard: Shard) -> str:
    return f"{source} shard {shard}"

