"""The input side's reading: from what an app returned to the citations and documents audited.

Layers, bottom up: :mod:`.walk` (bounded reads: one :class:`~vcg_otel.reading.walk.Budget`,
a charged ``get``, the id rule), :mod:`.formats` (one reader per documented provider or
framework shape), :mod:`.registry` (their order), :mod:`.text` (answer text: inline quotes
and markers), :mod:`.answers` (answers that frameworks wrap one level down) and
:mod:`.output` (:func:`read_output`, the one path every front end uses).

The names below are loaded on first use: the document model and the generic walker import
:mod:`.walk`, and an eager face would pull :mod:`.output` (which imports them) in first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from .output import Completeness, DocumentsIncomplete, Reading, read_output

_HOME = {"Completeness": "output", "DocumentsIncomplete": "output", "Reading": "output",
         "read_output": "output"}

__all__ = ["Completeness", "DocumentsIncomplete", "Reading", "read_output"]

__getattr__, __dir__ = lazy_exports(__name__, _HOME, globals(), __all__)
