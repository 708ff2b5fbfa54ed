"""A judge call as OpenTelemetry's GenAI semantic conventions see it.

The names come from the ``opentelemetry-semantic-conventions`` package (``gen_ai.*`` from its
incubating module: the GenAI conventions are in *development* status, and from 0.66b2 on the
package marks them "moved to the GenAI semantic conventions repository"). That is why the
package is bounded to the versions we tested: an upgrade bumps the range after
``tests/unit/otel/test_genai_names.py`` passes against the new release (it pins every name we
rely on to its string, so a rename or a removal fails there, not in a user's process).

What the conventions ask of a model call, and where each answer comes from here:

* ``gen_ai.operation.name``: ``chat`` (every judge call is one chat completion);
* ``gen_ai.provider.name``: the provider prefix of the judge's litellm model string
  (``openai/gpt-4o-mini`` -> ``openai``, ``bedrock/...`` -> ``aws.bedrock``), the family of
  a bare well-known model name, else ``_OTHER`` (a callable judge names no provider);
* ``gen_ai.request.model``: the judge's model without the provider prefix (none for a plain
  callable, whose name vcg_otel made up); ``gen_ai.response.model``: the model that answered;
* ``error.type``: the fail-closed reason (:class:`~vcg_otel.judge.verdict.FailReason`
  values, a closed low-cardinality list);
* span name ``"{gen_ai.operation.name} {gen_ai.request.model}"``, span kind CLIENT.
"""

from __future__ import annotations

import json
import os
from functools import lru_cache
from typing import Any

from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as ga
from opentelemetry.semconv._incubating.metrics import gen_ai_metrics
from opentelemetry.semconv.attributes.error_attributes import ERROR_TYPE

from . import semconv

__all__ = [
    "ERROR_TYPE",
    "METRIC_OPERATION_DURATION",
    "METRIC_TOKEN_USAGE",
    "OPERATION",
    "call_attributes",
    "capture_messages",
    "input_messages",
    "output_messages",
    "span_name",
    "split_model",
]

OPERATION = ga.GenAiOperationNameValues.CHAT.value
METRIC_TOKEN_USAGE = gen_ai_metrics.GEN_AI_CLIENT_TOKEN_USAGE
METRIC_OPERATION_DURATION = gen_ai_metrics.GEN_AI_CLIENT_OPERATION_DURATION
OTHER = "_OTHER"

_P = ga.GenAiProviderNameValues
# litellm's provider prefixes -> the conventions' well-known provider names. A prefix not listed
# is passed through as a custom value (the conventions allow one: "ollama", "openrouter", ...).
_PROVIDERS = {
    "openai": _P.OPENAI.value, "text-completion-openai": _P.OPENAI.value,
    "azure": _P.AZURE_AI_OPENAI.value, "azure_ai": _P.AZURE_AI_INFERENCE.value,
    "anthropic": _P.ANTHROPIC.value, "bedrock": _P.AWS_BEDROCK.value,
    "vertex_ai": _P.GCP_VERTEX_AI.value, "gemini": _P.GCP_GEMINI.value,
    "cohere": _P.COHERE.value, "cohere_chat": _P.COHERE.value, "groq": _P.GROQ.value,
    "mistral": _P.MISTRAL_AI.value, "deepseek": _P.DEEPSEEK.value,
    "perplexity": _P.PERPLEXITY.value, "xai": _P.X_AI.value, "watsonx": _P.IBM_WATSONX_AI.value,
}
# Bare model names litellm routes by family.
_FAMILIES = (("gpt-", _P.OPENAI.value), ("chatgpt-", _P.OPENAI.value), ("o1", _P.OPENAI.value),
             ("o3", _P.OPENAI.value), ("o4", _P.OPENAI.value), ("claude-", _P.ANTHROPIC.value))
_CALLABLE = "callable:"  # vcg_otel.judge.runner.judge_model_name's prefix for plain callables
_CAPTURE_ON = frozenset({"true", "1", "span_only", "span_and_event"})


@lru_cache(maxsize=256)
def split_model(model: str | None) -> tuple[str, str | None]:
    """``(gen_ai.provider.name, model name without the provider prefix)`` of a judge model."""
    if not model or model.startswith(_CALLABLE):
        return OTHER, None
    prefix, slash, rest = model.partition("/")
    if slash and rest:
        return _PROVIDERS.get(prefix, prefix), rest
    lowered = model.lower()
    for start, provider in _FAMILIES:
        if lowered.startswith(start):
            return provider, model
    return OTHER, model


@lru_cache(maxsize=256)
def span_name(request_model: str | None) -> str:
    """``"chat gpt-4o-mini"``; just ``"chat"`` when the model is unknown."""
    return OPERATION if not request_model else f"{OPERATION} {request_model}"


def call_attributes(judge_model: str | None, answered_by: str | None,
                    error_type: str | None = None) -> dict[str, Any]:
    """The conventions' attributes common to the judge span and the GenAI metrics."""
    provider, request_model = split_model(judge_model)
    attrs: dict[str, Any] = {ga.GEN_AI_OPERATION_NAME: OPERATION,
                             ga.GEN_AI_PROVIDER_NAME: provider}
    if request_model:
        attrs[ga.GEN_AI_REQUEST_MODEL] = request_model
    response_model = split_model(answered_by)[1]
    if response_model:
        attrs[ga.GEN_AI_RESPONSE_MODEL] = response_model
    if error_type is not None:
        attrs[ERROR_TYPE] = error_type
    return attrs


def capture_messages() -> bool:
    """Whether the conventions' own content opt-in allows message content on spans.

    ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`` is off unless set (``true``, or
    ``SPAN_ONLY`` / ``SPAN_AND_EVENT`` in the newer vocabulary). It only adds the conventions'
    ``gen_ai.input.messages`` / ``gen_ai.output.messages``; vcg_otel's own content switch
    (:class:`~vcg_otel.otel.content.ContentPolicy`) must allow the text as well.
    """
    return os.environ.get(semconv.ENV_GENAI_CAPTURE, "").strip().lower() in _CAPTURE_ON


def _text_message(role: str, text: str) -> dict[str, Any]:
    return {"role": role, "parts": [{"type": "text", "content": text}]}


def input_messages(prompt: str) -> str:
    """``gen_ai.input.messages`` (JSON, the conventions' message schema): the user prompt."""
    return json.dumps([_text_message("user", prompt)], ensure_ascii=False)


def output_messages(answer: str) -> str:
    """``gen_ai.output.messages`` (JSON): the model's answer. No ``finish_reason``: the judge
    callable does not report one, and a guessed one would be false."""
    return json.dumps([_text_message("assistant", answer)], ensure_ascii=False)
