"""Judges backed by model clients (optional extras, imported lazily)."""

from .litellm import LiteLLMJudge

__all__ = ["LiteLLMJudge"]
