"""The bottom floor of reading: bounded attribute reads, shared by every format reader.

Nothing new lives here yet: the primitives are :mod:`vcg_otel.extract`'s (one budget, one
charged ``get``, one id rule), re-exported so that format readers depend on this floor only
and the restructure (issue 20, item 5) can move them here without touching a reader.
"""

from __future__ import annotations

from typing import Any

from ..extract import _BUDGET, MAX_ID_CHARS, Budget, _charge, charging, document_id
from ..extract import _get as get

__all__ = [
    "MAX_ID_CHARS",
    "Budget",
    "charge",
    "charging",
    "current",
    "document_id",
    "field",
    "get",
    "integer",
    "is_list",
    "listed",
    "text_of",
]

charge = _charge


def current() -> Budget | None:
    """The budget of the reading running in this context (``None`` outside one)."""
    return _BUDGET.get()


def is_list(value: Any) -> bool:
    """A list or tuple (what JSON arrays and SDK list fields become)."""
    return isinstance(value, (list, tuple))


def listed(value: Any) -> list[Any] | tuple[Any, ...]:
    """``value`` when it is a list or tuple, else ``()``: a reader never iterates a str,
    a dict or an app object it did not recognise. Each item costs the running budget a node;
    a list longer than what is left is cut there (the budget records it)."""
    if not isinstance(value, (list, tuple)):
        return ()
    budget = current()
    if budget is None or not value:
        return value
    left = max(budget.nodes, 0) if budget.exhausted is None else 0
    return value if budget.take(len(value)) else value[:left]


def text_of(value: Any) -> str | None:
    """``value`` when it is a ``str`` (never ``str()`` of something else)."""
    return value if isinstance(value, str) else None


def integer(value: Any) -> int | None:
    """``value`` when it is an ``int`` that is not a ``bool``."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def field(obj: Any, *names: str) -> Any:
    """The first of ``names`` that ``obj`` has (``None`` when none): REST JSON is camelCase
    (``groundingMetadata``), SDK objects snake_case (``grounding_metadata``)."""
    for name in names:
        value = get(obj, name)
        if value is not None:
            return value
    return None
