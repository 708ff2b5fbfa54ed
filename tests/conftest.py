from __future__ import annotations

import importlib.util
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings
from support.fake_openai import FakeOpenAI
from support.phoenix_server import PhoenixServer
from support.telemetry import Telemetry

# Property tests run the same examples on every run (derived from each test, not a random
# seed) and keep no example database between runs: CI fails the same way or not at all.
# Random exploration belongs to the fuzz targets (fuzz/), which run on their own.
settings.register_profile("deterministic", derandomize=True, database=None)
settings.load_profile("deterministic")

# A shell starts a background job (``pytest &``, ``nohup``) with SIGINT ignored, and Python
# then installs no KeyboardInterrupt handler, in this process or in the processes it starts:
# every Ctrl-C test would pass or fail on how the suite was launched. Restore the handler
# (the children then start with SIGINT at its default, and install theirs).
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture
def openai_server() -> Iterator[FakeOpenAI]:
    """A scripted OpenAI-compatible server on 127.0.0.1 (set ``.responder`` per test)."""
    server = FakeOpenAI().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def phoenix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PhoenixServer]:
    """A real Phoenix server for the whole session (skipped if Phoenix is not installed)."""
    if not phoenix_installed():
        if os.environ.get("CI"):
            pytest.fail("the Phoenix server is not installed in CI (test extra)")
        pytest.skip("the Phoenix server is not installed (test extra)")
    server = PhoenixServer(tmp_path_factory.mktemp("phoenix"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


def phoenix_installed() -> bool:
    """Without importing it (that takes seconds): is the Phoenix server package present?"""
    spec = importlib.util.find_spec("phoenix")
    locations = spec.submodule_search_locations if spec else None
    return any((Path(p) / "server" / "main.py").exists() for p in locations or ())


# --- what this run did not test -------------------------------------------------------------
# A skipped test is a test that did not run: say which and why at the end of every run, and in
# CI (CI set, as .ci/run does), where the test extra and Debian's prometheus are installed and
# nothing may be skipped, fail the run.


def _skip_reasons(terminalreporter: pytest.TerminalReporter) -> dict[str, list[str]]:
    reasons: dict[str, list[str]] = {}
    for report in terminalreporter.stats.get("skipped", []):
        if hasattr(report, "wasxfail"):
            continue  # an expected failure, reported as xfailed
        longrepr = report.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
        reasons.setdefault(reason.removeprefix("Skipped: "), []).append(report.nodeid)
    return reasons


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, exitstatus: int,
                            config: pytest.Config) -> None:
    reasons = _skip_reasons(terminalreporter)
    if not reasons:
        return
    in_ci = bool(os.environ.get("CI"))
    title = "skipped in CI, which fails the run" if in_ci else "not tested in this run"
    terminalreporter.section(title, sep="=", red=in_ci, yellow=not in_ci, bold=True)
    for reason, nodeids in sorted(reasons.items(), key=lambda item: -len(item[1])):
        terminalreporter.line(f"{len(nodeids)} skipped: {reason}")
        for nodeid in nodeids[:5]:
            terminalreporter.line(f"    {nodeid}")
        if len(nodeids) > 5:
            terminalreporter.line(f"    ... and {len(nodeids) - 5} more")


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if (os.environ.get("CI") and reporter is not None and _skip_reasons(reporter)
            and session.exitstatus == pytest.ExitCode.OK):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture
def telemetry() -> Iterator[Telemetry]:
    t = Telemetry()
    yield t
    t.tracer_provider.shutdown()
    t.meter_provider.shutdown()
