"""The README is a front page a new user can trust: every Python block in it runs as written,
in a fresh interpreter from an empty directory, and prints what the README says it prints."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from support.paths import ROOT

README = ROOT / "README.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.M | re.S)


@dataclass(frozen=True)
class Block:
    line: int
    code: str
    output: str | None  # the ```text block shown right after it, if any


def python_blocks(markdown: str) -> list[Block]:
    """Each ```python block, with the ```text block that follows it as its output when at
    most one short line ("prints") stands between them."""
    fences = list(FENCE.finditer(markdown))
    blocks = []
    for i, fence in enumerate(fences):
        if fence.group(1) != "python":
            continue
        output = None
        if i + 1 < len(fences) and fences[i + 1].group(1) == "text":
            between = markdown[fence.end():fences[i + 1].start()].strip()
            if len(between.splitlines()) <= 1 and len(between) <= 40:
                output = fences[i + 1].group(2)
        blocks.append(Block(markdown.count("\n", 0, fence.start()) + 1, fence.group(2), output))
    return blocks


BLOCKS = python_blocks(README.read_text(encoding="utf-8"))


def test_the_readme_is_a_front_page_with_runnable_examples() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250
    assert len(BLOCKS) >= 2 and all(b.output is not None for b in BLOCKS)
    # the two set-up commands, unchanged
    assert 'pip install -e ".[demo]" && vcg-otel demo' in README.read_text(encoding="utf-8")
    assert 'pip install -e ".[test]" && pytest' in README.read_text(encoding="utf-8")


@pytest.mark.parametrize("block", BLOCKS, ids=[f"line{b.line}" for b in BLOCKS])
def test_each_readme_block_runs_as_written_and_prints_what_the_readme_shows(
        block: Block, tmp_path: Path) -> None:
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    done = subprocess.run([sys.executable, "-c", block.code], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"README line {block.line}:\n{done.stderr}"
    assert list(tmp_path.iterdir()) == []  # it needed nothing from the directory, left nothing
    if block.output is not None:
        assert done.stdout == block.output, f"README line {block.line} printed:\n{done.stdout}"


def test_every_relative_link_of_the_readme_exists() -> None:
    text = README.read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    local = [link for link in links if "://" not in link]
    assert local, "the README links into the docs"
    missing = [link for link in local if not (ROOT / link).exists()]
    assert missing == []
