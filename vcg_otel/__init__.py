"""vcg_otel: catch fabricated RAG citations and see them in OpenTelemetry.

The top level holds what an application author needs:

* Telemetry: :func:`audited_citations` (observe or enforce a handler), its results and errors
  (:class:`AuditedResult`, :class:`CitationViolation`, :class:`CitationAuditError`); or
  ``vcg_otel.instrumentor`` for no code change. :func:`flush` waits for the audits still
  running in the background.
* Settings: :class:`AuditConfig` (how to audit) and :class:`TelemetryConfig` (how to record
  it), taken alike by every front end; each field has its ``VCG_OTEL_*`` variable.
* The audit: :class:`Auditor`, :class:`Citation` in, :class:`AuditReport` of :class:`Outcome`
  out; :class:`LiteLLMJudge` for litellm models (any ``llm_call(system, user)`` works).
* The seed-compatible gate and judge functions: :func:`quote_gate`, :func:`span_gate`,
  :func:`normalize`, :class:`Corpus`, :class:`GateMatch`, :func:`judge_support`,
  :func:`audit_citation`.

Everything else lives in its subpackage: the gate's internals (``GateResult``,
``NotFoundReason``, ``DocumentCache``, ``normalize_with_map``) in :mod:`vcg_otel.gate`, the
judge's (``VerdictLabel``, ``Verdict``, ``JudgeResponse``, ``Usage``, ``FailReason``) in
:mod:`vcg_otel.judge`, ``AuditResult`` and ``VerdictCache`` in :mod:`vcg_otel.audit`.

Importing the package loads nothing but its version: each name is loaded from its subpackage
on first use (and even then no litellm, no Phoenix, no OpenTelemetry SDK).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._lazy import lazy_exports
from ._version import __version__

if TYPE_CHECKING:
    from .audit import Auditor, AuditReport, Citation, Outcome, audit_citation
    from .config import AuditConfig, TelemetryConfig
    from .decorator import AuditedResult, CitationAuditError, CitationViolation, audited_citations
    from .gate import Corpus, GateMatch, normalize, quote_gate, span_gate
    from .judge import judge_support
    from .llm import LiteLLMJudge
    from .otel.background import flush

# Each public name, and the subpackage it is loaded from on first use: ``import vcg_otel``
# stays a few milliseconds, and a gate-only user never loads the telemetry or the audit.
_HOME = {
    "Auditor": "audit", "AuditReport": "audit", "Citation": "audit", "Outcome": "audit",
    "audit_citation": "audit",
    "AuditConfig": "config", "TelemetryConfig": "config",
    "AuditedResult": "decorator", "CitationAuditError": "decorator",
    "CitationViolation": "decorator", "audited_citations": "decorator",
    "flush": "otel.background",
    "Corpus": "gate", "GateMatch": "gate", "normalize": "gate", "quote_gate": "gate",
    "span_gate": "gate",
    "judge_support": "judge",
    "LiteLLMJudge": "llm",
}

__all__ = [
    "AuditConfig",
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
    "TelemetryConfig",
    "__version__",
    "audit_citation",
    "audited_citations",
    "flush",
    "judge_support",
    "normalize",
    "quote_gate",
    "span_gate",
]


__getattr__, __dir__ = lazy_exports(__name__, _HOME, globals(), __all__)
