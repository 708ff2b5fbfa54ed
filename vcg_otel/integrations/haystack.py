"""Haystack components: the citation audit as a pipeline step (extra: ``haystack``).

* :class:`CitationConsistencyChecker`: seed-compatible. ``run(citations=[Citation(claim=...,
  document_id=..., quote=...)], documents=[Document(...)])`` returns ``{"consistent": [...],
  "inconsistent": [...]}``, each citation a copy with its ``status`` (and evidence) filled in.
* :class:`ReplyCitationChecker`: takes a generator's ``replies`` and the retrieved
  ``documents``, finds the citations in the replies itself (a JSON ``citations`` list, or
  inline ``"quote" [doc-id]``), and audits them: a pipeline needs no glue code.

Both resolve a cited identifier the way :mod:`vcg_otel.documents` does (a Haystack
``Document.id`` is a content hash no model ever sees; answers cite ``meta`` ids, file names
and positions), fail closed (an empty quote, an unknown document, a broken judge are all
``inconsistent``), serialize with ``to_dict``/``from_dict`` (a pipeline YAML round trip keeps
them) and record the same spans and metrics as ``@audited_citations``: a ``citation_audit``
span, current-span-parented, so under Haystack's own component span when Haystack tracing or
the OpenInference Haystack instrumentor is on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from haystack import Document, component, default_from_dict, default_to_dict
from haystack.dataclasses import ChatMessage

from ..audit import AuditReport, AuditResult
from ..audit import Citation as AuditCitation
from ..documents import DocumentSet
from ..extract import Budget
from ._record import configure, documents_of, record_audit, validator_scope
from .answers import citations_in_text

__all__ = ["Citation", "CitationConsistencyChecker", "ReplyCitationChecker"]


@dataclass
class Citation:
    """A quote-style citation, and after a check its outcome.

    Attributes:
        claim, document_id, quote: as the answer gave them (``document_id`` may be any
            identifier the prompt showed: ``Document.id``, a ``meta`` id, a file name, a
            position).
        status: filled in by the checker: ``found`` (verbatim, no judge), ``not_found``,
            ``misattributed``, or with a judge ``supports``/``partial``/``unrelated``/
            ``contradicts``/``unjudged``; ``unverifiable`` when there was nothing to check.
        reason: why not found (``no_match``, ``empty_quote``, ``unknown_document``, ...) or why
            the judge failed closed.
        matched_document_id: the ``Document.id`` whose content holds the quote.
        start, end: the quote's offsets in that document's content.
        resolution: how ``document_id`` was resolved (``id``, ``path``, ``stem``, ...).
    """

    claim: str
    document_id: str | None
    quote: str | None
    status: str | None = None
    reason: str | None = None
    matched_document_id: str | None = None
    start: int | None = None
    end: int | None = None
    resolution: str | None = None


def _checked(c: AuditCitation, r: AuditResult) -> Citation:
    gate = r.gate
    reason = None
    if gate is not None and gate.reason is not None:
        reason = gate.reason.value
    elif r.fail_reason is not None:
        reason = r.fail_reason.value
    found_in = gate.document_id if gate is not None else None
    return Citation(
        claim=c.claim, document_id=c.document_id, quote=c.quote, status=r.outcome.value,
        reason=reason, matched_document_id=found_in,
        start=gate.start if gate is not None else None,
        end=gate.end if gate is not None else None,
        resolution=getattr(gate, "resolution", None),
    )


def _as_audit_citation(item: Any) -> AuditCitation:
    if isinstance(item, AuditCitation):
        return item
    if isinstance(item, dict):
        return AuditCitation.from_dict(item)
    doc = getattr(item, "document_id", None)
    return AuditCitation(getattr(item, "claim", "") or "", None if doc is None else str(doc),
                         getattr(item, "quote", None))


_PLAIN = (str, int, float, bool, type(None))


def _check_settings(component: str, settings: dict[str, Any]) -> None:
    """Settings serialize with the pipeline, so they must be plain values; ``sample_rate``
    cannot apply to a validator (its output is the audit)."""
    if "sample_rate" in settings:
        raise TypeError(f"{component}: a validator audits every run; sample_rate cannot apply")
    for key, value in settings.items():
        items = value if isinstance(value, (list, tuple)) else [value]
        if not all(isinstance(item, _PLAIN) for item in items):
            raise TypeError(f"{component}: settings[{key!r}] must be a plain value (str, "
                            f"number, bool, None or a list of those) to serialize with the "
                            f"pipeline, not {type(value).__name__}")


class _Checking:
    """What both components share: configuration, serialization, the audit and its routing."""

    def __init__(self, treat_misattributed_as_consistent: bool | None = None,
                 judge_model: str | None = None, judge_api_base: str | None = None,
                 judge_timeout: float = 30.0, position_base: int | None = None,
                 id_keys: list[str] | None = None,
                 settings: dict[str, Any] | None = None) -> None:
        self.treat_misattributed_as_consistent = treat_misattributed_as_consistent
        self.judge_model = judge_model
        self.judge_api_base = judge_api_base
        self.judge_timeout = judge_timeout
        self.position_base = position_base
        self.id_keys = list(id_keys or [])
        self.settings = dict(settings or {})
        judge = None
        if judge_model:
            from ..llm import LiteLLMJudge

            extra: dict[str, Any] = {"api_base": judge_api_base} if judge_api_base else {}
            judge = LiteLLMJudge(judge_model, timeout=judge_timeout, **extra)
        _check_settings(type(self).__name__, self.settings)
        # only what was given: the rest follows the VCG_OTEL_* variables, as everywhere
        named = {k: v for k, v in (("misattributed_is_consistent",
                                    treat_misattributed_as_consistent),
                                   ("position_base", position_base), ("id_keys", self.id_keys))
                 if v is not None and v != []}
        twice = sorted(set(named) & set(self.settings))
        if twice:
            raise TypeError(f"{type(self).__name__}: give {', '.join(twice)} as "
                            "arguments of their own, not in settings")
        self._auditor, self._telemetry = configure(judge, {**self.settings, **named},
                                                   config=None, telemetry=None,
                                                   where=f"{type(self).__name__}()")

    def to_dict(self) -> dict[str, Any]:
        """Serialize (the judge as its litellm model string; keys come from the environment)."""
        return default_to_dict(
            self, treat_misattributed_as_consistent=self.treat_misattributed_as_consistent,
            judge_model=self.judge_model, judge_api_base=self.judge_api_base,
            judge_timeout=self.judge_timeout, position_base=self.position_base,
            id_keys=self.id_keys, settings=self.settings)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Any:
        """Deserialize what :meth:`to_dict` wrote."""
        return default_from_dict(cls, data)

    def _documents(self, documents: list[Document] | None) -> DocumentSet:
        return documents_of(self._auditor, documents or [])

    def _check(self, citations: list[AuditCitation],
               documents: list[Document] | None) -> dict[str, list[Citation]]:
        return self._route(record_audit(self._auditor, self._telemetry, citations,
                                        self._documents(documents)))

    async def _acheck(self, citations: list[AuditCitation],
                      documents: list[Document] | None) -> dict[str, list[Citation]]:
        scope = validator_scope(self._auditor, self._telemetry)
        report = await scope.arun(citations, self._documents(documents), swallow=False)
        assert report is not None
        return self._route(report)

    @staticmethod
    def _route(report: AuditReport) -> dict[str, list[Citation]]:
        out: dict[str, list[Citation]] = {"consistent": [], "inconsistent": []}
        for r in report.results:
            side = "consistent" if report.is_consistent(r) else "inconsistent"
            out[side].append(_checked(r.citation, r))
        return out


@component
class CitationConsistencyChecker(_Checking):
    """Checks citations against the retrieved documents: verbatim gate, then optional judge.

    Args:
        treat_misattributed_as_consistent: route a real quote cited to the wrong document to
            ``consistent`` (default: ``VCG_OTEL_MISATTRIBUTED_IS_CONSISTENT``, else ``False``:
            citing the wrong source is an inconsistency).
        judge_model: a litellm model string (e.g. ``openai/gpt-4o-mini``) for the skeptical
            judge of quotes that exist; ``None`` (default) for the gate alone. Serialized as
            the string; API keys come from litellm's usual environment variables.
        judge_api_base, judge_timeout: passed to the judge.
        position_base: how numbers cite positions (``None``: 0- or 1-based, ``0``, ``1``).
        id_keys: extra ``meta`` keys that hold document identifiers.
        settings: any other field of :class:`~vcg_otel.config.AuditConfig` or
            :class:`~vcg_otel.config.TelemetryConfig` as plain values (serialized with the
            component), e.g. ``{"max_tokens": 20000, "capture_content": False}``.
    """

    @component.output_types(consistent=list[Citation], inconsistent=list[Citation])
    def run(self, citations: list[Citation],
            documents: list[Document]) -> dict[str, list[Citation]]:
        """Check each citation; a copy of each goes to ``consistent`` or ``inconsistent``."""
        return self._check([_as_audit_citation(c) for c in citations], documents)

    @component.output_types(consistent=list[Citation], inconsistent=list[Citation])
    async def run_async(self, citations: list[Citation],
                        documents: list[Document]) -> dict[str, list[Citation]]:
        """:meth:`run` for ``AsyncPipeline`` (the judge is awaited, not run on a thread)."""
        return await self._acheck([_as_audit_citation(c) for c in citations], documents)


def _reply_text(reply: Any) -> str:
    if isinstance(reply, ChatMessage):
        return reply.text or ""
    return reply if isinstance(reply, str) else ""


def _citations_of(replies: list[ChatMessage] | list[str]) -> list[AuditCitation]:
    budget = Budget()  # one extraction budget for all replies of a run
    return [c for reply in replies for c in citations_in_text(_reply_text(reply), budget)]


@component
class ReplyCitationChecker(_Checking):
    """Finds the citations in a generator's replies and checks them (same options as
    :class:`CitationConsistencyChecker`). ``replies`` pass through unchanged, so the component
    can sit between the generator and whatever reads its answer."""

    @component.output_types(consistent=list[Citation], inconsistent=list[Citation],
                            replies=list[ChatMessage] | list[str])
    def run(self, replies: list[ChatMessage] | list[str],
            documents: list[Document] | None = None) -> dict[str, Any]:
        """Extract the citations of every reply and check them against ``documents``."""
        out = self._check(_citations_of(replies), documents)
        return {**out, "replies": replies}

    @component.output_types(consistent=list[Citation], inconsistent=list[Citation],
                            replies=list[ChatMessage] | list[str])
    async def run_async(self, replies: list[ChatMessage] | list[str],
                        documents: list[Document] | None = None) -> dict[str, Any]:
        """:meth:`run` for ``AsyncPipeline``."""
        out = await self._acheck(_citations_of(replies), documents)
        return {**out, "replies": replies}
