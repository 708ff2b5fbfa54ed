"""What the gate answers: a verdict that is also a plain string, and the evidence behind it."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from .._enum import StrEnum
from .._frozen import slot_builder

__all__ = ["NO_DIAGNOSIS", "ClosestPassage", "Diagnosis", "GateMatch", "GateResult",
           "LazyDiagnosis", "NotFoundReason", "RejectionKind"]


class GateResult(StrEnum):
    """Stage-1 outcome. Compares equal to its value: ``GateResult.FOUND == "found"``."""

    FOUND = "found"
    NOT_FOUND = "not_found"
    MISATTRIBUTED = "misattributed"


# Read off its class a member costs an enum metaclass' attribute look-up (about 0.15 µs, ten
# times a global's): :attr:`GateMatch.found`, asked of every match, reads it from here, and
# :meth:`GateMatch.rejected` the verdict it gives.
_FOUND = GateResult.FOUND
_NOT_FOUND = GateResult.NOT_FOUND


class NotFoundReason(StrEnum):
    """Why a citation failed closed in stage 1 (recorded, never collapsed into another)."""

    NO_MATCH = "no_match"
    EMPTY_QUOTE = "empty_quote"
    QUOTE_TOO_LONG = "quote_too_long"
    UNKNOWN_DOCUMENT = "unknown_document"
    OUT_OF_RANGE = "out_of_range"
    EMPTY_SPAN = "empty_span"
    OUTSIDE_CHUNK = "outside_chunk"
    QUOTE_NOT_IN_SPAN = "quote_not_in_span"
    #: The search budget ran out first: not shown absent, so not a fabrication (see
    #: :func:`~vcg_otel.gate.quote_gate`).
    SEARCH_LIMIT = "search_limit"


_NO_MATCH = NotFoundReason.NO_MATCH  # read once (see _FOUND)


class RejectionKind(StrEnum):
    """How a rejected quote relates to the documents."""

    #: a passage matches all but a few words: a misquote
    ALTERED = "altered"
    #: nothing close in any document
    INVENTED = "invented"


@dataclass(frozen=True, slots=True)
class ClosestPassage:
    """The passage of the documents closest to a rejected quote.

    Attributes:
        document_id: where it is.
        start, end: half-open offsets in that document's original text.
        score: ``2 * matched words / (quote words + passage words)``, 0 to 1.
        removed: words of the passage the quote left out.
        added: words of the quote the passage does not have.
        replaced: ``(passage words, quote words)`` for each place the quote changed words.
    """

    document_id: str
    start: int
    end: int
    score: float
    removed: tuple[str, ...] = ()
    added: tuple[str, ...] = ()
    replaced: tuple[tuple[str, str], ...] = ()

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready view."""
        return {"document_id": self.document_id, "start": self.start, "end": self.end,
                "score": self.score, "removed": list(self.removed), "added": list(self.added),
                "replaced": [list(r) for r in self.replaced]}


#: ``(rejection, closest)`` of a rejected quote.
Diagnosis = tuple[RejectionKind | None, ClosestPassage | None]


class LazyDiagnosis:
    """How a rejected quote differs from the documents, worked out on first use.

    The verdict never depends on it, and most callers only want the verdict: the search for
    the closest passage (:mod:`vcg_otel.gate.closest`) costs more than the gate's own search,
    so it runs when :attr:`GateMatch.rejection` or :attr:`GateMatch.closest` is first read
    (telemetry reads them at once), once, and the same every time (its allowance of steps is
    fixed when the quote is rejected). Thread-safe: two threads reading at once compute it
    once.
    """

    __slots__ = ("_compute", "_lock", "_value")

    def __init__(self, compute: Callable[[], Diagnosis]) -> None:
        self._compute: Callable[[], Diagnosis] | None = compute
        self._value: Diagnosis = (None, None)
        self._lock = threading.Lock()

    @classmethod
    def known(cls, rejection: RejectionKind | None,
              closest: ClosestPassage | None) -> LazyDiagnosis:
        """A diagnosis already worked out."""
        done = cls.__new__(cls)
        done._compute = None
        done._value = (rejection, closest)
        done._lock = threading.Lock()
        return done

    @property
    def value(self) -> Diagnosis:
        """``(rejection, closest)``, computed now if it was not yet."""
        if self._compute is not None:
            with self._lock:
                compute = self._compute
                if compute is not None:
                    self._value = compute()
                    self._compute = None  # drops what it held: the corpus, the quote
        return self._value


#: The diagnosis of every match that has none (a passage found): one shared instance.
NO_DIAGNOSIS = LazyDiagnosis.known(None, None)


@dataclass(frozen=True, slots=True, eq=False)
class GateMatch:
    """The gate's answer with its evidence. Compares equal to the plain result string.

    Attributes:
        result: ``found``, ``not_found`` or ``misattributed``.
        cited_document_id: the document the citation named.
        document_id: where the passage was found (the cited document when ``found``, the first
            real source when ``misattributed``, ``None`` when ``not_found``).
        start, end: half-open character offsets of the passage in that document's *original*
            text; for an elided quote they span everything that was left out as well.
        text: the original passage, ``original[start:end]``.
        elided: the quote was matched in pieces around ellipses or brackets.
        pieces: original offsets of each matched piece.
        source_document_ids: every document the passage occurs in (for ``misattributed``, where
            the quote really comes from).
        reason: for ``not_found``, why.
        forgiven: the transcription slips forgiven to find the passage, sorted kinds:
            ``punctuation`` (a comma, semicolon, colon or dash between words dropped, added or
            exchanged), ``hyphen`` (a compound's hyphen written as a space or dropped, or
            added), ``thousands_separator`` (``1,204`` quoted ``1204``); empty when the quote
            matched as written (see :mod:`vcg_otel.gate.slips`).
        diagnosis: how a rejected quote differs from the documents, read through
            :attr:`rejection` and :attr:`closest` (worked out when first read: see
            :class:`LazyDiagnosis`).
    """

    result: GateResult
    cited_document_id: str | None = None
    document_id: str | None = None
    start: int | None = None
    end: int | None = None
    text: str | None = None
    elided: bool = False
    pieces: tuple[tuple[int, int], ...] = ()
    source_document_ids: tuple[str, ...] = ()
    reason: NotFoundReason | None = None
    forgiven: tuple[str, ...] = ()
    diagnosis: LazyDiagnosis = field(default=NO_DIAGNOSIS, repr=False)

    @classmethod
    def located(cls, result: GateResult, cited_document_id: str | None, document_id: str,
                start: int, end: int, text: str, elided: bool,
                pieces: tuple[tuple[int, int], ...], source_document_ids: tuple[str, ...],
                forgiven: tuple[str, ...] = ()) -> GateMatch:
        """A passage found (``found`` or ``misattributed``, no reason, no diagnosis): what the
        constructor builds from the same fields, in half the time (:mod:`vcg_otel._frozen`):
        on the common found quote (:mod:`vcg_otel.gate.fast`) nothing else costs as much."""
        return _build_match(result, cited_document_id, document_id, start, end, text,
                            elided, pieces, source_document_ids, None, forgiven, NO_DIAGNOSIS)

    @classmethod
    def rejected(cls, cited_document_id: str, diagnosis: LazyDiagnosis) -> GateMatch:
        """A quote shown absent from its cited document and every other (``not_found`` /
        ``no_match``), with how it differs from the documents: what the constructor builds
        from the same fields, at half the cost (every rejected quote is answered so)."""
        return _build_match(_NOT_FOUND, cited_document_id, None, None, None, None, False, (),
                            (), _NO_MATCH, (), diagnosis)

    @property
    def rejection(self) -> RejectionKind | None:
        """For a quote shown absent (``not_found`` / ``no_match``), ``altered`` (a passage
        matches all but a few words: a misquote) or ``invented`` (nothing close in any
        document); ``None`` otherwise, or when the search for a close passage was cut short
        before either was shown (see :mod:`vcg_otel.gate.closest`)."""
        return self.diagnosis.value[0]

    @property
    def closest(self) -> ClosestPassage | None:
        """The closest passage found for a rejected quote, its score and word diffs."""
        return self.diagnosis.value[1]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):  # GateResult is a str too
            return self.result.value == other
        if isinstance(other, GateMatch):
            return (self.result, self.document_id, self.start, self.end, self.elided,
                    self.pieces, self.source_document_ids, self.reason, self.forgiven,
                    self.rejection) == (
                other.result, other.document_id, other.start, other.end, other.elided,
                other.pieces, other.source_document_ids, other.reason, other.forgiven,
                other.rejection)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.result.value)

    def __str__(self) -> str:
        return self.result.value

    @property
    def found(self) -> bool:
        """The quote occurs verbatim in the document it cites."""
        return self.result is _FOUND

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready view (enums as strings, pieces as lists)."""
        return {
            "result": self.result.value,
            "cited_document_id": self.cited_document_id,
            "document_id": self.document_id,
            "start": self.start,
            "end": self.end,
            "text": self.text,
            "elided": self.elided,
            "pieces": [list(p) for p in self.pieces],
            "source_document_ids": list(self.source_document_ids),
            "reason": None if self.reason is None else self.reason.value,
            "forgiven": list(self.forgiven),
            "rejection": None if self.rejection is None else self.rejection.value,
            "closest": None if self.closest is None else self.closest.to_dict(),
        }


_build_match = slot_builder(GateMatch)
