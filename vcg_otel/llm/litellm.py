"""A judge backed by litellm: any of its 100+ providers, sync and async, tokens and cost.

litellm is an optional extra (``pip install 'vcg-otel[litellm]'``) and is imported only when
the first call is made (``import litellm`` costs about two seconds and 200 MB). Before that
import, ``LITELLM_LOCAL_MODEL_COST_MAP`` defaults to ``True`` so litellm reads its bundled price
map instead of fetching one over the network. litellm's loggers are set to WARNING unless
``LITELLM_LOG`` is set, because its DEBUG records contain whole prompts.
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
import math
import os
import threading
import time
from typing import Any

from ..judge.verdict import JudgeResponse, Usage

__all__ = ["LiteLLMJudge"]

_lock = threading.Lock()
_module: Any = None

# Keyword arguments whose values must never be shown (repr, telemetry, errors).
_SECRET_KEYS = frozenset({"api_key", "azure_ad_token", "aws_secret_access_key",
                          "aws_session_token", "vertex_credentials", "extra_headers", "headers"})


# Worth retrying: rate limits, server errors, timeouts and dropped connections.
_TRANSIENT = frozenset({"RateLimitError", "InternalServerError", "ServiceUnavailableError",
                        "APIConnectionError", "Timeout", "APITimeoutError", "BadGatewayError"})
_RETRY_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})


def _litellm() -> Any:
    global _module
    if _module is None:
        with _lock:
            if _module is None:
                os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
                module: Any = importlib.import_module("litellm")
                module.suppress_debug_info = True  # no banners on stdout from a library
                if not os.environ.get("LITELLM_LOG"):
                    # litellm's DEBUG records carry whole prompts (claims, quotes, documents):
                    # keep them out of an application's debug logs unless asked for.
                    for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy"):
                        logging.getLogger(name).setLevel(logging.WARNING)
                # The OpenAI SDK (litellm's client for OpenAI-compatible servers) logs every
                # request's options, prompt included, at DEBUG: quiet it too, unless the
                # application chose a level for it or asked for its logs (OPENAI_LOG).
                sdk = logging.getLogger("openai")
                if not os.environ.get("OPENAI_LOG") and sdk.level == logging.NOTSET:
                    sdk.setLevel(logging.WARNING)
                _module = module
    return _module


def _count(value: object) -> int:
    """A token count as the provider reported it; anything that is not a count is 0 (unknown).

    A server's usage block is outside our control: a negative, fractional or non-numeric
    count is not recorded (it would open the ``max_tokens`` budget or skew the metrics).
    """
    if isinstance(value, bool):
        return 0
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    return int.__int__(value) if isinstance(value, int) and value >= 0 else 0


class LiteLLMJudge:
    """``llm_call`` for the auditor through ``litellm.completion`` / ``acompletion``.

    Args:
        model: a litellm model string, e.g. ``"openai/gpt-4o-mini"`` or
            ``"anthropic/claude-3-5-haiku-latest"``.
        timeout: seconds per request (litellm's own timeout; the auditor has another).
        max_retries: bounded retries of failed requests (``num_retries``).
        temperature: 0 by default: a judge should not be creative.
        preload: import litellm now instead of on the first call.
        **litellm_kwargs: passed to every call (``api_base``, ``api_key``, ``max_tokens``, …).

    Raises:
        ImportError: litellm is not installed — at configuration time, not on every request.
    """

    def __init__(
        self,
        model: str,
        *,
        timeout: float = 30.0,
        max_retries: int = 2,
        temperature: float = 0.0,
        preload: bool = False,
        **litellm_kwargs: Any,
    ) -> None:
        if not isinstance(model, str) or not model:
            raise TypeError("model must be a non-empty litellm model string")
        if max_retries < 0:
            raise ValueError("max_retries must be >= 0")
        if importlib.util.find_spec("litellm") is None:
            raise ImportError(
                "LiteLLMJudge needs litellm: pip install 'vcg-otel[litellm]'"
            )
        self.model = model
        self.timeout = timeout
        self.max_retries = max_retries
        self.temperature = temperature
        self._kwargs = dict(litellm_kwargs)
        if preload:
            _litellm()

    def __repr__(self) -> str:
        shown = {k: ("***" if k in _SECRET_KEYS else v) for k, v in self._kwargs.items()}
        return f"LiteLLMJudge(model={self.model!r}, timeout={self.timeout}, {shown})"

    def _request(self, system: str, user: str) -> dict[str, Any]:
        return {
            "model": self.model,
            "messages": [{"role": "system", "content": system},
                         {"role": "user", "content": user}],
            "temperature": self.temperature,
            "timeout": self.timeout,
            # Retries are ours (see _retry_delay): litellm's and the provider SDK's are off, so
            # the bound is exact: 1 + max_retries requests at most.
            "num_retries": 0,
            "max_retries": 0,
            **self._kwargs,
        }

    def _response(self, litellm: Any, response: Any) -> JudgeResponse:
        text = response.choices[0].message.content
        usage = getattr(response, "usage", None)
        prompt = _count(getattr(usage, "prompt_tokens", 0))
        completion = _count(getattr(usage, "completion_tokens", 0))
        try:
            cost: float | None = float(litellm.completion_cost(completion_response=response))
        except Exception:
            cost = None  # price unknown for this model: tokens are still recorded
        if cost is not None and not (math.isfinite(cost) and cost >= 0.0):
            cost = None
        answered_by = getattr(response, "model", None)
        if not isinstance(answered_by, str) or not answered_by:
            answered_by = self.model
        return JudgeResponse(text if isinstance(text, str) else "", Usage(prompt, completion, cost),
                             answered_by)

    def _retry_delay(self, exc: Exception, attempt: int) -> float | None:
        """Seconds to wait before retrying after ``exc``, or ``None`` to give up."""
        if attempt >= self.max_retries:
            return None
        status = getattr(exc, "status_code", None)
        transient = type(exc).__name__ in _TRANSIENT or status in _RETRY_STATUS
        if not transient:
            return None
        response = getattr(exc, "response", None)
        headers = getattr(response, "headers", None) or {}
        try:
            after = float(headers.get("retry-after", ""))
        except (TypeError, ValueError):
            after = 0.5 * 2**attempt
        return min(max(after, 0.0), 10.0)

    def __call__(self, system: str, user: str) -> JudgeResponse:
        litellm = _litellm()
        request = self._request(system, user)
        attempt = 0
        while True:
            try:
                return self._response(litellm, litellm.completion(**request))
            except Exception as exc:
                delay = self._retry_delay(exc, attempt)
                if delay is None:
                    raise
            time.sleep(delay)
            attempt += 1

    async def acall(self, system: str, user: str) -> JudgeResponse:
        import asyncio

        litellm = _litellm()
        request = self._request(system, user)
        attempt = 0
        while True:
            try:
                return self._response(litellm, await litellm.acompletion(**request))
            except Exception as exc:
                delay = self._retry_delay(exc, attempt)
                if delay is None:
                    raise
            await asyncio.sleep(delay)
            attempt += 1
