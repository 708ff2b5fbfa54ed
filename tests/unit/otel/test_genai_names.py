"""The GenAI conventions' names we take from ``opentelemetry-semantic-conventions``, pinned.

The conventions are in development and the package marks its gen_ai names as moved to the
GenAI conventions' own repository: a release that renames or drops one must fail here (before
the dependency range is raised), not in a user's process. And semconv.py keeps only our names.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as ga
from opentelemetry.semconv._incubating.metrics import gen_ai_metrics
from opentelemetry.semconv.attributes.error_attributes import ERROR_TYPE

from vcg_otel.otel import genai, semconv

SEMCONV_PY = Path(semconv.__file__)


def test_the_package_names_we_emit_are_the_conventions_strings() -> None:
    pinned = [
        (ga.GEN_AI_OPERATION_NAME, "gen_ai.operation.name"),
        (ga.GEN_AI_PROVIDER_NAME, "gen_ai.provider.name"),
        (ga.GEN_AI_REQUEST_MODEL, "gen_ai.request.model"),
        (ga.GEN_AI_RESPONSE_MODEL, "gen_ai.response.model"),
        (ga.GEN_AI_USAGE_INPUT_TOKENS, "gen_ai.usage.input_tokens"),
        (ga.GEN_AI_USAGE_OUTPUT_TOKENS, "gen_ai.usage.output_tokens"),
        (ga.GEN_AI_INPUT_MESSAGES, "gen_ai.input.messages"),
        (ga.GEN_AI_OUTPUT_MESSAGES, "gen_ai.output.messages"),
        (ga.GEN_AI_TOKEN_TYPE, "gen_ai.token.type"),
        (ga.GEN_AI_EVALUATION_NAME, "gen_ai.evaluation.name"),
        (ga.GEN_AI_EVALUATION_SCORE_VALUE, "gen_ai.evaluation.score.value"),
        (ga.GEN_AI_EVALUATION_SCORE_LABEL, "gen_ai.evaluation.score.label"),
        (ga.GEN_AI_EVALUATION_EXPLANATION, "gen_ai.evaluation.explanation"),
        (ERROR_TYPE, "error.type"),
        (gen_ai_metrics.GEN_AI_CLIENT_TOKEN_USAGE, "gen_ai.client.token.usage"),
        (gen_ai_metrics.GEN_AI_CLIENT_OPERATION_DURATION, "gen_ai.client.operation.duration"),
    ]
    assert [name for name, _ in pinned] == [expected for _, expected in pinned]
    assert ga.GenAiOperationNameValues.CHAT.value == genai.OPERATION == "chat"
    assert ga.GenAiTokenTypeValues.INPUT.value == "input"
    assert ga.GenAiTokenTypeValues.OUTPUT.value == "output"


def _string_constants() -> dict[str, str]:
    tree = ast.parse(SEMCONV_PY.read_text())
    out = {}
    for node in tree.body:
        if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    out[target.id] = node.value.value
    return out


def test_semconv_py_defines_only_names_the_package_does_not_carry() -> None:
    package_names = {v for k, v in vars(ga).items() if k.startswith("GEN_AI_")} | {ERROR_TYPE}
    ours = _string_constants()
    assert not package_names & set(ours.values())
    # The convention names it does define: the package has no event names and no
    # instrumentation settings.
    conventions = {k: v for k, v in ours.items() if v.startswith(("gen_ai.", "OTEL_"))}
    assert conventions == {
        "EVENT_EVALUATION_RESULT": "gen_ai.evaluation.result",
        "ENV_GENAI_CAPTURE": "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT",
    }


def test_provider_and_model_come_from_the_litellm_model_string() -> None:
    assert genai.split_model("openai/gpt-4o-mini") == ("openai", "gpt-4o-mini")
    assert genai.split_model("bedrock/anthropic.claude-3") == ("aws.bedrock", "anthropic.claude-3")
    assert genai.split_model("vertex_ai/gemini-2.0") == ("gcp.vertex_ai", "gemini-2.0")
    assert genai.split_model("ollama/llama3") == ("ollama", "llama3")  # a custom value
    assert genai.split_model("gpt-4o") == ("openai", "gpt-4o")
    assert genai.split_model("claude-sonnet-4") == ("anthropic", "claude-sonnet-4")
    assert genai.split_model("my-local-model") == ("_OTHER", "my-local-model")
    assert genai.split_model("callable:tests.judge") == ("_OTHER", None)
    assert genai.split_model(None) == ("_OTHER", None)


def test_import_vcg_otel_loads_no_sdk_and_no_logs_sdk() -> None:
    code = ("import sys, vcg_otel; print(sorted(m for m in sys.modules if m.startswith("
            "('opentelemetry.sdk', 'litellm', 'phoenix'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60)
    assert out.stdout.strip() == "[]"
