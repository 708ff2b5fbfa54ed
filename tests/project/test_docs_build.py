"""The documentation builds with warnings as errors, its examples run, and its reference
tables are generated from the code: every name, metric and setting the code defines is in them.

Both Sphinx builds (HTML, then the doctest builder over the same doctrees) run once per
session in subprocesses, exactly as CI's docs commands would.
"""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import fields
from pathlib import Path

import pytest
from support.paths import ROOT

DOCS = ROOT / "docs"


def sphinx(builder: str, out: Path, doctrees: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    return subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", builder,
         "-d", str(doctrees), str(DOCS), str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    for module in ("sphinx", "myst_parser", "furo"):
        pytest.importorskip(module, reason="the docs extra is not installed (.[docs])")
    out = tmp_path_factory.mktemp("docs")
    html_run = sphinx("html", out / "html", out / "doctrees")
    assert html_run.returncode == 0, html_run.stdout + html_run.stderr
    doctest_run = sphinx("doctest", out / "doctest", out / "doctrees")
    assert doctest_run.returncode == 0, doctest_run.stdout + doctest_run.stderr
    yield out


def text_of(page: Path) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", page.read_text(encoding="utf-8")))


def test_the_docs_build_with_warnings_as_errors_and_every_example_runs(built: Path) -> None:
    report = (built / "doctest" / "output.txt").read_text(encoding="utf-8")
    tests = int(re.search(r"^\s*(\d+) tests?$", report, re.M).group(1))  # type: ignore[union-attr]
    assert tests >= 15
    assert re.search(r"^\s*0 failures in tests$", report, re.M)
    assert (built / "html" / "index.html").exists()


def test_every_name_in_semconv_is_in_the_generated_reference(built: Path) -> None:
    from vcg_otel.audit import Outcome
    from vcg_otel.otel import semconv

    page = " ".join(text_of(built / "html" / "reference" / f"{name}.html")
                    for name in ("telemetry", "settings"))
    names = [v for k, v in vars(semconv).items() if k.isupper() and isinstance(v, str)]
    assert len(names) > 80
    missing = [n for n in names if n not in page and n != semconv.COUNT_PREFIX]
    assert missing == []
    assert all(semconv.COUNT_PREFIX + o.value in page for o in Outcome)


def test_every_metric_the_code_creates_is_listed_with_its_prometheus_name(built: Path) -> None:
    page = text_of(built / "html" / "reference" / "telemetry.html")
    for metric, exposed in [("citation.audits", "citation_audits_total"),
                            ("citation.audit.duration", "citation_audit_duration_seconds"),
                            ("citation.annotations.dropped", "citation_annotations_dropped_total"),
                            ("gen_ai.client.token.usage", "gen_ai_client_token_usage")]:
        assert re.search(re.escape(metric) + r"\s+" + re.escape(exposed), page), metric


def test_every_setting_and_its_variable_is_in_the_generated_settings_reference(
        built: Path) -> None:
    from vcg_otel.config import AuditConfig, TelemetryConfig, env_vars

    page = text_of(built / "html" / "reference" / "settings.html")
    for kind in (AuditConfig, TelemetryConfig):
        for f in fields(kind):
            if f.init:
                assert f"{kind.__name__}.{f.name}" in page
    assert all(variable in page for variable in env_vars())
    assert "VCG_OTEL_SHUTDOWN_TIMEOUT" in page and "VCG_JUDGE_MODEL" in page  # not fields


def test_every_public_module_is_in_the_api_reference(built: Path) -> None:
    import pkgutil

    import vcg_otel

    pages = " ".join(text_of(p) for p in (built / "html" / "reference" / "api").glob("*.html"))
    modules = [m.name for m in pkgutil.walk_packages(vcg_otel.__path__, "vcg_otel.")
               if not any(part.startswith("_") for part in m.name.split("."))]
    assert len(modules) > 30
    assert [m for m in modules if m not in pages] == []


FENCE = re.compile(r"^(?P<before>.*\n)?```(?P<info>[^\n]*)\n", re.M)


def test_python_in_the_pages_is_executed_or_says_why_not() -> None:
    """Python in a page is a {testcode} block (run by the doctest build) or an included
    example file (run by the example tests); a plain block says on the line before it why it
    cannot run here."""
    unexplained = []
    for page in sorted(DOCS.rglob("*.md")):
        if "drafts" in page.relative_to(DOCS).parts:
            continue
        lines = page.read_text(encoding="utf-8").splitlines()
        for i, line in enumerate(lines):
            if re.match(r"^```(python|py|pycon)\s*$", line) and not (
                    i and lines[i - 1].startswith("<!-- not executed: ")):
                unexplained.append(f"{page.relative_to(ROOT)}:{i + 1}")
    assert unexplained == []
