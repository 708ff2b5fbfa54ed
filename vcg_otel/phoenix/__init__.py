"""Arize Phoenix: a safe ``register`` and span annotations that show fabrication rates.

Spans reach Phoenix over plain OTLP/HTTP (nothing here is needed for that: any OTLP path
works, a collector in between included). The production path:

* :func:`register` (:mod:`.provider`) -- ``phoenix.otel.register``'s provider with a batch
  processor that never blocks the app, plus the annotation writer;
* :class:`PhoenixAnnotationProcessor` (:mod:`.annotations`) -- the ``citation_verdict`` and
  ``citation_fabrication`` annotations, for any provider (``phoenix.otel.register``'s too);
* :mod:`.writer` -- the bounded background writer behind it (httpx, total deadlines).

:class:`LocalPhoenix` (:mod:`.local`), a Phoenix server run as a child process and read back
through its public API, serves the demo, the tests and the benchmarks; it is imported only
when asked for.

Needs the ``phoenix`` extra.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .annotations import (
    DEFAULT_ENDPOINT,
    REQUEST_ANNOTATION,
    VERDICT_ANNOTATION,
    PhoenixAnnotationProcessor,
)
from .provider import register

if TYPE_CHECKING:
    from .local import LocalPhoenix, free_port

__all__ = ["DEFAULT_ENDPOINT", "REQUEST_ANNOTATION", "VERDICT_ANNOTATION", "LocalPhoenix",
           "PhoenixAnnotationProcessor", "free_port", "register"]


def __getattr__(name: str) -> Any:
    """``LocalPhoenix`` and ``free_port`` load the server harness only when asked for."""
    if name in ("LocalPhoenix", "free_port"):
        from . import local

        return getattr(local, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
