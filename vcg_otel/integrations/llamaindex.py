"""LlamaIndex: an audited query engine (extra: ``llamaindex``).

``AuditedQueryEngine(index.as_query_engine(...))`` is a query engine like any other (``query``,
``aquery``, streaming engines, usable as a ``QueryEngineTool``): it returns exactly what the
engine it wraps returns and audits the answer: citations from ``Response.response`` (inline
``"quote" [source]`` or a JSON answer; a ``PydanticResponse``'s structured answer), documents
from ``source_nodes`` (each node under its ``node_id``, its file's ``ref_doc_id``, its
``metadata`` ``file_name``/``file_path`` and their stems, and its position: see
:mod:`vcg_otel.documents`).

Telemetry: one trace. The ``citation_audit`` span starts when the query does and is current
while the wrapped engine runs (so spans of code that follows the OpenTelemetry context nest
under it, as under ``@audited_citations``). The OpenInference LlamaIndex instrumentor parents
LlamaIndex's spans by LlamaIndex's own span tree instead: retrieval, synthesis, the LLM call and
our ``citation_audit`` all hang under ``AuditedQueryEngine._query``, in the same trace. A
streaming response is audited when its stream ends (or is closed): the span stays open until
then; the tokens reach the caller unchanged.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Callable, Generator, Iterator
from typing import TYPE_CHECKING, Any

from llama_index.core.base.base_query_engine import BaseQueryEngine
from llama_index.core.base.response.schema import (
    RESPONSE_TYPE,
    AsyncStreamingResponse,
    StreamingResponse,
)
from llama_index.core.schema import QueryBundle

from ..audit import AuditReport
from ..config import AuditConfig, TelemetryConfig
from ..judge.runner import LLMCall
from ._record import AuditScope, OutputAuditor, configure

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ..config import Settings

__all__ = ["AuditedQueryEngine"]


class AuditedQueryEngine(BaseQueryEngine):
    """Wraps a query engine; every answer it gives is audited.

    Args:
        engine: the query engine to audit (e.g. ``index.as_query_engine(llm=...)``).
        judge: an ``llm_call(system, user)`` for the skeptical judge; ``None``: gate only.
        position_base (a setting): how numbers cite positions: ``None`` (0- or 1-based),
            ``0`` or ``1`` (``CitationQueryEngine`` numbers its sources from 1).
        id_keys (a setting): extra ``metadata`` keys that hold document identifiers.
        on_report: called with each :class:`~vcg_otel.audit.AuditReport`.
        config, telemetry, **settings: the audit and telemetry settings, as for
            ``@audited_citations`` (``timeout=5``, ``capture_content=False``,
            ``tracer_provider=...``); a setting given twice raises.
    """

    def __init__(self, engine: BaseQueryEngine, judge: LLMCall | None = None, *,
                 on_report: Callable[[AuditReport], None] | None = None,
                 config: AuditConfig | None = None, telemetry: TelemetryConfig | None = None,
                 **settings: Unpack[Settings]) -> None:
        super().__init__(callback_manager=engine.callback_manager)
        self.engine = engine
        auditor, tele = configure(judge, settings, config=config, telemetry=telemetry,
                                  where="AuditedQueryEngine()")
        self._audits = OutputAuditor(auditor, tele, on_report=on_report)

    def _get_prompt_modules(self) -> dict[str, Any]:
        return {"engine": self.engine}

    # -- streams -------------------------------------------------------------------------------

    def _stream(self, scope: AuditScope, response: StreamingResponse,
                tokens: Iterator[str]) -> Generator[str, None, None]:
        parts: list[str] = []
        try:
            for token in tokens:
                parts.append(token)
                yield token
        finally:
            self._audits.audit(scope, response, "".join(parts))

    async def _astream(self, scope: AuditScope, response: AsyncStreamingResponse,
                       tokens: AsyncIterator[str]) -> AsyncGenerator[str, None]:
        parts: list[str] = []
        try:
            async for token in tokens:
                parts.append(token)
                yield token
        finally:
            await self._audits.aaudit(scope, response, "".join(parts))

    # -- the engine ----------------------------------------------------------------------------

    def _query(self, query_bundle: QueryBundle) -> RESPONSE_TYPE:
        scope = self._audits.scope()
        if scope is None:  # not audited (sampled out)
            return self.engine.query(query_bundle)
        with scope.running():
            response = self.engine.query(query_bundle)
        if isinstance(response, StreamingResponse):  # audited when the stream ends
            response.response_gen = self._stream(scope, response, response.response_gen)
        else:
            self._audits.audit(scope, response)
        return response

    async def _aquery(self, query_bundle: QueryBundle) -> RESPONSE_TYPE:
        scope = self._audits.scope()
        if scope is None:  # not audited (sampled out)
            return await self.engine.aquery(query_bundle)
        with scope.running():
            response = await self.engine.aquery(query_bundle)
        if isinstance(response, AsyncStreamingResponse):
            response.response_gen = self._astream(scope, response, response.response_gen)
        elif isinstance(response, StreamingResponse):
            response.response_gen = self._stream(scope, response, response.response_gen)
        else:
            await self._audits.aaudit(scope, response)
        return response
