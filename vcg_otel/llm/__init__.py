"""Judges backed by model clients (optional extras, imported lazily)."""

from .env import judge_from_env, judge_model_from_env
from .litellm import LiteLLMJudge

__all__ = ["LiteLLMJudge", "judge_from_env", "judge_model_from_env"]
