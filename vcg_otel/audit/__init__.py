"""The audit pipeline: citations in, one result per citation out (gate, then judge).

The names below are loaded from their modules on first use: :mod:`vcg_otel.documents` needs
:class:`Citation` from :mod:`.models` while :mod:`.auditor` needs the documents, and an eager
``__init__`` made that a cycle for whoever imported ``vcg_otel.documents`` first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from .auditor import Auditor, audit_citation
    from .cache import VerdictCache
    from .models import AuditReport, AuditResult, Citation, Outcome

_HOME = {
    "Auditor": "auditor", "audit_citation": "auditor", "VerdictCache": "cache",
    "AuditReport": "models", "AuditResult": "models", "Citation": "models", "Outcome": "models",
}

__all__ = ["AuditReport", "AuditResult", "Auditor", "Citation", "Outcome", "VerdictCache",
           "audit_citation"]

__getattr__, __dir__ = lazy_exports(__name__, _HOME, globals(), __all__)
