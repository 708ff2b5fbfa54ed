"""What a decorated stream keeps for its audit: at most what extraction can read.

A decorated generator (or async generator) is audited when it ends, on what it produced. It
used to keep every chunk: 200,000 chunks of 1 kB held ~200 MB until the end, and an endless
stream grew without bound. The extraction that reads the stream afterwards stops anyway at
its budget (:class:`vcg_otel.reading.walk.Budget`): :data:`~vcg_otel.reading.walk.MAX_TEXT_CHARS`
characters of answer text, :data:`~vcg_otel.reading.walk.MAX_NODES` items. :class:`StreamKept`
keeps exactly that much, counts the chunks it did not keep, and names the limit, so the audit
span says the stream was cut (``citation.audit.extract_limit``,
``citation.audit.stream.dropped``). The host's stream itself is never touched: every chunk
passes through whether it is kept or not.

Text chunks (a token stream) are joined as they come, a block of :data:`_JOIN_EVERY` at a
time: a million one-character chunks cost one string of their text, not a million objects.
"""

from __future__ import annotations

from typing import Any

from .reading.walk import MAX_NODES, MAX_TEXT_CHARS

__all__ = ["StreamKept"]

#: Text chunks joined into one string at a time (bounded per-chunk object overhead).
_JOIN_EVERY = 1024


class StreamKept:
    """The prefix of one stream that its audit reads.

    Attributes:
        limit: ``None`` while everything is kept; then ``"text_chars"`` or ``"nodes"``, the
            extraction limit the stream went past.
        dropped: chunks not kept (a chunk cut in the middle counts as dropped).
    """

    __slots__ = ("_chars", "_items", "_loose", "_text_only", "dropped", "limit", "nodes")

    def __init__(self, nodes: int = MAX_NODES, text_chars: int = MAX_TEXT_CHARS) -> None:
        self.nodes = nodes
        self._chars = text_chars  # characters of text still to keep
        self._items: list[Any] = []  # kept chunks (text joined in blocks while text only)
        self._loose: list[str] = []  # text chunks not yet joined into a block
        self._text_only = True
        self.limit: str | None = None
        self.dropped = 0

    def add(self, chunk: Any) -> None:
        """Keep ``chunk`` if the audit can still read it; count it dropped otherwise."""
        if self.limit is not None:
            self.dropped += 1
            return
        if isinstance(chunk, str):
            if len(chunk) > self._chars:  # the text budget ends inside this chunk
                chunk = chunk[:self._chars]
                self.limit = "text_chars"
                self.dropped += 1
                if not chunk:
                    return
            self._chars -= len(chunk)
        elif self._text_only:
            self._flush()
            self._text_only = False
        if self._text_only:  # one string in the end: one node, however many chunks
            self._loose.append(chunk)
            if len(self._loose) >= _JOIN_EVERY:
                self._flush()
        elif len(self._items) >= self.nodes:  # each item costs extraction a node at least
            self.limit = self.limit or "nodes"
            self.dropped += self.limit == "nodes"
        else:
            self._items.append(chunk)

    def _flush(self) -> None:
        if self._loose:
            self._items.append("".join(self._loose))
            self._loose.clear()

    def value(self) -> Any:
        """What the audit reads: the text when every chunk was text, else the chunks."""
        self._flush()
        if self._text_only and self._items:
            return "".join(self._items)
        return list(self._items)
