"""The plumbing of the citation stages: text sinks chained into a pipeline.

Each citation stage (sections, citation tags) is a :class:`TextSink`: it receives text
with :meth:`~TextSink.write`, in pieces of any size, keeps whatever it cannot decide
yet (a possible marker prefix), and passes the rest on to the next sink.
:meth:`~TextSink.end` says that no more text will come.

Every sink is chunking-invariant: writing ``"ab"`` then ``"c"`` has the same effect as
writing ``"abc"``. Batch parsing is therefore just streaming with one chunk, and the
two cannot disagree. Every sink also does O(1) amortised work per character.
"""

from __future__ import annotations

from typing import Any, Protocol

__all__ = [
    "CONTENT",
    "NOTHING",
    "WHITESPACE",
    "Channel",
    "ChannelSink",
    "Outbox",
    "ScanningSink",
    "TextSink",
]

#: The whitespace characters the parsers strip around markers (ASCII, as JSON's).
WHITESPACE = " \t\n\r\f\v"

#: Output channel names.
Channel = str
CONTENT = "content"


class TextSink(Protocol):
    """Something that consumes text incrementally."""

    def write(self, text: str) -> None:
        """Consume the next piece of text."""

    def end(self) -> None:
        """No more text will come: flush anything held back."""


class ScanningSink:
    """Base of the sinks that scan text for markers and hold back an undecided tail.

    :meth:`write` rescans the held-back tail (``_pending``, always short) together with
    the new text; :meth:`_flush` does a final scan when no more text will come.
    Subclasses implement :meth:`_scan` and :meth:`end`, and may say (:meth:`_holds`)
    which texts a scan would hold back whole, so that a marker arriving in small chunks
    is not rescanned for each of them.
    """

    _pending: str = ""

    def write(self, text: str) -> None:
        if text:
            pending = self._pending
            if pending:
                buffer = pending + text
                if buffer in self._holds():
                    self._pending = buffer  # still a marker's beginning: what _scan does
                    return
            else:
                buffer = text
            self._pending = ""
            self._scan(buffer, final=False)

    def _holds(self) -> frozenset[str]:
        """Texts a scan would now keep whole in ``_pending`` (none by default).

        Each must be a proper prefix of a marker searched now that holds no marker, and
        the scan must have nothing else to decide first (see :func:`marker_prefixes`).
        """
        return NOTHING

    def _flush(self) -> None:
        buffer, self._pending = self._pending, ""
        if buffer:
            self._scan(buffer, final=True)

    def _scan(self, buffer: str, final: bool) -> None:
        """Consume ``buffer``, keeping in ``_pending`` what is undecided (unless ``final``)."""
        raise NotImplementedError


#: No text (the default of :meth:`ScanningSink._holds`).
NOTHING: frozenset[str] = frozenset()


class Outbox:
    """What a pipeline produced so far, in order, plus the notes it made.

    ``pieces`` holds ``(channel, text)`` items. ``notes`` lists what the parser could
    not interpret, each text once.
    """

    __slots__ = ("_noted", "notes", "pieces")

    def __init__(self) -> None:
        self.pieces: list[tuple[Channel, Any]] = []
        self.notes: list[str] = []
        self._noted: set[str] = set()

    def note(self, text: str) -> None:
        """Record ``text`` in ``notes`` (once)."""
        if text not in self._noted:
            self._noted.add(text)
            self.notes.append(text)


class ChannelSink:
    """The end of a pipeline: text written here is output on one channel."""

    __slots__ = ("channel", "chunks", "outbox")

    def __init__(self, outbox: Outbox, channel: Channel) -> None:
        self.outbox = outbox
        self.channel = channel
        self.chunks: list[str] = []

    def write(self, text: str) -> None:
        if text:
            self.chunks.append(text)
            self.outbox.pieces.append((self.channel, text))

    def end(self) -> None:
        pass

    def text(self) -> str:
        return "".join(self.chunks)
