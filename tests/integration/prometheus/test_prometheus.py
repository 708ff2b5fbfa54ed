"""Alert rules checked by promtool; the real exporter endpoint serves the series they use."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import urllib.request
from typing import Any

import pytest
from support.paths import ROOT

from vcg_otel import audited_citations
from vcg_otel.prometheus import start_prometheus_endpoint

ALERTS = ROOT / "examples" / "alerts"


def promtool() -> str:
    path = shutil.which("promtool")
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("promtool is missing in CI (.ci/run installs Debian's prometheus)")
        pytest.skip("promtool not installed (Debian package prometheus)")
    return path


def test_alert_rules_are_valid() -> None:
    out = subprocess.run([promtool(), "check", "rules", "citations.rules.yml"], cwd=ALERTS,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "6 rules found" in out.stdout


def test_alert_rule_unit_tests_fire_and_do_not_fire() -> None:
    out = subprocess.run([promtool(), "test", "rules", "citations.test.yml"], cwd=ALERTS,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    tests = (ALERTS / "citations.test.yml").read_text()
    assert "exp_alerts: []" in tests and "exp_labels:" in tests  # both outcomes are covered


def test_scraped_endpoint_serves_every_series_the_rules_use() -> None:
    endpoint = start_prometheus_endpoint(0)
    docs = {"a": "The reranker improves accuracy by 4.2%.", "b": "Cats sleep all day."}

    @audited_citations(meter_provider=endpoint.meter_provider, judge=lambda s, u: "garbage")
    def answer(documents: dict[str, str]) -> dict[str, Any]:
        return {"citations": [
            {"claim": "c", "quote": "improves accuracy", "doc_id": "a"},
            {"claim": "c", "quote": "Cats sleep all day", "doc_id": "a"},
            {"claim": "c", "quote": "dogs bark", "doc_id": "a"},
        ]}

    try:
        for _ in range(3):
            answer(docs)
        with urllib.request.urlopen(endpoint.url, timeout=5) as response:
            scrape = response.read().decode()
    finally:
        endpoint.close()
    rules = (ALERTS / "citations.rules.yml").read_text()
    used = set(re.findall(r"\b(citation_[a-z_]+_total)\b", rules))
    assert used == {"citation_audits_total", "citation_judge_fail_closed_total"}
    for name in used:
        assert re.search(rf"^{name}{{", scrape, re.M), name

    def value(metric: str, **labels: str) -> float:
        for line in scrape.splitlines():
            if line.startswith(metric + "{") and all(f'{k}="{v}"' in line
                                                     for k, v in labels.items()):
                return float(line.rsplit(" ", 1)[1])
        raise AssertionError(f"{metric} {labels} not scraped")

    assert value("citation_audits_total", citation_stage="final",
                 citation_verdict="misattributed") == 3
    assert value("citation_audits_total", citation_stage="final",
                 citation_verdict="not_found") == 3
    assert value("citation_judge_fail_closed_total", reason="no_json") == 3
    assert "citation_audit_duration_seconds_bucket" in scrape
