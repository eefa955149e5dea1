"""Removing inline citation tags from the answer while remembering where they were.

Granite 3.2 marks a cited sentence with ``<co>N</co>``; Granite 3.3 with
``<|start_of_cite|>{"document_id": "ID"}<|end_of_cite|>`` (possibly wrapping the cited
text). The release supplies a :class:`TagGrammar`; :class:`CitationTagRemover` does
the rest, incrementally:

* each tag is cut out of the text and recorded as a :class:`TagEvent` whose
  ``position`` is an index into the cleaned text;
* whitespace around a run of tags ("cluster") is repaired so that removing the tags
  neither glues words together nor leaves double spaces: at most one of the
  whitespace runs touching the cluster is kept (the one with the most line breaks,
  else the last), and none is kept before closing punctuation that directly follows
  a tag (``"capabilities <co>1</co>."`` becomes ``"capabilities."``), at the end of
  the text, or at the start of a line.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .._markers import marker_first_chars, marker_pattern, marker_prefixes, partial_marker_length
from .stages import CONTENT, WHITESPACE, ChannelSink, Outbox, ScanningSink, TextSink
from .tag_grammar import ANCHOR, CLOSE, OPEN, NeedMore, TagEvent, TagGrammar, TagMatch

__all__ = ["CitationTagRemover", "remove_citation_tags"]

_CLOSING_PUNCTUATION = frozenset(".,;:!?)]}\"'”’»…")
_WHITESPACE_RUN = re.compile("[" + re.escape(WHITESPACE) + "]*")


#: Buffers at least this long are scanned with their output collected (see ``_scan``).
_COLLECT_FROM = 256


class _Collected:
    """A sink that keeps what it is given, in pieces."""

    __slots__ = ("parts", "write")

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.write = self.parts.append

    def end(self) -> None:
        pass


class CitationTagRemover(ScanningSink):
    """A :class:`~.stages.TextSink` that removes citation tags and records them in ``events``."""

    def __init__(self, next_sink: TextSink, grammar: TagGrammar) -> None:
        self.next = next_sink
        self.grammar = grammar
        self._lane_chars = marker_first_chars(grammar.markers)
        # Clusters resolve in place unless a marker can begin with whitespace.
        self._in_place = self._lane_chars.isdisjoint(WHITESPACE)
        self._markers = marker_pattern(grammar.markers)
        self._prefixes = marker_prefixes(grammar.markers)
        self.events: list[TagEvent] = []
        self._pending = ""
        # Whether ``_pending`` is a tag the grammar could not decide yet (NEED_MORE).
        self._waiting = False
        # What may decide it (see waits): the grammar's, if it says.
        self._waits: Callable[[str, int], tuple[frozenset[str], int] | None] | None = getattr(
            grammar, "waits", None
        )
        self._room = 0
        # Whitespace at the end of the text so far (a cluster may follow), in pieces.
        self._held: list[str] = []
        self._out = 0  # characters passed on
        self._last = ""  # the last character passed on
        self._cluster: list[TagMatch] | None = None
        # The whitespace runs around the tags of the cluster, each in pieces.
        self._runs: list[list[str]] = []

    def lane(self) -> frozenset[str] | None:
        """The characters that need this sink's scan now, or ``None`` if every chunk does.

        With no partial tag pending, a chunk holding none of them holds no tag, and
        :meth:`write` would hand it to :meth:`text` whole.
        """
        return None if self._pending else self._lane_chars

    def waits(self) -> frozenset[str] | None:
        """While a tag waits for the text after it: the characters that may decide it
        (see the grammar's optional ``waits``), or ``None`` when any may (or no tag
        waits). Text holding none of them goes to :meth:`adds` instead of :meth:`write`
        until text holding one is written."""
        waits = self._waits
        if not self._waiting or waits is None:
            return None
        found = waits(self._pending, 0)
        if found is None:
            return None
        chars, self._room = found
        return chars

    def adds(self, text: str) -> str:
        """What :meth:`write` does with a text holding none of the characters of
        :meth:`waits`: it is added to the waiting tag, nothing passed on, unless the
        tag grows too long to wait (then written); returns the text passed on to
        ``next_sink``, for the caller to write there."""
        if self._waiting:
            buffer = self._pending + text
            if len(buffer) < self._room:
                self._pending = buffer  # (what write would do: the grammar needs more)
                return ""
        # Decided by this text (or an earlier one): written, what it passes on collected.
        sink = self.next
        collected = self.next = _Collected()
        try:
            self.write(text)
        finally:
            self.next = sink
        return "".join(collected.parts)

    def write(self, text: str) -> None:
        if not self._pending and self._lane_chars.isdisjoint(text):
            # The steady case: no partial tag pending and none can start in ``text``
            # (see lane): what a scan would do, whitespace repair only.
            self._text(text)
            return
        if text and self._waiting:
            # An undecided tag is asked again directly (what _scan would do first, as
            # the pending text begins with the tag's marker), not rescanned.
            buffer = self._pending + text
            result = self.grammar.match(buffer, 0, False)
            if isinstance(result, NeedMore):
                self._pending = buffer
                return
            self._pending, self._waiting = "", False
            self._scan(buffer, final=False)
            return
        super().write(text)

    def _holds(self) -> frozenset[str]:
        return self._prefixes

    #: The texts a scan keeps whole, with nothing pending (the markers' beginnings).
    holds = _holds

    def end(self) -> None:
        self._flush()
        if self._cluster is not None:
            self._resolve(None)
        self._pass("".join(self._held))
        self._held = []
        self.next.end()

    def _pass(self, text: str) -> None:
        if text:
            self.next.write(text)
            self._out += len(text)
            self._last = text[-1]

    def _scan(self, buffer: str, final: bool) -> None:
        if len(buffer) < _COLLECT_FROM:
            self._scan_tags(buffer, final)
            return
        # A long buffer's output goes on in one write, not a write per piece between
        # tags (the next sinks are chunking-invariant, and nothing else is output
        # while this scan runs).
        sink = self.next
        collected = self.next = _Collected()
        try:
            self._scan_tags(buffer, final)
        finally:
            self.next = sink
            if collected.parts:
                sink.write("".join(collected.parts))

    def _scan_tags(self, buffer: str, final: bool) -> None:
        # One regex search per marker, the text between tags passed on only when there
        # is some, and the tag added to the cluster inline: a long answer with a tag per
        # sentence runs this loop once per tag.
        grammar = self.grammar
        markers = grammar.markers
        pattern = marker_pattern(markers)
        text = self._text
        position = 0
        length = len(buffer)
        while position < length:
            found = None if pattern is None else pattern.search(buffer, position)
            if found is None:
                keep = 0 if final else partial_marker_length(buffer, markers, position)
                text(buffer[position : length - keep])
                self._pending = buffer[length - keep :]
                self._waiting = False
                return
            start = found.start()
            if start > position:
                text(buffer[position:start])
            result = grammar.match(buffer, start, final)
            if isinstance(result, NeedMore):
                self._pending = buffer[start:]
                self._waiting = True
                return
            if result is None:
                text(found.group())
                position = found.end()
                continue
            # The usual cluster is resolved where it stands (see _close_in_place).
            resumed = self._close_in_place(buffer, start, result, final)
            if resumed >= 0:
                position = resumed
                continue
            # The tag joins the current cluster (see _resolve), or starts one.
            if self._cluster is None:
                self._cluster = [result]
                self._runs = [self._held, []]
                self._held = []
            else:
                self._cluster.append(result)
                self._runs.append([])
            position = start + result.length

    def _close_in_place(self, buffer: str, start: int, first: TagMatch, final: bool) -> int:
        """Resolve, without the cluster state, a cluster that ``buffer`` holds whole.

        That is the usual shape: text ending in no whitespace, tags written back to back
        (``first`` at ``start``, the first of them), then whitespace and a character
        that begins no marker. Whitespace repair is then what :meth:`_resolve` does with
        only its last run non-empty. Returns where the text after the whitespace starts,
        or -1 (nothing done) for any other shape, which the general path reads.
        """
        if self._cluster is not None or self._held or not self._in_place:
            return -1
        grammar, firsts = self.grammar, self._lane_chars
        length = len(buffer)
        cluster = [first]
        end = start + first.length
        while end < length and buffer[end] in firsts:
            pattern = self._markers
            if pattern is None or pattern.match(buffer, end) is None:
                return -1
            more = grammar.match(buffer, end, final)
            if not isinstance(more, TagMatch):
                return -1
            cluster.append(more)
            end += more.length
        stop = _WHITESPACE_RUN.match(buffer, end).end()  # type: ignore[union-attr]
        if stop >= length or buffer[stop] in firsts:
            return -1
        separator = buffer[end:stop]
        if separator and "\n" not in separator and (self._out == 0 or self._last == "\n"):
            separator = ""  # at the start of a line
        self._record(cluster, self._out, self._out + len(separator))
        self._pass(separator)
        return stop

    def _text(self, text: str) -> None:
        if not text:
            return
        if self._cluster is not None:
            body = text.lstrip(WHITESPACE)
            self._runs[-1].append(text[: len(text) - len(body)])
            if not body:
                return
            self._resolve(body[0])
            text = body
        body = text.rstrip(WHITESPACE)
        if body:
            size = len(body)
            held = self._held
            if held:
                held.append(body)
                body = "".join(held)
            self.next.write(body)  # _pass, inlined: this runs for each streamed chunk
            self._out += len(body)
            self._last = body[-1]
            self._held = [text[size:]] if size < len(text) else []
        else:
            self._held.append(text)

    #: Text known to hold no tag (see :meth:`lane`): whitespace repair, then passed on.
    text = _text

    def passes(self, text: str) -> str:
        """What :meth:`text` would pass on of ``text`` (no tag in it, and no cluster
        open: see :attr:`resolved`), returned for the caller to write to ``next_sink``."""
        body = text.rstrip(WHITESPACE)
        held = self._held
        if not body:
            held.append(text)
            return ""
        size = len(body)
        if held:
            held.append(body)
            body = "".join(held)
            held.clear()
        if size < len(text):
            held.append(text[size:])
        self._out += len(body)
        self._last = body[-1]
        return body

    @property
    def resolved(self) -> bool:
        """Whether no cluster of tags waits for the text after it (see :meth:`passes`)."""
        return self._cluster is None

    def _resolve(self, following: str | None) -> None:
        """Close the current cluster; ``following`` is the next character (None at the end)."""
        cluster = self._cluster or []
        runs = [run[0] if len(run) == 1 else "".join(run) for run in self._runs]
        separator = ""
        if following is not None and not (runs[-1] == "" and following in _CLOSING_PUNCTUATION):
            candidates = [run for run in runs if run]
            if len(candidates) == 1:
                separator = candidates[0]  # the usual case: one space after the tags
            elif candidates:
                separator = max(reversed(candidates), key=lambda run: run.count("\n"))
            if separator and "\n" not in separator and (self._out == 0 or self._last == "\n"):
                separator = ""  # at the start of a line
        self._record(cluster, self._out, self._out + len(separator))
        self._cluster = None
        self._runs = []
        self._pass(separator)

    def _record(self, cluster: list[TagMatch], before: int, after: int) -> None:
        """The events of a resolved cluster: its separator spans ``before`` to ``after``."""
        events = self.events
        if len(cluster) == 1:
            tag = cluster[0]
            events.append(
                TagEvent(tag.kind, tag.ref, after if tag.kind == OPEN else before, tag.flag)
            )
        else:
            index = 0
            while index < len(cluster):
                tag = cluster[index]
                if (
                    tag.kind == OPEN
                    and index + 1 < len(cluster)
                    and cluster[index + 1].kind == CLOSE
                ):
                    # An empty wrap <open><close> is a point reference.
                    events.append(TagEvent(ANCHOR, tag.ref, before, tag.flag))
                    index += 2
                    continue
                position = after if tag.kind == OPEN else before
                events.append(TagEvent(tag.kind, tag.ref, position, tag.flag))
                index += 1


def remove_citation_tags(text: str, grammar: TagGrammar) -> tuple[str, list[TagEvent]]:
    """Remove the citation tags of ``grammar`` from ``text`` (all at once)."""
    pattern = marker_pattern(grammar.markers)
    if pattern is None or pattern.search(text) is None:
        return text, []  # no tag can start: the remover would pass the text on whole
    sink = ChannelSink(Outbox(), CONTENT)
    remover = CitationTagRemover(sink, grammar)
    remover.write(text)
    remover.end()
    return sink.text(), remover.events
