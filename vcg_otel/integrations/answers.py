"""Compatibility: the framework-answer reader moved to :mod:`vcg_otel.reading.answers`.

It is part of the one reading path (:func:`vcg_otel.reading.read_output` falls back on it),
which sits below the integrations: this name stays importable for apps that used it.
"""

from __future__ import annotations

from ..reading.answers import ANSWER_KEYS, answer_citations, citations_in_text

__all__ = ["ANSWER_KEYS", "answer_citations", "citations_in_text"]
