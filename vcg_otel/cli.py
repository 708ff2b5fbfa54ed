"""The ``vcg-otel`` command: batch audits of logged answers, and the one-command demo.

    vcg-otel audit ANSWERS.jsonl --docs DOCS [--out RESULTS.jsonl] [--judge MODEL]
                   [--fail-on "misattributed>0.05" ...] [--otlp-endpoint URL | --phoenix URL]
    vcg-otel demo [--no-server] [--keep]

Exit codes: 0 success, 1 a ``--fail-on`` threshold was crossed, 2 bad input or usage.
"""

from __future__ import annotations

import argparse
import json
import operator
import os
import re
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from .audit import Auditor, Outcome
from .extract import extract_citations, extract_documents
from .judge.verdict import Usage
from .otel import semconv

__all__ = ["main"]


class InputError(Exception):
    """Bad input: the message names the file (and line) at fault."""


# --- input -------------------------------------------------------------------------------------


def _jsonl(path: Path) -> Iterator[tuple[int, Any]]:
    try:
        handle = path.open(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror})") from exc
    with handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                yield number, json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(f"{path}:{number}: invalid JSON ({exc.msg})") from exc


def load_documents(path: Path) -> dict[str, str]:
    """DOCS: a directory of text files (id = file name without suffix), a JSONL of
    ``{id, text}`` records, or a JSON object of id to text (or a list of records)."""
    if path.is_dir():
        docs: dict[str, str] = {}
        for file in sorted(p for p in path.rglob("*") if p.is_file()):
            doc_id = str(file.relative_to(path).with_suffix(""))
            try:
                docs[doc_id] = file.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise InputError(f"{file}: cannot read as UTF-8 text ({exc})") from exc
        return docs
    if path.suffix == ".jsonl":
        docs = {}
        for number, record in _jsonl(path):
            found = extract_documents([record])
            if not found or not isinstance(record, dict) or "id" not in record:
                raise InputError(f"{path}:{number}: expected an object with 'id' and 'text'")
            docs[str(record["id"])] = next(iter(found.values()))
        return docs
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror})") from exc
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}:{exc.lineno}: invalid JSON ({exc.msg})") from exc
    docs = extract_documents(data)
    if not docs:
        raise InputError(f"{path}: no documents found (expected id -> text)")
    return docs


# --- thresholds --------------------------------------------------------------------------------

_OPS: dict[str, Callable[[float, float], bool]] = {
    ">=": operator.ge, "<=": operator.le, ">": operator.gt, "<": operator.lt}
_THRESHOLD = re.compile(r"^\s*([a-z_]+)\s*(>=|<=|>|<)\s*([0-9]*\.?[0-9]+)\s*$")
_GROUPS = {"fabricated": ("not_found", "misattributed"),
           "inconsistent": ("partial", "unrelated", "contradicts", "not_found",
                            "misattributed", "unjudged", "unverifiable")}


@dataclass(frozen=True)
class Threshold:
    name: str
    op: str
    limit: float

    def crossed(self, counts: Counter[str], total: int) -> tuple[bool, float]:
        members = _GROUPS.get(self.name, (self.name,))
        rate = sum(counts[m] for m in members) / total if total else 0.0
        return _OPS[self.op](rate, self.limit), rate


def parse_threshold(text: str) -> Threshold:
    """``"misattributed>0.05"``: a verdict (or ``fabricated``, ``inconsistent``), an operator
    and a rate between 0 and 1."""
    m = _THRESHOLD.match(text)
    names = {o.value for o in Outcome} | set(_GROUPS)
    if not m or m.group(1) not in names or float(m.group(3)) > 1:
        raise argparse.ArgumentTypeError(
            f"bad threshold {text!r}: use VERDICT>RATE, e.g. misattributed>0.05 "
            f"(verdicts: {', '.join(sorted(names))}; rates between 0 and 1)")
    return Threshold(m.group(1), m.group(2), float(m.group(3)))


# --- progress ----------------------------------------------------------------------------------


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
        share = self.done / self.total
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


def _judge(model: str | None) -> Any:
    if not model:
        return None
    from .llm import LiteLLMJudge

    return LiteLLMJudge(model)


def _count_lines(path: Path) -> int:
    try:
        with path.open("rb") as handle:
            return sum(1 for line in handle if line.strip())
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror})") from exc


def run_audit(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    docs = load_documents(Path(args.docs))
    answers_path = Path(args.answers)
    total_answers = _count_lines(answers_path)
    auditor = Auditor(_judge(args.judge or os.environ.get(semconv.ENV_JUDGE_MODEL)),
                      max_concurrency=args.concurrency)
    provider = _tracer_provider(args)
    tracer = provider.get_tracer("vcg_otel.cli") if provider is not None else None
    from .otel.content import ContentPolicy
    from .otel.spans import emit_audit

    policy = ContentPolicy.resolve(None)
    counts: Counter[str] = Counter()
    usage = Usage()
    citations_total = 0
    progress = Progress(total_answers, err, not args.no_progress)
    destination = Path(args.out) if args.out else None
    temp = None
    if destination is not None:
        temp = tempfile.NamedTemporaryFile(  # noqa: SIM115 - renamed into place at the end
            "w", encoding="utf-8", dir=destination.parent or Path("."),
            prefix=f".{destination.name}.", suffix=".partial", delete=False)
    try:
        for number, record in _jsonl(answers_path):
            citations = extract_citations(record)
            answer_docs = {**docs, **extract_documents(record.get("documents"))} if isinstance(
                record, dict) else docs
            answer_id = record.get("id", number) if isinstance(record, dict) else number
            report = auditor.audit(citations, answer_docs)
            if tracer is not None:
                emit_audit(tracer, report, policy, {"citation.answer.id": str(answer_id)})
            for r in report.results:
                counts[r.outcome.value] += 1
                if temp is not None:
                    temp.write(json.dumps({"answer_id": answer_id, "line": number,
                                           **r.to_dict()}, ensure_ascii=False) + "\n")
            usage = usage + report.usage
            citations_total += len(report)
            progress.step(citations_total)
        if temp is not None:
            temp.close()
            os.replace(temp.name, destination)  # type: ignore[arg-type]
            temp = None
    finally:
        if temp is not None:  # failed half-way: leave nothing that looks complete
            temp.close()
            os.unlink(temp.name)
        auditor.close()
        if provider is not None:
            provider.shutdown()
    _summary(out, counts, citations_total, progress.done, usage, destination)
    failed = False
    for threshold in args.fail_on or ():
        crossed, rate = threshold.crossed(counts, citations_total)
        if crossed:
            failed = True
            out.write(f"FAIL {threshold.name} rate {rate:.4f} {threshold.op} "
                      f"{threshold.limit:g}\n")
    return 1 if failed else 0


def _summary(out: TextIO, counts: Counter[str], total: int, answers: int, usage: Usage,
             destination: Path | None) -> None:
    out.write(f"\n{answers} answers, {total} citations\n")
    out.write(f"{'verdict':<16}{'count':>8}{'rate':>9}\n")
    for outcome in Outcome:
        n = counts[outcome.value]
        if n:
            out.write(f"{outcome.value:<16}{n:>8}{n / total:>9.4f}\n")
    out.write(f"tokens: {usage.prompt_tokens} prompt, {usage.completion_tokens} completion")
    out.write(f", cost {usage.cost:.4f}\n" if usage.cost is not None else "\n")
    if destination is not None:
        out.write(f"per-citation results: {destination}\n")


# --- entry point -------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="vcg-otel", description=(
        "Audit RAG citations: verbatim gate + skeptical judge, with OpenTelemetry output."))
    commands = parser.add_subparsers(dest="command", required=True)
    audit = commands.add_parser("audit", help="audit logged answers (JSONL) in batch")
    audit.add_argument("answers", help="JSONL, one answer per line with its citations")
    audit.add_argument("--docs", required=True,
                       help="documents: a directory of text files, a JSONL of {id, text}, "
                            "or a JSON object of id -> text")
    audit.add_argument("--out", help="write per-citation results here (JSONL)")
    audit.add_argument("--judge", help="litellm model string for the judge "
                                       f"(default ${semconv.ENV_JUDGE_MODEL}; none: gate only)")
    audit.add_argument("--concurrency", type=int, default=8, help="judge calls in flight")
    audit.add_argument("--fail-on", type=parse_threshold, action="append", metavar="RULE",
                       help="exit 1 when a verdict's rate crosses a limit, e.g. "
                            "'misattributed>0.05' (repeatable; also 'fabricated', "
                            "'inconsistent')")
    export = audit.add_mutually_exclusive_group()
    export.add_argument("--otlp-endpoint", help="export spans over OTLP/HTTP to this URL")
    export.add_argument("--phoenix", metavar="URL", help="export spans and annotations to "
                                                         "Phoenix at this URL")
    audit.add_argument("--project", default="vcg-otel-audit", help="Phoenix project name")
    audit.add_argument("--no-progress", action="store_true", help="no progress output")
    demo = commands.add_parser("demo", help="run the demo RAG app into a local Phoenix")
    demo.add_argument("--no-server", action="store_true",
                      help="no Phoenix: print the spans to the console instead")
    demo.add_argument("--keep", action="store_true",
                      help="leave Phoenix running until Ctrl-C")
    demo.add_argument("--port", type=int, default=None, help="Phoenix port (default: free)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``vcg-otel`` console script."""
    args = build_parser().parse_args(argv)
    try:
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


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
