"""The judge named by the environment: ``VCG_JUDGE_MODEL`` -> :class:`LiteLLMJudge`.

One place reads the variable, so the instrumentor, the CLI and the demo agree on what it means
(a litellm model string; unset or empty: no judge, a gate-only audit).
"""

from __future__ import annotations

import os

from ..otel.semconv import ENV_JUDGE_MODEL
from .litellm import LiteLLMJudge

__all__ = ["judge_from_env", "judge_model_from_env"]


def judge_model_from_env(model: str | None = None) -> str | None:
    """``model`` if given, else ``$VCG_JUDGE_MODEL``; ``None`` when neither names a model.

    For front ends that need the model string itself (a serializable Haystack component)."""
    return model or os.environ.get(ENV_JUDGE_MODEL) or None


def judge_from_env(model: str | None = None) -> LiteLLMJudge | None:
    """A :class:`LiteLLMJudge` for ``model``, else for ``$VCG_JUDGE_MODEL``; ``None`` (gate
    only) when neither names a model. litellm itself is imported on the first call."""
    name = judge_model_from_env(model)
    return None if name is None else LiteLLMJudge(name)
