"""One switch for content in telemetry: claims, quotes, prompts, answers and reasoning.

Content is captured unless something says otherwise, in this order: the explicit
``capture_content`` argument; ``VCG_OTEL_CAPTURE_CONTENT`` (``false``/``0``/``no``/``off``
hides everything); OpenInference's ``OPENINFERENCE_HIDE_INPUTS`` (claim, quote, prompt) and
``OPENINFERENCE_HIDE_OUTPUTS`` (model answer, reasoning). Hidden text is dropped, and only its
length is recorded; ids, offsets, verdicts and numbers always stay.

A cited document id is the answer's own text until it names a retrieved document: with
inputs hidden, only an id that resolved to one is exported (:func:`exported_document_id`);
anything else the answer wrote where an id goes (the first word of a Markdown footnote
definition, ``[^1]: Patient Jane ...``) is content, and hidden.

Exceptions are content too: a message can quote a prompt, a document or an answer. With any
content hidden, :func:`record_exception` records an exception's type and its frames (file,
line, function, source line) but neither its message nor those of the exceptions it chains.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .._settings import env_flag
from ..documents import ResolvedMatch
from . import semconv

if TYPE_CHECKING:
    from opentelemetry.trace import Span

    from ..audit.models import AuditResult

__all__ = ["ContentPolicy", "exported_document_id", "record_exception"]

@dataclass(frozen=True, slots=True)
class ContentPolicy:
    """What text may be written to spans and events."""

    inputs: bool = True
    outputs: bool = True

    @classmethod
    def resolve(cls, capture_content: bool | None = None) -> ContentPolicy:
        """The policy from the argument if given, else from the environment."""
        if capture_content is not None:
            return cls(bool(capture_content), bool(capture_content))
        if env_flag(semconv.ENV_CAPTURE_CONTENT) is False:
            return cls(False, False)
        return cls(
            inputs=env_flag(semconv.ENV_HIDE_INPUTS) is not True,
            outputs=env_flag(semconv.ENV_HIDE_OUTPUTS) is not True,
        )


def exported_document_id(r: AuditResult, policy: ContentPolicy) -> str | None:
    """The cited document id as telemetry may carry it (``citation.document.id``).

    With inputs captured, the id as cited. With inputs hidden, only an id that resolved to a
    retrieved document (through the document model, or as a quote found in the very
    document it names); ``None`` for any other, which is the answer's text.
    """
    cited = r.citation.document_id
    if cited is None or policy.inputs:
        return cited
    if r.evidence is not None:  # a quote-less citation: its source check
        return cited if r.evidence.source.group else None
    gate = r.gate
    if isinstance(gate, ResolvedMatch):
        return cited if gate.group else None
    return cited if gate is not None and gate.found else None


def _type_name(exc: BaseException) -> str:
    kind = type(exc)
    module = kind.__module__
    return f"{module}.{kind.__qualname__}" if module and module != "builtins" else kind.__qualname__


def record_exception(span: Span, exc: BaseException, policy: ContentPolicy) -> None:
    """OpenTelemetry's ``exception`` event for ``exc`` on ``span``, within ``policy``.

    With all content captured this is ``span.record_exception`` (type, message, stack trace).
    Otherwise the message is left out and the stack trace holds only frames and the type: the
    SDK's trace would repeat the message (and every chained exception's) in its text.
    """
    if not span.is_recording():
        return
    # The SDK depends on the semantic-conventions package; a span that records has an SDK.
    from opentelemetry.semconv.attributes.exception_attributes import (
        EXCEPTION_STACKTRACE,
        EXCEPTION_TYPE,
    )

    if policy.inputs and policy.outputs:
        try:
            span.record_exception(exc)
            return
        except Exception:  # a __str__ that raises: record what can be recorded safely
            pass
    kind = _type_name(exc)
    frames = "".join(traceback.format_tb(exc.__traceback__))
    span.add_event("exception", {
        EXCEPTION_TYPE: kind,
        EXCEPTION_STACKTRACE: f"Traceback (most recent call last):\n{frames}{kind}\n",
    })
