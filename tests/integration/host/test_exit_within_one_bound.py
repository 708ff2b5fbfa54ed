"""Issue 19, item 10 end to end: a process exiting with background audits pending behind a
hung judge, and the Phoenix annotation writer holding annotations for a server that never
answers, exits within the one bound (``VCG_OTEL_SHUTDOWN_TIMEOUT``), not the sum of each
part's own (runner 1 s + cancellation 1 s + writer 5 s before). Measured inside the child,
from the end of its main code to its last atexit hook; the slack covers scheduling on a
loaded machine (the bounds added up to several seconds more)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from support.exit_scenarios import HUNG_AT_EXIT
from support.hostile_http import HostileServer
from support.paths import ROOT

BOUND = 1.0
SLACK = 2.5

def test_everything_held_at_exit_shares_one_bound() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "VCG_OTEL_SHUTDOWN_TIMEOUT": str(BOUND)}
    with HostileServer("silent") as silent:
        done = subprocess.run([sys.executable, "-c", HUNG_AT_EXIT, silent.url, "5", "5", "2.5"],
                              capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["exit"] < BOUND + SLACK, result
    # every span ended: a foreground audit's and its check's, a cancelled audit's own
    assert result["ended"] == 5 * 2 + 5
    assert result["written"] == 0 and sum(result["annotations"].values()) > 0  # all counted
