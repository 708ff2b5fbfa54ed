"""Fuzzing in CI, deterministic: the checked-in corpora (fuzz/corpus/<target>/) replayed
through every target of fuzz/fuzz_targets.py, and a fixed, derandomized hypothesis sample of
byte strings through the same targets. The same oracles as the hypothesis tests
(tests/support/oracles.py). libFuzzer's own mutation loop is not run here: its path depends on
coverage feedback, so a fixed ``-seed`` still finds different inputs from run to run; that
open-ended fuzzing is the separate command in fuzz/fuzz_targets.py's docstring."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.paths import ROOT

pytest.importorskip("atheris")

FUZZ = ROOT / "fuzz"
CORPUS = FUZZ / "corpus"
TARGETS = ("normalize", "gate", "span_gate", "parser", "extractors")
SAMPLE = 1_000  # derandomized inputs per target, on top of the corpus


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"vcg_fuzz_{name}", FUZZ / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


fuzz_targets = _load("fuzz_targets")
sys.modules.setdefault("fuzz_targets", fuzz_targets)  # what fuzz/seeds.py imports
seeds = _load("seeds")


def test_every_target_has_a_corpus() -> None:
    assert sorted(fuzz_targets.TARGETS) == sorted(TARGETS)
    for target in TARGETS:
        assert len(list((CORPUS / target).iterdir())) >= 20, target


def test_hand_made_seeds_are_checked_in_as_built() -> None:
    """Every seed in fuzz/seeds.py decodes to what it is meant to be (build() checks) and
    is in the corpus byte for byte, regressions included."""
    for path, data in seeds.build().items():
        assert path.read_bytes() == data, f"{path}: run python fuzz/seeds.py"


@pytest.mark.parametrize("target", TARGETS)
def test_checked_in_corpus_passes_every_oracle(target: str) -> None:
    failures = []
    for path in sorted((CORPUS / target).iterdir()):
        try:
            fuzz_targets.run(target, path.read_bytes())
        except Exception as exc:  # a finding: an exception or a contradicted oracle
            args = repr(fuzz_targets.decode(target, path.read_bytes()))[:300]
            failures.append(f"{path.name}: {type(exc).__name__}: {exc} <- {args}")
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("target", TARGETS)
def test_derandomized_inputs_pass_every_oracle(target: str) -> None:
    """A bounded, reproducible sample beyond the corpus: hypothesis with a fixed derivation
    of its seed (``derandomize``) and no example database, so every run tries the same
    inputs."""

    @settings(derandomize=True, database=None, max_examples=SAMPLE, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(st.binary(max_size=2_048))
    def replay(data: bytes) -> None:
        fuzz_targets.run(target, data)

    replay()


@pytest.mark.parametrize("target", TARGETS)
def test_the_fuzzer_command_replays_the_corpus(target: str, tmp_path: Path) -> None:
    """The documented libFuzzer command (instrumented imports included) on a copy of the
    corpus with ``-runs=0``: every input executed once, no mutation, nothing written."""
    corpus = shutil.copytree(CORPUS / target, tmp_path / target)
    proc = subprocess.run(
        [sys.executable, str(FUZZ / "fuzz_targets.py"), target, "-runs=0",
         f"-artifact_prefix={tmp_path}/", str(corpus)],
        capture_output=True, text=True, timeout=300, cwd=tmp_path)
    files = len(list(corpus.iterdir()))
    assert proc.returncode == 0 and not list(tmp_path.glob("crash-*")), proc.stderr[-4000:]
    assert f"{files} files found in {corpus}" in proc.stderr
    assert f"Done {files + 1} runs" in proc.stderr  # each file, plus libFuzzer's empty input
