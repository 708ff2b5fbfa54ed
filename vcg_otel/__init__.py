"""vcg_otel: catch fabricated RAG citations and see them in OpenTelemetry.

The top level holds what an application author needs:

* Telemetry: :func:`audited_citations` (observe or enforce a handler), its results and errors
  (:class:`AuditedResult`, :class:`CitationViolation`, :class:`CitationAuditError`); or
  ``vcg_otel.instrumentor`` for no code change.
* The audit: :class:`Auditor`, :class:`Citation` in, :class:`AuditReport` of :class:`Outcome`
  out; :class:`LiteLLMJudge` for litellm models (any ``llm_call(system, user)`` works).
* The seed-compatible gate and judge functions: :func:`quote_gate`, :func:`span_gate`,
  :func:`normalize`, :class:`Corpus`, :class:`GateMatch`, :func:`judge_support`,
  :func:`audit_citation`.

Everything else lives in its subpackage: the gate's internals (``GateResult``,
``NotFoundReason``, ``DocumentCache``, ``normalize_with_map``) in :mod:`vcg_otel.gate`, the
judge's (``VerdictLabel``, ``Verdict``, ``JudgeResponse``, ``Usage``, ``FailReason``) in
:mod:`vcg_otel.judge`, ``AuditResult`` and ``VerdictCache`` in :mod:`vcg_otel.audit`.

Importing the package loads nothing heavy (no litellm, no Phoenix, no OpenTelemetry SDK).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._version import __version__
from .audit import Auditor, AuditReport, Citation, Outcome, audit_citation
from .decorator import AuditedResult, CitationAuditError, CitationViolation, audited_citations
from .gate import Corpus, GateMatch, normalize, quote_gate, span_gate
from .judge import judge_support

if TYPE_CHECKING:
    from .llm import LiteLLMJudge

__all__ = [
    "AuditReport",
    "AuditedResult",
    "Auditor",
    "Citation",
    "CitationAuditError",
    "CitationViolation",
    "Corpus",
    "GateMatch",
    "LiteLLMJudge",
    "Outcome",
    "__version__",
    "audit_citation",
    "audited_citations",
    "judge_support",
    "normalize",
    "quote_gate",
    "span_gate",
]


def __getattr__(name: str) -> Any:
    """``LiteLLMJudge`` on first use, so ``import vcg_otel`` does not load the llm package."""
    if name == "LiteLLMJudge":
        from .llm import LiteLLMJudge

        return LiteLLMJudge
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
