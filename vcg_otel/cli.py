"""The ``vcg-otel`` command: batch audits of logged answers, and the one-command demo::

    vcg-otel audit ANSWERS.jsonl --docs DOCS [--out RESULTS.jsonl] [--judge MODEL]
                   [--fail-on "misattributed>0.05" ...] [--otlp-endpoint URL | --phoenix URL]
    vcg-otel demo [--no-server] [--keep]

Exit codes: 0 success, 1 a ``--fail-on`` threshold was crossed, 2 bad input or usage (the
message names the file and line), 3 an internal error (a bug: the traceback is printed),
130 on SIGINT, 143 on SIGTERM, 141 when stdout's reader goes away. A crash never exits 1,
so CI cannot mistake it for a crossed threshold.

The summary, the ``FAIL`` lines, warnings and progress go to stderr; stdout carries nothing of
ours, so ``--out /dev/stdout`` is clean JSONL. This module imports only the standard library
at its top (vcg_otel's modules are imported where used, inside :func:`main`'s handlers): a
Ctrl-C while it starts up exits 130 with a message, never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import operator
import os
import re
import signal
import sys
import tempfile
import threading
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from .audit import Auditor, AuditReport, Citation
    from .documents import DocumentSet
    from .judge.verdict import Usage

__all__ = ["main"]


_NEWLINE = b"\n"


class InputError(Exception):
    """Bad input: the message names the file (and line) at fault."""


class Terminated(BaseException):
    """SIGTERM, raised in the main thread like ``KeyboardInterrupt`` so clean-up runs."""


# --- input -------------------------------------------------------------------------------------


def _json_error(exc: json.JSONDecodeError) -> str:
    # json's messages for strings end in "at" / "starting at" (the position follows in
    # str(exc)); the column is given separately here.
    reason = re.sub(r"\s+(starting\s+)?at$", "", exc.msg)
    return f"invalid JSON at column {exc.colno}: {reason}"


def _parse(where: str, text: str) -> Any:
    """One JSON value; every way it can fail becomes an InputError naming ``where``."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{where}: {_json_error(exc)}") from exc
    except RecursionError as exc:
        raise InputError(f"{where}: JSON nested too deeply") from exc
    except ValueError as exc:  # e.g. an integer over Python's 4,300-digit conversion limit
        raise InputError(f"{where}: invalid JSON ({exc})") from exc


def _decode(where: str, raw: bytes, encoding: str = "utf-8", *, lines: bool = False) -> str:
    """Strict UTF-8; the error names the byte (and, for a whole file, its line)."""
    try:
        return raw.decode(encoding)
    except UnicodeDecodeError as exc:
        line_start = raw.rfind(_NEWLINE, 0, exc.start) + 1
        if lines:
            where += f":{raw.count(_NEWLINE, 0, exc.start) + 1}"
        raise InputError(f"{where}: not UTF-8 (byte 0x{raw[exc.start]:02x} at column "
                         f"{exc.start - line_start + 1})") from exc


def _jsonl(path: Path) -> Iterator[tuple[int, Any]]:
    """``(line number, value)`` for each non-blank line; read in binary so that invalid
    UTF-8, bad JSON and absurd nesting are all reported with the line at fault."""
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror})") from exc
    with handle:
        number = 0
        while True:
            try:
                raw = handle.readline()
            except OSError as exc:
                raise InputError(f"{path}:{number + 1}: cannot read ({exc.strerror})") from exc
            if not raw:
                return
            number += 1
            if raw.strip():
                where = f"{path}:{number}"
                text = _decode(where, raw, "utf-8-sig" if number == 1 else "utf-8")
                yield number, _parse(where, text)


def _extracted(where: str, extract: Callable[[Any], Any], value: Any) -> Any:
    """Run an extractor on one record: a failure there is reported with the record's file
    and line (exit 2) rather than as a traceback."""
    try:
        return extract(value)
    except Exception as exc:
        raise InputError(f"{where}: cannot read this record ({type(exc).__name__}: {exc})"
                         ) from exc


def load_documents(path: Path) -> Any:
    """DOCS: a directory of text files (id = file name without suffix), a JSONL of
    ``{id, text}`` records (their ``metadata`` too), or a JSON object of id to text (or a list
    of records). Returned as read: :func:`shared_documents` gives them every name the
    document model knows (``metadata.source``, basename, stem...), as the decorator does."""
    from .extract import extract_documents

    if path.is_dir():
        docs: dict[str, str] = {}
        for file in sorted(p for p in path.rglob("*") if p.is_file()):
            doc_id = str(file.relative_to(path).with_suffix(""))
            try:
                docs[doc_id] = _decode(str(file), file.read_bytes(), lines=True)
            except OSError as exc:
                raise InputError(f"{file}: cannot read ({exc.strerror})") from exc
        return docs
    if path.suffix == ".jsonl":
        records = []
        for number, record in _jsonl(path):
            found = _extracted(f"{path}:{number}", extract_documents, [record])
            if not found or not isinstance(record, dict) or "id" not in record:
                raise InputError(f"{path}:{number}: expected an object with 'id' and 'text'")
            records.append(record)
        return records
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror})") from exc
    text = _decode(str(path), raw, "utf-8-sig", lines=True)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}:{exc.lineno}: {_json_error(exc)}") from exc
    except (RecursionError, ValueError):
        data = _parse(str(path), text)  # raises the same InputError as a JSONL line
    return data


def shared_documents(where: str, data: Any, auditor: Auditor) -> DocumentSet:
    """The ``--docs`` documents as the document model reads them (every answer's documents),
    named as the auditor's config says; read whole (a docs file is not a hostile result)."""
    from .documents import DocumentSet
    from .extract import Budget

    config = auditor.config
    unbounded = Budget(nodes=2**62, text_chars=2**62, seconds=float("inf"))

    def read(source: Any) -> DocumentSet:
        return DocumentSet.from_sources(source, id_keys=config.id_keys,
                                        position_base=config.position_base, budget=unbounded)

    made: DocumentSet = _extracted(where, read, data)
    return made


def _call_of(record: Any) -> tuple[Any, dict[str, Any]]:
    """A logged answer as ``(output, arguments)``: ``{"output": ..., "arguments": {...}}``
    logs a call (its return value and its keyword arguments: ``messages``, ``documents``...);
    any other record is the output itself, its ``documents`` the call's documents."""
    if isinstance(record, dict) and isinstance(record.get("arguments"), dict):
        return record.get("output"), record["arguments"]
    if isinstance(record, dict) and record.get("documents") is not None:
        return record, {"documents": record["documents"]}
    return record, {}


# --- thresholds --------------------------------------------------------------------------------

_OPS: dict[str, Callable[[float, float], bool]] = {
    ">=": operator.ge, "<=": operator.le, ">": operator.gt, "<": operator.lt}
_THRESHOLD = re.compile(r"^\s*([a-z_]+)\s*(>=|<=|>|<)\s*([0-9]*\.?[0-9]+)\s*$")
# Rates over groups of outcomes, each the report's own rule: AuditReport.fabricated and
# AuditReport.inconsistent (which honours misattributed_is_consistent).
_GROUP_NAMES = ("fabricated", "inconsistent")


@dataclass(frozen=True)
class Threshold:
    name: str
    op: str
    limit: float

    def crossed(self, counts: Counter[str], total: int) -> tuple[bool, float]:
        """``counts`` holds every outcome's count and the groups' (``fabricated``, ...)."""
        rate = counts[self.name] / total if total else 0.0
        return _OPS[self.op](rate, self.limit), rate


def parse_threshold(text: str) -> Threshold:
    """``"misattributed>0.05"``: a verdict (or ``fabricated``, ``inconsistent``), an operator
    and a rate between 0 and 1."""
    from .audit import Outcome

    m = _THRESHOLD.match(text)
    names = {o.value for o in Outcome} | set(_GROUP_NAMES)
    if not m or m.group(1) not in names or float(m.group(3)) > 1:
        raise argparse.ArgumentTypeError(
            f"bad threshold {text!r}: use VERDICT>RATE, e.g. misattributed>0.05 "
            f"(verdicts: {', '.join(sorted(names))}; rates between 0 and 1)")
    return Threshold(m.group(1), m.group(2), float(m.group(3)))


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number >= 1, not {text!r}")
    return value


# --- progress and warnings ---------------------------------------------------------------------


class Progress:
    """A progress line on stderr: redrawn in place on a terminal, every 10% otherwise."""

    def __init__(self, total: int, stream: TextIO, enabled: bool) -> None:
        self.total, self.stream, self.enabled = total, stream, enabled and total > 0
        self.tty = stream.isatty()
        self.done = 0
        self.started = time.monotonic()
        self._last_decile = -1

    def step(self, citations: int) -> None:
        self.done += 1
        if not self.enabled:
            return
        share = min(self.done / self.total, 1.0)
        rate = self.done / max(time.monotonic() - self.started, 1e-9)
        bar = "#" * int(share * 30)
        line = (f"auditing [{bar:<30}] {self.done}/{self.total} answers "
                f"({rate:,.0f}/s, {citations} citations)")
        if self.tty:
            self.stream.write("\r" + line)
            if self.done == self.total:
                self.stream.write("\n")
        elif int(share * 10) != self._last_decile:
            self._last_decile = int(share * 10)
            self.stream.write(line + "\n")
        self.stream.flush()


class Warnings:
    """Per-record warnings on stderr, the first ``limit`` of them; the summary counts all."""

    def __init__(self, stream: TextIO, limit: int = 50) -> None:
        self.stream, self.limit, self.count = stream, limit, 0

    def __call__(self, message: str) -> None:
        self.count += 1
        if self.count <= self.limit:
            self.stream.write(f"vcg-otel: warning: {message}\n")
        elif self.count == self.limit + 1:
            self.stream.write("vcg-otel: warning: more warnings not shown (see the summary)\n")


# --- output ------------------------------------------------------------------------------------


class Results:
    """``--out``: checked and opened before the audit starts, so a bad destination costs no
    audit. Written to a hidden temporary file beside it and renamed into place only when
    complete: a failed or interrupted run leaves nothing that looks complete. A destination
    that exists and is not a regular file (``/dev/stdout``, a FIFO) is written directly (a
    rename would replace it)."""

    def __init__(self, destination: Path) -> None:
        self.destination = destination
        if destination.is_dir():
            raise InputError(f"--out {destination}: is a directory")
        if not destination.parent.is_dir():
            raise InputError(f"--out {destination}: directory {destination.parent} "
                             "does not exist")
        # Written through, never renamed over: a symlink (a rename would replace the link),
        # /dev and /proc paths (/dev/stdout is a symlink into /proc), anything not a file.
        self.direct = (destination.is_symlink()
                       or destination.absolute().parts[1:2] in (("dev",), ("proc",))
                       or (destination.exists() and not destination.is_file()))
        try:
            if self.direct:
                self.handle: Any = destination.open("w", encoding="utf-8")
            else:
                self.handle = tempfile.NamedTemporaryFile(  # noqa: SIM115 - renamed at the end
                    "w", encoding="utf-8", dir=destination.parent,
                    prefix=f".{destination.name}.", suffix=".partial", delete=False)
        except OSError as exc:
            raise InputError(f"--out {destination}: cannot write ({exc.strerror})") from exc

    def write(self, record: dict[str, Any]) -> None:
        line = json.dumps(record, ensure_ascii=False)
        try:
            line.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate from a JSON escape: keep it escaped
            line = json.dumps(record)
        try:
            self.handle.write(line + "\n")
        except BrokenPipeError:  # --out /dev/stdout and its reader went away: as for stdout
            raise
        except OSError as exc:
            raise InputError(f"--out {self.destination}: cannot write ({exc.strerror})"
                             ) from exc

    def commit(self) -> None:
        try:
            self.handle.close()
            if not self.direct:
                os.replace(self.handle.name, self.destination)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise InputError(f"--out {self.destination}: cannot write ({exc.strerror})"
                             ) from exc

    def discard(self) -> None:
        with contextlib.suppress(OSError):  # e.g. a pipe already closed by its reader
            self.handle.close()
        if not self.direct:
            Path(self.handle.name).unlink(missing_ok=True)


# --- audit -------------------------------------------------------------------------------------


def _tracer_provider(args: argparse.Namespace) -> Any:
    """Phoenix: spans and annotations. Any other OTLP endpoint: the same export, no annotations
    (they need Phoenix's REST API)."""
    if not (args.phoenix or args.otlp_endpoint):
        return None
    from .phoenix import register

    return register(project_name=args.project, endpoint=args.phoenix or args.otlp_endpoint,
                    annotations=bool(args.phoenix),
                    resource_attributes={"service.name": "vcg-otel-audit"})


def _logger_provider(args: argparse.Namespace) -> Any:
    """With ``--otlp-endpoint``, the events (``gen_ai.evaluation.result`` ...) as OTLP logs to
    the same address, when the OTLP/HTTP log exporter is installed; ``None`` otherwise (and
    for ``--phoenix``: Phoenix rejects OTLP logs, it reads the span-event copies)."""
    if not args.otlp_endpoint or args.phoenix:
        return None
    try:
        from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
        from opentelemetry.sdk._logs import LoggerProvider
        from opentelemetry.sdk._logs.export import BatchLogRecordProcessor
        from opentelemetry.sdk.resources import Resource
    except ImportError:
        return None
    base = args.otlp_endpoint.strip().rstrip("/").removesuffix("/v1/traces")
    provider = LoggerProvider(resource=Resource.create({"service.name": "vcg-otel-audit"}))
    provider.add_log_record_processor(
        BatchLogRecordProcessor(OTLPLogExporter(endpoint=base + "/v1/logs")))
    return provider


def _count_lines(path: Path) -> int:
    """Non-blank lines of a regular file (0 for a pipe: it can be read only once)."""
    if not path.is_file():
        return 0
    try:
        with path.open("rb") as handle:
            return sum(1 for line in handle if line.strip())
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror})") from exc


_ID_KEYS = ("doc_id", "document_id", "source_id")


def _unusable_ids(record: Any, depth: int = 0) -> list[Any]:
    """The values under a doc-id key of ``record`` (parsed JSON) that are not document ids
    (``extract.document_id`` refuses them: control characters such as NUL, empty, too long),
    so that a citation dropped for one is not reported as having none."""
    from .extract import document_id

    if depth > 32:
        return []
    if isinstance(record, dict):
        found = [v for k, v in record.items() if k in _ID_KEYS and v is not None
                 and isinstance(v, (str, int)) and document_id(v) is None]
        return found + [u for v in record.values() for u in _unusable_ids(v, depth + 1)]
    if isinstance(record, list):
        return [u for v in record for u in _unusable_ids(v, depth + 1)]
    return []


def _auditable(where: str, citations: list[Citation], warn: Warnings,
               record: Any = None) -> list[Citation]:
    """Citations the audit can check. Without a document id no attribution can be checked
    (the gate would call a real quote ``misattributed``): reported and left out. A citation
    with a document id but no quote (``... [3].``, ``{claim, doc_id}``) is audited like any
    other, no warning: a source never retrieved is ``unknown_source`` (fabricated), else the
    judge reads the passages located for its claim (:mod:`vcg_otel.evidence`). One that
    names no document and quotes nothing (a web page cited without its text) is audited:
    ``unverifiable``, counted."""
    kept = []
    unusable: list[Any] | None = None
    for i, c in enumerate(citations, 1):
        if c.document_id is None and (c.quote is not None or c.has_offsets):
            unusable = _unusable_ids(record) if unusable is None else unusable
            if unusable:  # shown escaped (repr): a NUL or an escape code stays visible
                ids = ", ".join(repr(v)[:80] for v in unusable[:3])
                warn(f"{where}: citation {i} has an unusable doc_id ({ids}: empty, over "
                     "the length limit, or with control characters); not audited")
            else:
                warn(f"{where}: citation {i} has no doc_id; not audited")
            continue
        kept.append(c)
    return kept


@dataclass
class Tally:
    """What the audit saw, for the summary and the thresholds."""

    counts: Counter[str]
    usage: Usage
    answers: int = 0
    citations: int = 0
    without_citations: int = 0
    without_doc_id: int = 0
    over_limit: int = 0
    incomplete: int = 0  # answers whose reading was cut (budget): the audit is incomplete

    def add(self, report: AuditReport) -> None:
        for r in report.results:
            self.counts[r.outcome.value] += 1
        self.counts["fabricated"] += len(report.fabricated)
        self.counts["inconsistent"] += len(report.inconsistent)
        self.usage = self.usage + report.usage
        self.citations += len(report)
        self.over_limit += report.skipped


def run_audit(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``vcg-otel audit``. ``out`` is kept for callers; everything we write goes to ``err``
    (stdout may be ``--out /dev/stdout``'s JSONL)."""
    if args.from_phoenix or args.from_otlp:  # traces the app already sends (vcg_otel.traces)
        if args.phoenix or args.answers or args.docs:
            raise InputError("--from-phoenix/--from-otlp read traces: no ANSWERS, --docs or "
                             "--phoenix with them (annotations go to the Phoenix read from)")
        from .traces.command import run_traces

        return run_traces(args, out, err, input_error=InputError, results_factory=Results,
                          summary=_summary, tally_factory=Tally, finish=finish,
                          logger_provider=_logger_provider)
    if not args.answers or not args.docs:
        raise InputError("ANSWERS and --docs are required (or --from-phoenix URL / "
                         "--from-otlp FILE)")
    results = Results(Path(args.out)) if args.out else None  # before any work: fail fast
    try:
        return _audit(args, out, err, results)
    except BaseException:
        if results is not None:
            results.discard()
        raise


def _audit(args: argparse.Namespace, out: TextIO, err: TextIO, results: Results | None
           ) -> int:
    from .audit import Auditor
    from .judge.verdict import Usage
    from .llm import judge_from_env
    from .otel import semconv

    docs_path, answers_path = Path(args.docs), Path(args.answers)
    raw_docs = load_documents(docs_path)
    total_answers = _count_lines(answers_path)
    no_answers = answers_path.is_file() and total_answers == 0
    _refuse_if_empty([p for p, empty in ((f"{docs_path}: no documents", not raw_docs),
                                         (f"{answers_path}: no answers", no_answers)) if empty],
                     args, err)
    warn = Warnings(err)
    # flags win over the VCG_OTEL_* variables, which win over the defaults (vcg_otel.config)
    flags = {"max_concurrency": args.concurrency,
             "misattributed_is_consistent": args.misattributed_is_consistent}
    auditor = Auditor(judge_from_env(args.judge),
                      **{k: v for k, v in flags.items() if v is not None})
    docs = shared_documents(str(docs_path), raw_docs, auditor)
    if not len(docs) and raw_docs:
        _refuse_if_empty([f"{docs_path}: no documents"], args, err)
    config = auditor.config
    provider = _tracer_provider(args)
    tracer = provider.get_tracer("vcg_otel.cli") if provider is not None else None
    log_provider = _logger_provider(args)
    from .config import TelemetryConfig
    from .otel.record import emit_audit
    from .reading import DocumentsIncomplete, Reading, read_output

    telemetry = TelemetryConfig(tracer_provider=provider, logger_provider=log_provider)
    tally = Tally(Counter(), Usage())
    progress = Progress(total_answers, err, not args.no_progress)
    try:
        for number, record in _jsonl(answers_path):
            where = f"{answers_path}:{number}"
            tally.answers += 1
            output, arguments = _call_of(record)
            # the decorator's reading path: same formats, documents, budget, completeness
            def read(value: Any, call: dict[str, Any] = arguments) -> Reading:
                return read_output(value, kwargs=call, shared=(docs,), id_keys=config.id_keys,
                                   position_base=config.position_base)

            reading: Reading = _extracted(where, read, output)
            found = reading.citations
            answer_docs = reading.documents
            limit = reading.completeness.limit
            try:
                reading.work()
            except DocumentsIncomplete:
                found = []  # the one rule: never audited against part of the documents
            if limit is not None:
                tally.incomplete += 1
                warn(f"{where}: answer read only in part ({limit}); the audit is incomplete")
            citations = _auditable(where, found, warn, record)
            tally.without_doc_id += len(found) - len(citations)
            if not found:
                tally.without_citations += 1
                if limit is None:
                    warn(f"{where}: no citations found; answer skipped")
            answer_id = _answer_id(record, number)
            if citations:
                report = auditor.audit(citations, answer_docs)
                if tracer is not None:
                    emit_audit(tracer, report, telemetry.content,
                               {semconv.ANSWER_ID: str(answer_id)},
                               check_spans=telemetry.check_spans,
                               span_events=telemetry.span_events,
                               meter_provider=telemetry.meter_provider,
                               logger_provider=log_provider)
                for r in report.results:
                    if results is not None:
                        results.write({"answer_id": answer_id, "line": number, **r.to_dict()})
                tally.add(report)
            progress.step(tally.citations)
    finally:
        auditor.close()
        if provider is not None:
            provider.shutdown()
        if log_provider is not None:
            log_provider.shutdown()
    _summary(err, tally)
    if tally.citations == 0 and not no_answers:
        _refuse_if_empty([f"{answers_path}: " + (
            "no citation was audited" if tally.answers else "no answers")], args, err)
    return finish(args, tally, results, err)


def finish(args: argparse.Namespace, tally: Tally, results: Results | None,
           err: TextIO) -> int:
    """The end of every audit (answer files and traces alike): the results file committed,
    then announced, and the ``--fail-on`` gates; returns the exit code (1: a gate failed)."""
    if results is not None:
        results.commit()  # only once it is written (a full disk fails here) is it announced
        err.write(f"per-citation results: {results.destination}\n")
    failed = False
    if tally.incomplete and args.fail_on:  # a gate cannot pass on what was never read
        failed = True
        err.write("FAIL incomplete audit\n")
    for threshold in args.fail_on or ():
        crossed, rate = threshold.crossed(tally.counts, tally.citations)
        if crossed:
            failed = True
            err.write(f"FAIL {threshold.name} rate {rate:.4f} {threshold.op} "
                      f"{threshold.limit:g}\n")
    return 1 if failed else 0


def _answer_id(record: Any, number: int) -> str | int | float:
    """The record's ``id`` when it is a string or a number, else its line number."""
    raw = record.get("id") if isinstance(record, dict) else None
    ok = isinstance(raw, (str, int, float)) and not isinstance(raw, bool)
    return raw if ok else number  # type: ignore[return-value]


def _refuse_if_empty(problems: list[str], args: argparse.Namespace, err: TextIO) -> None:
    """An audit of nothing passes every ``--fail-on`` rule: refuse it unless asked."""
    if not problems:
        return
    if not args.allow_empty:
        raise InputError("; ".join(problems) + " (nothing to audit; --allow-empty to accept)")
    for problem in problems:
        err.write(f"vcg-otel: warning: {problem}\n")


def _summary(out: TextIO, tally: Tally) -> None:
    from .audit import Outcome

    total = tally.citations
    out.write(f"\n{tally.answers} answers, {total} citations\n")
    skipped = [f"{n} {one if n == 1 else many}" for n, one, many in (
        (tally.without_citations, "answer without citations", "answers without citations"),
        (tally.without_doc_id, "citation without a doc_id", "citations without a doc_id"),
        (tally.over_limit, "citation over the per-answer limit",
         "citations over the per-answer limit")) if n]
    if skipped:
        out.write(f"not audited: {', '.join(skipped)}\n")
    if tally.incomplete:
        n = tally.incomplete
        out.write(f"incomplete audit: {n} {'answer' if n == 1 else 'answers'} read only in "
                  "part (over the reading budget; what was found before the cut was audited)\n")
    out.write(f"{'verdict':<16}{'count':>8}{'rate':>9}\n")
    for outcome in Outcome:
        n = tally.counts[outcome.value]
        if n:
            out.write(f"{outcome.value:<16}{n:>8}{n / total:>9.4f}\n")
    usage = tally.usage
    out.write(f"tokens: {usage.prompt_tokens} prompt, {usage.completion_tokens} completion")
    out.write(f", cost {usage.cost:.4f}\n" if usage.cost is not None else "\n")


# --- entry point -------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    from ._version import __version__
    from .config import env_vars
    from .otel import semconv

    parser = argparse.ArgumentParser(prog="vcg-otel", description=(
        "Audit RAG citations: verbatim gate + skeptical judge, with OpenTelemetry output."))
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    audit = commands.add_parser(
        "audit", help="audit logged answers (JSONL) in batch",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="settings from the environment (flags win):\n" + "\n".join(
            f"  {name:<40}{field}" for name, field in env_vars().items()))
    audit.add_argument("answers", nargs="?",
                       help="JSONL, one answer per line with its citations")
    audit.add_argument("--docs",
                       help="documents: a directory of text files, a JSONL of {id, text}, "
                            "or a JSON object of id -> text")
    traces = audit.add_argument_group(
        "traces an app already sends (no ANSWERS or --docs; exit 4: Phoenix unreachable)")
    source = traces.add_mutually_exclusive_group()
    source.add_argument("--from-phoenix", metavar="URL",
                        help="audit the traces of Phoenix project --project and write the "
                             "results back as span annotations")
    source.add_argument("--from-otlp", metavar="FILE",
                        help="audit the traces of an OTLP/JSON lines file (a collector's "
                             "file exporter)")
    traces.add_argument("--since", metavar="TIME",
                        help="only traces started since: a duration (30m, 1h, 2d) or an "
                             "ISO time")
    traces.add_argument("--cursor", metavar="FILE",
                        help="keep where this run stopped in FILE; the next run starts "
                             "there (less 15 minutes for requests still open)")
    traces.add_argument("--watch", type=_positive_int, metavar="SECONDS",
                        help="audit again every SECONDS until interrupted")
    traces.add_argument("--watch-passes", type=_positive_int, help=argparse.SUPPRESS)
    traces.add_argument("--shard", metavar="K/N",
                        help="audit only the traces whose id hashes to shard K of N")
    audit.add_argument("--out", help="write per-citation results here (JSONL)")
    audit.add_argument("--judge", help="litellm model string for the judge "
                                       f"(default ${semconv.ENV_JUDGE_MODEL}; none: gate only)")
    audit.add_argument("--concurrency", type=_positive_int, default=None,
                       help="judge calls in flight (default $VCG_OTEL_JUDGE_MAX_CONCURRENCY, "
                            "else 8)")
    audit.add_argument("--fail-on", type=parse_threshold, action="append", metavar="RULE",
                       help="exit 1 when a verdict's rate crosses a limit, e.g. "
                            "'misattributed>0.05' (repeatable; also 'fabricated', "
                            "'inconsistent')")
    audit.add_argument("--misattributed-is-consistent", action="store_true", default=None,
                       help="count real quotes cited to the wrong document as consistent "
                            "(for 'inconsistent' rules)")
    audit.add_argument("--allow-empty", action="store_true",
                       help="accept an audit of nothing (no answers, documents or "
                            "citations): warn and exit 0 instead of 2")
    export = audit.add_mutually_exclusive_group()
    export.add_argument("--otlp-endpoint",
                        help="export spans (and events as logs) over OTLP/HTTP to this URL")
    export.add_argument("--phoenix", metavar="URL", help="export spans and annotations to "
                                                         "Phoenix at this URL")
    audit.add_argument("--project", default="vcg-otel-audit",
                       help="Phoenix project name (with --from-phoenix: the project read)")
    audit.add_argument("--no-progress", action="store_true", help="no progress output")
    demo = commands.add_parser("demo", help="run the demo RAG app into a local Phoenix")
    demo.add_argument("--no-server", action="store_true",
                      help="no Phoenix: print the spans to the console instead")
    demo.add_argument("--keep", action="store_true",
                      help="leave Phoenix running until Ctrl-C")
    demo.add_argument("--port", type=int, default=None, help="Phoenix port (default: free)")
    return parser


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise Terminated


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``vcg-otel`` console script."""
    in_main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _terminate) if in_main_thread else None
    try:
        # inside the handlers: a Ctrl-C while vcg_otel's modules load is an interrupt too
        args = build_parser().parse_args(argv)
        if args.command == "audit":
            return run_audit(args, sys.stdout, sys.stderr)
        from .demo import run_demo

        return run_demo(no_server=args.no_server, keep=args.keep, port=args.port)
    except InputError as exc:
        sys.stderr.write(f"vcg-otel: error: {exc}\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write("vcg-otel: interrupted\n")
        return 130
    except Terminated:
        sys.stderr.write("vcg-otel: terminated\n")
        return 128 + signal.SIGTERM
    except BrokenPipeError:  # the reader went away (`... | head`): stop quietly, like cat
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no error at exit
        return 128 + signal.SIGPIPE
    except Exception:
        traceback.print_exc()
        sys.stderr.write("vcg-otel: internal error (a bug in vcg-otel; please report it with "
                         "the traceback above)\n")
        return 3
    finally:
        if in_main_thread:
            signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
