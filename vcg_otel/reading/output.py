"""``read_output``: the one path from what an app returned (and its call's arguments) to the
citations and documents the audit checks. The decorator, the instrumentor, the framework
integrations and the CLI all read through it: one budget, one completeness rule.

The path, top to bottom:

1. **citations**: a ``citations=`` extractor's value (read generically), else the first format
   reader that recognises the result (:mod:`vcg_otel.reading.registry`), else the generic
   reader (:func:`vcg_otel.reading.generic.extract_citations`: citation lists, provider blocks it
   knows, inline quotes and markers), else the framework-answer reader
   (:func:`vcg_otel.reading.answers.answer_citations`: answers wrapped one level down,
   JSON answer text);
2. **documents** (a fresh budget that never re-reads an object found unreadable): the
   documents the recognised format carries (its response's or its request's, in the
   provider's order), the call's document arguments (``documents``, ``docs``, ``context``,
   ``sources``; those the format read itself excepted), the result (unless a format read
   it), then ``shared`` (documents every answer has: the CLI's ``--docs``); a
   ``documents=`` extractor replaces all of these;
3. **ids**: a citation whose provider id names no document takes the first of its other
   names that does (a title, a filename, a position); a source the response lists without
   its text (a web page) that the app does not hold is cited as no document — unverifiable,
   never a fabrication. The document set counts positions as the format does (Anthropic
   ``document_index`` 0-based, ``[docN]`` 1-based, ...) unless the app's config fixes a base.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from .._frozen import slot_builder
from ..citation import Citation
from ..documents import DocumentSet
from ..otel import semconv
from .answers import answer_citations
from .base import Found
from .generic import (
    DOCUMENT_ARGUMENTS,
    call_arguments,
    extract_citations,
    generic_answer_citations,
)
from .registry import recognised
from .walk import Budget, charged

__all__ = ["Completeness", "DocumentsIncomplete", "Reading", "read_output"]

Extractor = Callable[[Mapping[str, Any], Any], Any]
_NOTHING: frozenset[str] = frozenset()


class DocumentsIncomplete(Exception):
    """The documents could not all be read within the extraction budget (recorded as
    ``citation.audit.error``): auditing against part of them could call an honest quote
    ``not_found``, so the audit does not run. Every front end raises it the same way
    (:meth:`Reading.work`)."""


@dataclass(frozen=True, slots=True)
class Completeness:
    """Whether a reading saw everything.

    Attributes:
        citations_cut: the budget limit that cut the citations' walk (``nodes``,
            ``text_chars``, ``seconds``, ...) or ``None``: the citations found before the
            cut are kept, the rest were never read.
        documents_cut: the same for the documents (``unreadable`` when a read was refused):
            an audit against part of the documents could call an honest quote ``not_found``.
        format: the format reader that recognised the result (``None``: generic reading).
    """

    citations_cut: str | None = None
    documents_cut: str | None = None
    format: str | None = None

    @property
    def complete(self) -> bool:
        return self.citations_cut is None and self.documents_cut is None

    @property
    def limit(self) -> str | None:
        """The first limit hit, citations first (``None`` when complete)."""
        return self.citations_cut or self.documents_cut


# Completeness(...) at the cost of plain slot stores (one per reading of every audited call).
_completeness = slot_builder(Completeness)


class Reading(NamedTuple):
    """What :func:`read_output` returns (unpacks as ``citations, documents, completeness``)."""

    citations: list[Citation]
    documents: DocumentSet
    completeness: Completeness

    def work(self) -> tuple[list[Citation], DocumentSet] | None:
        """What to audit: ``None`` when nothing is cited; :class:`DocumentsIncomplete` when
        citations are there but the documents were not all read (the one completeness rule:
        fewer citations are fine, fewer documents are not) — unless the foreground deadline
        cut them: the audit then runs past the deadline, which makes every citation
        ``unverifiable`` (reason ``deadline``), never ``not_found``."""
        if not self.citations:
            return None
        cut = self.completeness.documents_cut
        if cut is not None and cut != semconv.REASON_DEADLINE:
            raise DocumentsIncomplete(cut)
        return self.citations, self.documents


def _citations(result: Any, arguments: Mapping[str, Any], budget: Budget,
               extractor: Extractor | None) -> tuple[list[Citation], Found | None]:
    if extractor is not None:
        return extract_citations(extractor(arguments, result), budget), None
    cited, found = charged(budget, _format_or_generic, result, arguments, budget)
    if found is None and not cited:
        cited = answer_citations(result, budget)
    return cited, found


def _format_or_generic(result: Any, arguments: Mapping[str, Any],
                       budget: Budget) -> tuple[list[Citation], Found | None]:
    """The citations of the first format that recognises ``result``, else the generic
    reader's (of its own answer shape, told by the registry: read without asking again);
    run with ``budget`` the running one (the generic reader then enters nothing)."""
    found, generic = recognised(result, arguments)
    if found is not None:
        return found.citations, found
    if generic is not None:
        return generic_answer_citations(generic, budget), None
    return extract_citations(result, budget), None


def _sources(result: Any, arguments: Mapping[str, Any], found: Found | None,
             extractor: Extractor | None, shared: Sequence[Any]) -> list[Any]:
    if extractor is not None:
        return [extractor(arguments, result), *shared]
    sources: list[Any] = []
    if found is not None and found.documents:
        sources.append(found.documents)
    consumed = found.consumed if found is not None else _NOTHING
    for n in DOCUMENT_ARGUMENTS:
        if n in arguments and n not in consumed:
            sources.append(arguments[n])
    if found is None or found.result_documents:
        sources.append(result)
    sources.extend(shared)
    return sources


def _names(citations: list[Citation], found: Found, documents: DocumentSet) -> list[Citation]:
    """Each citation under the first of its names that resolves (module docstring, step 3)."""
    out: list[Citation] = []
    for i, c in enumerate(citations):
        names = (c.document_id, *found.alternatives.get(i, ()))
        chosen = next((n for n in names if n is not None and documents.resolve(n)[0]), None)
        if chosen is None and c.document_id in found.textless:
            out.append(replace(c, document_id=None, quote=None, start=None, end=None))
        elif chosen is not None and chosen != c.document_id:
            out.append(replace(c, document_id=chosen))
        else:
            out.append(c)
    return out


def read_output(result: Any, args: Sequence[Any] = (), kwargs: Mapping[str, Any] | None = None,
                budget: Budget | None = None, *, signature: inspect.Signature | None = None,
                citations: Extractor | None = None, documents: Extractor | None = None,
                shared: Sequence[Any] = (), id_keys: Sequence[str] = (),
                position_base: int | None = None,
                arguments: Mapping[str, Any] | None = None) -> Reading:
    """The citations and documents of one call (module docstring), within ``budget``.

    Args:
        result: what the app (handler, framework, provider) returned, or a logged answer.
        args, kwargs: the call's arguments (bound to ``signature`` when given, so a
            positional ``documents`` argument and a default count too).
        budget: bounds the citations' walk (default: a fresh :class:`Budget`); the
            documents get :meth:`Budget.after` of it.
        citations, documents: the decorator's extractors, ``(arguments, result) -> value``.
        shared: documents every answer has (read last).
        id_keys, position_base: the auditor's config (how citations name documents).
        arguments: the call's arguments by name, already bound (by a caller that binds the
            same signature every call: :func:`~vcg_otel.reading.generic.call_binder`);
            ``args``, ``kwargs`` and ``signature`` are then not read.

    Raises whatever an extractor raises (the caller records it as the extractor's failure).
    """
    budget = budget if budget is not None else Budget()
    if arguments is None:
        arguments = call_arguments(signature, tuple(args), kwargs or {})
    cited, found = _citations(result, arguments, budget, citations)
    doc_budget = budget.after()
    sources = _sources(result, arguments, found, documents, shared)
    base = position_base if position_base is not None else (
        found.position_base if found is not None else None)
    docs = _document_set(sources, id_keys, base, doc_budget)
    if found is not None and cited:
        cited = _names(cited, found, docs)
    # not :attr:`Budget.complete`'s question again: a limit, else a refused read
    documents_cut = doc_budget.exhausted or ("unreadable" if doc_budget.refused else None)
    return Reading(cited, docs, _completeness(budget.exhausted, documents_cut,
                                              found.format if found is not None else None))


def _document_set(sources: list[Any], id_keys: Sequence[str], base: int | None,
                  budget: Budget) -> DocumentSet:
    """The documents of ``sources``; one shared set with nothing else to add (the CLI's
    ``--docs`` for a record with no documents of its own) is used as it is, not rebuilt."""
    present: list[Any] = []
    sets: list[DocumentSet] = []
    for s in sources:
        if s is not None:
            (sets if isinstance(s, DocumentSet) else present).append(s)
    own = DocumentSet.from_sources(*present, id_keys=id_keys, position_base=base, budget=budget)
    if not sets:
        return own
    if not len(own) and len(sets) == 1 and sets[0].position_base == base:
        return sets[0]
    return DocumentSet.from_sources(own, *sets, position_base=base)
