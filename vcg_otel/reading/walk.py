"""The bottom floor of reading: bounded reads of what an app returned, shared by every reader.

One :class:`Budget` bounds one call's reading (nodes, answer-text characters, seconds, the
call's deadline); :func:`charging` (:func:`charged` for one call) makes it the running one,
so that every attribute read (:func:`get`) of an app object is charged to it without passing
it through each reader; :func:`document_id` is the one rule of what a document id is;
:func:`doc_text` what a document's text is. Everything above (the format readers, the generic
reader :mod:`.generic`, the document model, the marker reader) reads app objects through
these and nothing else, and this module imports nothing of the input side.
"""

from __future__ import annotations

import functools
import re
import time
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from typing import Any, TypeVar

from .._deadline import Deadline
from ..otel import semconv

__all__ = [
    "MAX_ID_CHARS",
    "MAX_NODES",
    "MAX_SECONDS",
    "MAX_TEXT_CHARS",
    "SLOW_READ_SECONDS",
    "Budget",
    "charge",
    "charged",
    "charging",
    "current",
    "doc_text",
    "document_id",
    "field",
    "get",
    "integer",
    "is_list",
    "listed",
    "plain_text",
    "reader",
    "text_of",
    "within_budget",
]

#: The longest string accepted as a document id (a long URL fits; a document body does not).
MAX_ID_CHARS = 512
#: Default budget of one extraction: containers, items and attribute reads ...
MAX_NODES = 100_000
#: ... characters of answer text searched for inline quotes ...
MAX_TEXT_CHARS = 2_000_000
#: ... and wall-clock seconds (a result whose attributes are slow to read).
MAX_SECONDS = 1.0
#: One attribute read slower than this uses up the time budget at once: a result whose every
#: attribute takes 150 ms is read once, not seven times. High enough that a garbage-collection
#: pause or a descheduled thread during an ordinary read does not cut the documents short
#: (which fails the audit closed: measured pauses on a loaded 2-core machine reach tens of ms).
SLOW_READ_SECONDS = 0.1

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
# Values that have no attributes worth reading: a read of one is not made (nor charged).
_NO_ATTRIBUTES = (str, bytes, int, float, bool)
T = TypeVar("T")


class Budget:
    """How much work one extraction may do; shared by a call's citations and documents.

    Every container, list item and object visited costs a node; inline-quote search costs the
    characters it scans; a clock bounds results whose attribute reads are slow. When any runs
    out, :attr:`exhausted` names it (``"nodes"``, ``"text_chars"``, ``"seconds"``, or
    ``"deadline"``: the call's :class:`~vcg_otel._deadline.Deadline` passed) and the walk
    stops, keeping what it found.

    ``deadline``: the foreground call's deadline, shared by every walk of the call (and its
    gate and evidence work); checked by :meth:`take` and before every attribute read, on the
    deadline's clock.

    Slotted: every audited call makes two (citations, then documents), and slot stores
    cost a fraction of filling a new instance dict.
    """

    __slots__ = ("_clock", "_quiet_until", "call_deadline", "deadline", "exhausted", "nodes",
                 "refused", "text_chars", "unreadable")

    def __init__(self, nodes: int = MAX_NODES, text_chars: int = MAX_TEXT_CHARS,
                 seconds: float = MAX_SECONDS, deadline: Deadline | None = None) -> None:
        self.nodes = nodes
        self.text_chars = text_chars
        self.call_deadline = deadline
        self._clock = time.monotonic if deadline is None else deadline.clock
        self.deadline = self._clock() + seconds
        # before this moment neither the call's deadline nor this walk's seconds can have
        # passed: :meth:`take`'s usual look at the clock is one comparison with it
        self._quiet_until = (self.deadline if deadline is None
                             else min(self.deadline, deadline.at))
        self.exhausted: str | None = None
        self.unreadable: dict[int, Any] = {}  # objects one of whose reads was slow
        self.refused = 0  # attribute reads not made (budget gone, or an unreadable object)

    def after(self) -> Budget:
        """A fresh budget for the next walk of the same call (documents after citations) that
        still never reads an object this one found unreadable, within the same call
        deadline."""
        fresh = Budget(deadline=self.call_deadline)
        fresh.unreadable = self.unreadable
        return fresh

    @property
    def complete(self) -> bool:
        """Whether the walk saw everything it looked for (no limit hit, no read refused)."""
        return self.exhausted is None and self.refused == 0

    def expired(self) -> bool:
        """Whether the time is up (this walk's seconds, or the call's deadline); sets
        :attr:`exhausted` when it is."""
        if self.exhausted is not None:
            return True
        # one look serves both (the call's deadline is on this clock)
        self.exhausted = self._expired_at(self._clock())
        return self.exhausted is not None

    def _expired_at(self, now: float) -> str | None:
        """Why the time is up at ``now`` (the call's deadline first, then this walk's
        seconds), else ``None``; sets nothing."""
        call = self.call_deadline
        if call is not None and now >= call.at:
            return semconv.REASON_DEADLINE
        if now > self.deadline:
            return "seconds"
        return None

    def take(self, nodes: int = 1) -> bool:
        """Spend ``nodes``; ``False`` (and :attr:`exhausted` set) when the budget is gone."""
        if self.exhausted is not None:
            return False
        self.nodes -= nodes
        if self.nodes < 0:
            self.exhausted = "nodes"
            return False
        # :meth:`expired`'s usual answer first, from one look at the clock (the next look, by
        # :meth:`expired` itself, is taken only once the time may be up)
        if self._clock() < self._quiet_until:
            return True
        return not self.expired()

    def taken(self, n: int) -> int:
        """How many of ``n`` :meth:`take` calls in a row succeed, made as those calls would
        be (the same nodes spent, the same :attr:`exhausted`); for a list of items that
        charge nothing else, each a node. While the nodes last and the time cannot be up,
        the ``n`` looks at the clock, microseconds apart, are one look."""
        if self.exhausted is None and self.nodes >= n and self._clock() < self._quiet_until:
            self.nodes -= n
            return n
        for i in range(n):
            if not self.take():
                return i
        return n

    def text(self, length: int) -> int:
        """How many of ``length`` characters may be scanned (all of them are charged)."""
        if self.exhausted is not None:
            return 0
        allowed = min(length, max(self.text_chars, 0))
        self.text_chars -= length
        if allowed < length:
            self.exhausted = "text_chars"
        return allowed


#: The budget of the extraction running in this context: attribute reads of app objects are
#: charged to it without passing it through every reader.
_BUDGET: ContextVar[Budget | None] = ContextVar("vcg_otel_extract_budget", default=None)


class charging:
    """``with charging(budget):`` inside the block, attribute reads of app objects
    (:func:`get`) are charged to ``budget``: every walk over a call's results and arguments
    runs in one. A class rather than a ``@contextmanager`` generator: a call's reading enters
    several, and a generator-based one costs three times as much to enter and leave."""

    __slots__ = ("budget", "token")

    def __init__(self, budget: Budget) -> None:
        self.budget = budget

    def __enter__(self) -> None:
        self.token = _BUDGET.set(self.budget)

    def __exit__(self, *exc: object) -> None:
        _BUDGET.reset(self.token)


def charged(budget: Budget, read: Callable[..., T], *args: Any) -> T:
    """``read(*args)`` with ``budget`` the running one, as inside ``with charging(budget)``;
    nothing entered when it already is (a call's generic reader runs inside its format
    readers' charging of the same budget). One plain call where the hot paths would make
    three (:class:`charging`'s ``__init__``, ``__enter__`` and ``__exit__``)."""
    if _BUDGET.get() is budget:
        return read(*args)
    token = _BUDGET.set(budget)
    try:
        return read(*args)
    finally:
        _BUDGET.reset(token)


def get(obj: Any, key: str, default: Any = None) -> Any:
    """``obj[key]`` of a mapping, else ``obj.key``: ``default`` when it is not there or
    raises. Inside :func:`charging`, a read is refused once the budget is gone or ``obj`` was
    found slow (counted in :attr:`Budget.refused`), and a read slower than
    :data:`SLOW_READ_SECONDS` ends the walk's time."""
    if type(obj) is dict:
        return obj.get(key, default)
    if obj is None:  # what readers most often get back from a read and read again
        return default
    if isinstance(obj, Mapping):
        return obj.get(key, default)
    if isinstance(obj, _NO_ATTRIBUTES):
        return default
    budget = _BUDGET.get()
    if budget is None:
        try:
            return getattr(obj, key, default)
        except Exception:  # a property that raises is simply not there
            return default
    if budget.expired() or id(obj) in budget.unreadable:
        budget.refused += 1  # touch a hostile or slow result as little as possible
        return default
    started = time.perf_counter()
    try:
        return getattr(obj, key, default)
    except Exception:  # as above; a BaseException is the extraction's failure (the caller's
        return default  # decorator records it)
    finally:
        if time.perf_counter() - started > SLOW_READ_SECONDS:
            budget.unreadable[id(obj)] = obj
            budget.exhausted = "seconds"


def reader(obj: Any) -> Callable[[str], Any]:
    """``lambda key: get(obj, key)``, for reading several keys of one object: a plain dict's
    own bound ``.get`` (all that :func:`get` does for one), so a dict item's reads cost no
    call through :func:`get` each."""
    if type(obj) is dict:
        return obj.get
    return functools.partial(get, obj)


def document_id(value: Any) -> str | None:
    """``value`` as a document id, or ``None`` if it is not one: a ``str`` of 1 to
    :data:`MAX_ID_CHARS` characters with no control characters (no newlines), or an ``int``
    (written in decimal); never ``str()`` of anything else (a dict, a 10 kB body)."""
    if isinstance(value, str):
        # a str subclass cannot lie about its length or contents (an exact str is itself:
        # not asked through ``str.__str__``, a slot wrapper's call)
        text = value if type(value) is str else str.__str__(value)
        # an ASCII text has no control character exactly when it is printable: two C calls
        # answer for most ids, the pattern for the rest (a regex match costs more than both:
        # measured, ~1.7k instructions more per id)
        if 0 < len(text) <= MAX_ID_CHARS and ((text.isascii() and text.isprintable())
                                              or _CONTROL.search(text) is None):
            return text
        return None
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return str(int(value)) if value.bit_length() <= 64 else None
    return None


def within_budget() -> bool:
    """Whether the running extraction (if any) may go on: for long loops over one text
    (:mod:`vcg_otel.markers`) that charge no nodes, so that its time and the call's deadline
    are checked inside them too."""
    budget = _BUDGET.get()
    return budget is None or not budget.expired()


def charge(nodes: int) -> bool:
    """Charge ``nodes`` to the running extraction's budget (``True``: there is none)."""
    budget = _BUDGET.get()
    return budget is None or budget.take(nodes)


def doc_text(item: Any) -> str | None:
    """A document's text: its ``text``, ``content`` or ``page_content`` string, else what its
    ``get_content()`` returns (LlamaIndex nodes); ``None`` when it has none."""
    for key in ("text", "content", "page_content"):
        value = get(item, key)
        if isinstance(value, str):
            return value
    getter = get(item, "get_content")
    if callable(getter):
        try:
            value = getter()
        except Exception:
            return None
        return value if isinstance(value, str) else None
    return None


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
    budget = _BUDGET.get()
    if budget is None or not value:
        return value
    if budget.exhausted is not None:
        return value[:0]
    n = len(value)
    # cut at what was left before the charge (take spent the n nodes it refused, if any)
    return value if budget.take(n) else value[:max(budget.nodes + n, 0)]


def text_of(value: Any) -> str | None:
    """``value`` when it is a ``str`` (never ``str()`` of something else)."""
    return value if isinstance(value, str) else None


def plain_text(value: Any) -> str | None:
    """``value`` as a plain ``str`` when it is a ``str`` (a subclass's plain copy, as
    :class:`~vcg_otel.citation.Citation` makes it), else ``None``."""
    if type(value) is str:
        return value
    return str.__str__(value) if isinstance(value, str) else None


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
