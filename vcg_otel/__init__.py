"""vcg_otel: catch fabricated RAG citations and see them in OpenTelemetry.

* Stage 1, the verbatim gate: :func:`quote_gate`, :func:`span_gate`, :class:`Corpus`.
* Stage 2, the skeptical judge and the pipeline: :class:`Auditor`, :func:`judge_support`,
  :func:`audit_citation` (``vcg_otel.llm.LiteLLMJudge`` for litellm models).
* Telemetry: :func:`audited_citations` and ``vcg_otel.instrumentor``.

Importing the package loads nothing heavy (no litellm, no Phoenix, no OpenTelemetry SDK).
"""

from ._version import __version__
from .audit import Auditor, AuditReport, AuditResult, Citation, Outcome, audit_citation
from .decorator import AuditedResult, CitationAuditError, CitationViolation, audited_citations
from .gate import (
    DEFAULT_MAX_GAP,
    Corpus,
    DocumentCache,
    GateMatch,
    GateResult,
    NormalizedText,
    NotFoundReason,
    normalize,
    normalize_with_map,
    quote_gate,
    span_gate,
)
from .judge import FailReason, JudgeResponse, Usage, Verdict, VerdictLabel, judge_support

__all__ = [
    "DEFAULT_MAX_GAP",
    "AuditReport",
    "AuditResult",
    "AuditedResult",
    "Auditor",
    "Citation",
    "CitationAuditError",
    "CitationViolation",
    "Corpus",
    "DocumentCache",
    "FailReason",
    "GateMatch",
    "GateResult",
    "JudgeResponse",
    "NormalizedText",
    "NotFoundReason",
    "Outcome",
    "Usage",
    "Verdict",
    "VerdictLabel",
    "__version__",
    "audit_citation",
    "audited_citations",
    "judge_support",
    "normalize",
    "normalize_with_map",
    "quote_gate",
    "span_gate",
]
