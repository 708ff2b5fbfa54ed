"""The gate's version: part of the audit version that trace audits write on their annotations.

Bump :data:`GATE_VERSION` whenever a change to stage 1 (normalization, search, markup, id
resolution) can change a verdict: ``vcg-otel audit --from-phoenix`` then re-audits traces it
audited before (their annotations carry the old version), and skips them otherwise.
"""

from __future__ import annotations

__all__ = ["GATE_VERSION"]

GATE_VERSION = "1"
