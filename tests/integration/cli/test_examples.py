"""The examples run as documented and print what the docs show (the docs include the files)."""

from __future__ import annotations

import ast
import subprocess
import sys

import pytest
from support.fake_openai import FakeOpenAI
from support.frameworks import answer_with
from support.paths import ROOT


def run(script: str) -> str:
    out = subprocess.run([sys.executable, str(ROOT / "examples" / script)], capture_output=True,
                         text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_gate_quickstart_prints_every_outcome() -> None:
    lines = {line.split("  ")[0]: line for line in run("gate_quickstart.py").splitlines()}
    assert "found (elided)" in lines["elided"]
    assert " not_found " in lines["fabricated"] and " not_found " in lines["frankenquote"]
    assert "misattributed" in lines["misattributed"] and "really from lee-2025" in lines[
        "misattributed"]


def test_traced_example_prints_the_span_tree_and_metrics() -> None:
    out = run("traced_rag_app.py")
    assert "citation_audit [GUARDRAIL] found=2 not_found=1 misattributed=1 total=4" in out
    assert out.count("citation.check [EVALUATOR]") == 4
    assert ("'citation.stage': 'final', 'citation.verdict': 'not_found', "
            "'citation.gate.rejection': 'invented'} = 1") in out


# --- the framework examples of docs/guides/frameworks.md, run against support/fake_openai.py ----

#: examples/<file>, the modules it needs, and the guide's section that includes it
FRAMEWORK_EXAMPLES = {
    "haystack_pipeline.py": (("haystack",), "## Haystack"),
    "langchain_chain.py": (("langchain_core", "langchain_openai"), "## LangChain"),
    "llamaindex_query_engine.py": (("llama_index.core", "llama_index.llms.litellm"),
                                   "## LlamaIndex"),
}
HONEST = "improves accuracy by 4.2% over the baseline"  # in smith-2026
FABRICATED = "halves latency on every benchmark"
MOVED = "one in five quotes could not be traced"  # really in lee-2025
GUIDE = ROOT / "docs" / "guides" / "frameworks.md"


def included_code(script: str) -> str:
    """What the guide shows of ``script``: its ``literalinclude`` from the line it starts at
    to the end of the file."""
    guide = GUIDE.read_text()
    section = guide[guide.index(f"\n{FRAMEWORK_EXAMPLES[script][1]}\n"):]
    include = section.split("```{literalinclude}", 1)[1].split("```", 1)[0]
    assert include.split("\n", 1)[0].strip() == f"../../examples/{script}"
    start = include.split(":start-at:", 1)[1].split("\n", 1)[0].strip()
    source = (ROOT / "examples" / script).read_text()
    return source[source.index(start):]


@pytest.mark.parametrize("script", sorted(FRAMEWORK_EXAMPLES))
def test_the_frameworks_guide_shows_each_example_file_whole(script: str) -> None:
    source = (ROOT / "examples" / script).read_text()
    docstring_end = ast.parse(source).body[0].end_lineno
    code = "\n".join(source.splitlines()[docstring_end:]).strip() + "\n"
    assert included_code(script) == code  # everything after the docstring, nothing left out


@pytest.mark.parametrize("script", sorted(FRAMEWORK_EXAMPLES))
def test_framework_example_audits_the_model_answer(script: str, openai_server: FakeOpenAI,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    for module in FRAMEWORK_EXAMPLES[script][0]:
        pytest.importorskip(module)
    answer_with(openai_server, f'It "{HONEST}" [smith-2026], "{FABRICATED}" [smith-2026] and '
                               f'"{MOVED}" [smith-2026].')
    monkeypatch.setenv("OPENAI_BASE_URL", openai_server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no fetch from the internet
    verdicts = {line[30:]: line.split()[0] for line in run(script).splitlines()
                if line[14:30] == "smith-2026      "}
    assert verdicts == {HONEST: "found", FABRICATED: "not_found", MOVED: "misattributed"}
    assert len(openai_server.requests) == 1  # the framework's generator called the model
