"""One switch for content in telemetry: claims, quotes, prompts, answers and reasoning.

Content is captured unless something says otherwise, in this order: the explicit
``capture_content`` argument; ``VCG_OTEL_CAPTURE_CONTENT`` (``false``/``0``/``no``/``off``
hides everything); OpenInference's ``OPENINFERENCE_HIDE_INPUTS`` (claim, quote, prompt) and
``OPENINFERENCE_HIDE_OUTPUTS`` (model answer, reasoning). Hidden text is dropped, and only its
length is recorded; ids, offsets, verdicts and numbers always stay.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from . import semconv

__all__ = ["ContentPolicy"]

_FALSE = frozenset({"0", "false", "no", "off"})
_TRUE = frozenset({"1", "true", "yes", "on"})


def _env_flag(name: str) -> bool | None:
    value = os.environ.get(name, "").strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    return None


@dataclass(frozen=True, slots=True)
class ContentPolicy:
    """What text may be written to spans and events."""

    inputs: bool = True
    outputs: bool = True

    @classmethod
    def resolve(cls, capture_content: bool | None = None) -> ContentPolicy:
        """The policy from the argument if given, else from the environment."""
        if capture_content is not None:
            return cls(bool(capture_content), bool(capture_content))
        if _env_flag(semconv.ENV_CAPTURE_CONTENT) is False:
            return cls(False, False)
        return cls(
            inputs=_env_flag(semconv.ENV_HIDE_INPUTS) is not True,
            outputs=_env_flag(semconv.ENV_HIDE_OUTPUTS) is not True,
        )
