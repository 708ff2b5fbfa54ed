"""The trace sources of ``vcg-otel audit``: ``--from-phoenix URL --project NAME`` and
``--from-otlp FILE`` (cli.py only wires the flags; the work is here).

Exit codes as for answer files (0, 1 on a crossed ``--fail-on``, 2 bad input, 3 a bug), plus
:data:`EXIT_UNREACHABLE` (4) when Phoenix cannot be reached or refuses the request, so a
scheduled job can tell "Phoenix is down" from "the audit found fabrications".
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from .phoenix import SourceInputError, SourceUnavailable
from .run import TraceAudit, TraceProgress, TraceTally, cursor_key, summary_lines
from .select import ALL, Cursor, parse_shard, parse_since

__all__ = ["EXIT_UNREACHABLE", "run_traces"]

EXIT_UNREACHABLE = 4


def _tracer_provider(args: argparse.Namespace) -> Any:
    """``--otlp-endpoint``: our spans over OTLP/HTTP (into Phoenix, the project read, when the
    endpoint is the Phoenix read from: the audit spans then sit in the audited traces)."""
    if not args.otlp_endpoint:
        return None
    from ..phoenix import register

    attributes = {"service.name": "vcg-otel-audit"}
    return register(project_name=args.project, endpoint=args.otlp_endpoint, annotations=False,
                    resource_attributes=attributes)


def run_traces(args: argparse.Namespace, out: TextIO, err: TextIO, *,
               input_error: type[Exception], results_factory: Callable[[Path], Any],
               summary: Callable[..., None], tally_factory: Callable[..., Any],
               finish: Callable[..., int],
               logger_provider: Callable[[argparse.Namespace], Any]) -> int:
    """Run ``vcg-otel audit --from-phoenix/--from-otlp``; returns the exit code.

    The CLI's own pieces (its ``InputError``, ``--out`` writer, summary, tally and ``finish``:
    results and gates) are passed in, so both sources report exactly as answer files do.
    """
    try:
        shard = parse_shard(args.shard) if args.shard else ALL
        since = parse_since(args.since) if args.since else None
    except ValueError as exc:
        raise input_error(str(exc)) from exc
    results = results_factory(Path(args.out)) if args.out else None
    try:
        return _run(args, out, err, shard, since, results, input_error, summary,
                    tally_factory, finish, logger_provider)
    except BaseException:
        if results is not None:
            results.discard()
        raise


def _run(args: argparse.Namespace, out: TextIO, err: TextIO, shard: Any, since: int | None,
         results: Any, input_error: type[Exception], summary: Callable[..., None],
         tally_factory: Callable[..., Any], finish: Callable[..., int],
         logger_provider: Callable[[argparse.Namespace], Any]) -> int:
    from ..audit import Auditor
    from ..llm import judge_from_env

    flags = {"max_concurrency": args.concurrency,
             "misattributed_is_consistent": args.misattributed_is_consistent}
    auditor = Auditor(judge_from_env(args.judge),
                      **{k: v for k, v in flags.items() if v is not None})
    provider = _tracer_provider(args)
    logs = logger_provider(args)
    progress = TraceProgress(err, not args.no_progress)
    audit = TraceAudit(auditor, shard=shard,
                       write_result=results.write if results is not None else None,
                       tracer=provider.get_tracer("vcg_otel.traces") if provider else None,
                       logger_provider=logs, progress=progress)
    label = f"phoenix {args.from_phoenix} project {args.project}" if args.from_phoenix \
        else str(args.from_otlp)
    try:
        if args.from_phoenix:
            _phoenix_passes(args, audit, since, shard, input_error, err)
        else:
            _otlp(args, audit, input_error)
    except SourceUnavailable as exc:
        err.write(f"vcg-otel: error: {exc}\n")
        return EXIT_UNREACHABLE
    except SourceInputError as exc:
        raise input_error(str(exc)) from exc
    finally:
        auditor.close()
        if provider is not None:
            provider.shutdown()
        if logs is not None:
            logs.shutdown()
    progress(audit.tally, final=True)
    return _report(args, err, audit.tally, label, results, summary, tally_factory, finish)


def _otlp(args: argparse.Namespace, audit: TraceAudit, input_error: type[Exception]) -> None:
    from .otlp import OtlpFileSource, OtlpInputError

    path = Path(args.from_otlp)
    if not path.exists():
        raise input_error(f"--from-otlp {path}: no such file")
    try:
        audit.run_otlp(OtlpFileSource(path))
    except OtlpInputError as exc:
        raise input_error(str(exc)) from exc


def _phoenix_passes(args: argparse.Namespace, audit: TraceAudit, since: int | None,
                    shard: Any, input_error: type[Exception], err: TextIO) -> None:
    """One pass, or with ``--watch SECONDS`` one every SECONDS until interrupted."""
    from .phoenix import PhoenixSource

    source = PhoenixSource(args.from_phoenix, args.project)
    try:
        cursor = Cursor(Path(args.cursor) if args.cursor else None,
                        cursor_key(f"{args.from_phoenix.rstrip('/')} {args.project}", shard))
    except ValueError as exc:
        raise input_error(str(exc)) from exc
    source.check()
    passes = 0
    while True:
        start = cursor.start()  # the cursor less the look-back; --since bounds it below
        if since is not None:
            start = since if start is None else max(since, start)
        audit.run_phoenix(source, start or 0, time.time_ns(), cursor)
        passes += 1
        if not args.watch or (args.watch_passes and passes >= args.watch_passes):
            return
        err.write("vcg-otel: " + "; ".join(summary_lines(audit.tally, "so far")) + "\n")
        time.sleep(args.watch)


def _report(args: argparse.Namespace, err: TextIO, tally: TraceTally, label: str,
            results: Any, summary: Callable[..., None], tally_factory: Callable[..., Any],
            finish: Callable[..., int]) -> int:
    """The summary and any ``FAIL`` lines on stderr (stdout is left to ``--out /dev/stdout``)."""
    for line in summary_lines(tally, label):
        err.write(line + "\n")
    cli_tally = tally_factory(tally.counts, tally.usage, answers=tally.audited,
                              citations=tally.citations,
                              without_citations=tally.without_citations,
                              over_limit=tally.over_limit)
    summary(err, cli_tally)
    return finish(args, cli_tally, results, err)
