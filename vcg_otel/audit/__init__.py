"""The audit pipeline: citations in, one result per citation out (gate, then judge)."""

from .auditor import Auditor, audit_citation
from .cache import VerdictCache
from .models import AuditReport, AuditResult, Citation, Outcome

__all__ = ["AuditReport", "AuditResult", "Auditor", "Citation", "Outcome", "VerdictCache",
           "audit_citation"]
