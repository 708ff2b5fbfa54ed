"""The input side's reading: from what an app returned to the citations and documents audited.

Layers, bottom up: :mod:`.walk` (bounded reads: one :class:`~vcg_otel.extract.Budget`, a
charged ``get``, the id rule), :mod:`.formats` (one reader per documented provider or
framework shape), :mod:`.registry` (their order), :mod:`.text` (answer text: inline quotes
and markers) and :mod:`.output` (:func:`read_output`, the one path every front end uses).
"""

from __future__ import annotations

from .output import Completeness, DocumentsIncomplete, Reading, read_output

__all__ = ["Completeness", "DocumentsIncomplete", "Reading", "read_output"]
