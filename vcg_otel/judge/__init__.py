"""Stage 2, the skeptical judge: does the quoted passage establish the claim?

Any ``llm_call(system, user) -> str`` works (sync or async, or returning a
:class:`JudgeResponse` with token usage). The prompt puts the burden of proof on the quote and
fences untrusted text; the parser reads a verdict only from an answer whose whole structure
is unambiguous and otherwise fails closed with a distinct :class:`FailReason`. Whatever the
judge raises or returns, judging never raises.
"""

from .parse import parse_verdict
from .prompt import PROMPT_VERSION, SYSTEM_PROMPT, build_user_prompt
from .runner import LLMCall, WindowConfig, judge_support, source_window
from .verdict import FailReason, JudgeResponse, Usage, Verdict, VerdictLabel

__all__ = [
    "PROMPT_VERSION",
    "SYSTEM_PROMPT",
    "FailReason",
    "JudgeResponse",
    "LLMCall",
    "Usage",
    "Verdict",
    "VerdictLabel",
    "WindowConfig",
    "build_user_prompt",
    "judge_support",
    "parse_verdict",
    "source_window",
]
