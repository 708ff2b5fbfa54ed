"""The two checker components: the citation audit as a Haystack pipeline step.

* :class:`CitationConsistencyChecker`: the original verbatim-citation-gate component's call.
  ``run(citations=[Citation(claim=..., document_id=..., quote=...)], documents=[Document(...)])``
  returns ``{"consistent": [...], "inconsistent": [...]}``: every citation in comes out on one
  side, a copy with its ``status`` (and evidence) filled in.
* :class:`ReplyCitationChecker`: takes a generator's ``replies`` and the retrieved
  ``documents``, finds the citations in the replies itself (a JSON ``citations`` list, or
  inline ``"quote" [doc-id]``), and audits them: a pipeline needs no glue code.

Both resolve a cited identifier the way :mod:`vcg_otel.documents` does (a Haystack
``Document.id`` is a content hash no model ever sees; answers cite ``meta`` ids, file names
and positions), fail closed (an empty quote, an unknown document, a broken judge, a field of
the wrong type, a citation past ``max_citations`` are all ``inconsistent``), serialize with
``to_dict``/``from_dict`` and record the same spans and metrics as ``@audited_citations``: a
``citation_audit`` span, current-span-parented, so under Haystack's own component span when
Haystack tracing or the OpenInference Haystack instrumentor is on.

They live in the ``haystack_integrations`` namespace, as Haystack integrations do: Haystack
loads pipeline files naming them with no ``allowed_modules``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from haystack import Document, component, default_from_dict, default_to_dict
from haystack.core.serialization import generate_qualified_class_name
from haystack.dataclasses import ChatMessage

from vcg_otel.audit import AuditReport
from vcg_otel.audit import Citation as AuditCitation
from vcg_otel.documents import DocumentSet
from vcg_otel.reading.answers import citations_in_text
from vcg_otel.reading.walk import Budget
from vcg_otel.scope import AuditScope, configure, documents_of

from .citation import REASON_MAX_CITATIONS, Citation, audit_citation, checked, unchecked
from .options import Options

__all__ = ["LEGACY_MODULE", "CitationConsistencyChecker", "ReplyCitationChecker"]

#: Where vcg-otel 0.1 defined the components: pipeline files saved then name it.
LEGACY_MODULE = "vcg_otel.integrations.haystack"

Outputs = dict[str, list[Citation]]


class _Checking:
    """What both components share: configuration, serialization, the audit and its routing."""

    def __init__(self, treat_misattributed_as_consistent: bool = False,
                 judge_model: str | None = None, judge_api_base: str | None = None,
                 judge_timeout: float = 30.0, position_base: int | None = None,
                 id_keys: list[str] | None = None,
                 settings: dict[str, Any] | None = None) -> None:
        name = type(self).__name__
        options = Options.check(
            name, treat_misattributed_as_consistent=treat_misattributed_as_consistent,
            judge_model=judge_model, judge_api_base=judge_api_base,
            judge_timeout=judge_timeout, position_base=position_base, id_keys=id_keys,
            settings=settings)
        self.treat_misattributed_as_consistent = options.treat_misattributed_as_consistent
        self.judge_model = options.judge_model
        self.judge_api_base = options.judge_api_base
        self.judge_timeout = options.judge_timeout
        self.position_base = options.position_base
        self.id_keys = options.id_keys
        self.settings = options.settings
        # only what was given, and always the misattribution rule: the rest follows the
        # VCG_OTEL_* variables, as everywhere
        named: dict[str, Any] = {"misattributed_is_consistent":
                                 self.treat_misattributed_as_consistent}
        if self.position_base is not None:
            named["position_base"] = self.position_base
        if self.id_keys:
            named["id_keys"] = self.id_keys
        twice = sorted(set(named) & set(self.settings))
        if twice:
            raise TypeError(f"{name}: give {', '.join(twice)} as arguments of their own, "
                            "not in settings")
        judge = None
        if self.judge_model:
            from vcg_otel.llm import LiteLLMJudge

            extra: dict[str, Any] = {"api_base": self.judge_api_base} if self.judge_api_base \
                else {}
            judge = LiteLLMJudge(self.judge_model, timeout=self.judge_timeout, **extra)
        self._auditor, self._telemetry = configure(judge, {**self.settings, **named},
                                                   config=None, telemetry=None,
                                                   where=f"{name}()")

    def to_dict(self) -> dict[str, Any]:
        """Serialize (the judge as its litellm model string; keys come from the environment)."""
        return default_to_dict(
            self, treat_misattributed_as_consistent=self.treat_misattributed_as_consistent,
            judge_model=self.judge_model, judge_api_base=self.judge_api_base,
            judge_timeout=self.judge_timeout, position_base=self.position_base,
            id_keys=self.id_keys, settings=self.settings)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Any:
        """Deserialize what :meth:`to_dict` wrote (also under the 0.1 type name)."""
        if data.get("type") == f"{LEGACY_MODULE}.{cls.__name__}":
            data = {**data, "type": generate_qualified_class_name(cls)}
        return default_from_dict(cls, data)

    def _documents(self, documents: list[Document] | None) -> tuple[DocumentSet, dict[str, str]]:
        """The documents as the audit reads them, and each chunk key's ``Document.id``."""
        given = list(documents or [])
        docs = documents_of(self._auditor, given)
        ids: dict[str, str] = {}
        for chunk in docs.chunks:
            position = chunk.position
            if position is not None and 0 <= position < len(given):
                real = getattr(given[position], "id", None)
                if isinstance(real, str):
                    ids[chunk.key] = real
        return docs, ids

    def _scope(self) -> AuditScope:
        """The audit's span. A validator's output *is* the audit: it audits even when
        telemetry cannot start its span, and ignores call sampling."""
        scope = AuditScope.start(self._auditor, self._telemetry, required=True)
        assert scope is not None  # required: never None
        return scope

    def _check(self, items: Sequence[Any], documents: list[Document] | None) -> Outputs:
        citations = [audit_citation(item) for item in items]
        docs, ids = self._documents(documents)
        valid = [c for c in citations if isinstance(c, AuditCitation)]
        report = self._scope().run(valid, docs, swallow=False)
        assert report is not None  # swallow=False: a failed audit raises (recorded)
        return self._route(items, citations, report, ids)

    async def _acheck(self, items: Sequence[Any], documents: list[Document] | None) -> Outputs:
        citations = [audit_citation(item) for item in items]
        docs, ids = self._documents(documents)
        valid = [c for c in citations if isinstance(c, AuditCitation)]
        report = await self._scope().arun(valid, docs, swallow=False)
        assert report is not None
        return self._route(items, citations, report, ids)

    @staticmethod
    def _route(items: Sequence[Any], citations: list[AuditCitation | str],
               report: AuditReport, ids: dict[str, str]) -> Outputs:
        """Every input on one side, in input order: checked ones by the report's rule; those
        that could not be read, or that came past ``max_citations``, ``inconsistent``."""
        out: Outputs = {"consistent": [], "inconsistent": []}
        results = {r.index: r for r in report.results}
        audited = 0  # the index the audit gave each valid citation
        for item, citation in zip(items, citations, strict=True):
            if isinstance(citation, str):
                out["inconsistent"].append(unchecked(item, citation))
                continue
            r = results.get(audited)
            audited += 1
            if r is None:  # past the auditor's max_citations: not audited (report.skipped)
                out["inconsistent"].append(unchecked(item, REASON_MAX_CITATIONS))
                continue
            side = "consistent" if report.is_consistent(r) else "inconsistent"
            out[side].append(checked(r.citation, r, ids))
        return out


@component
class CitationConsistencyChecker(_Checking):
    """Checks citations against the retrieved documents: verbatim gate, then optional judge.

    Args:
        treat_misattributed_as_consistent: route a real quote cited to the wrong document to
            ``consistent`` (default ``False``: citing the wrong source is an inconsistency).
            Always saved as a boolean: a loaded pipeline behaves the same in every
            environment (``VCG_OTEL_MISATTRIBUTED_IS_CONSISTENT`` does not apply here).
        judge_model: a litellm model string (e.g. ``openai/gpt-4o-mini``) for the skeptical
            judge of quotes that exist; ``None`` (default) for the gate alone. Serialized as
            the string; API keys come from litellm's usual environment variables.
        judge_api_base, judge_timeout: passed to the judge (``judge_timeout``: seconds > 0).
        position_base: how numbers cite positions (``None``: 0- or 1-based, ``0``, ``1``).
        id_keys: extra ``meta`` keys that hold document identifiers (a list of names).
        settings: any other field of :class:`~vcg_otel.config.AuditConfig` or
            :class:`~vcg_otel.config.TelemetryConfig` as plain values (serialized with the
            component), e.g. ``{"max_tokens": 20000, "capture_content": False}``; not the
            providers (objects: the component records to the global ones) and not
            ``sample_rate``.

    Raises:
        TypeError, ValueError: at construction, for a parameter of the wrong type or range.
    """

    @component.output_types(consistent=list[Citation], inconsistent=list[Citation])
    def run(self, citations: list[Citation], documents: list[Document]) -> Outputs:
        """Check each citation; a copy of each goes to ``consistent`` or ``inconsistent``."""
        return self._check(citations, documents)

    @component.output_types(consistent=list[Citation], inconsistent=list[Citation])
    async def run_async(self, citations: list[Citation], documents: list[Document]) -> Outputs:
        """:meth:`run` for ``AsyncPipeline`` (the judge is awaited, not run on a thread)."""
        return await self._acheck(citations, documents)


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
