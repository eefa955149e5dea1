"""Splitting chain-of-thought ("reasoning") text from the answer, incrementally.

The Granite releases mark the thought process differently (3.2: ``Here is my thought
process:`` ... ``Here is my response:``; 3.3: ``<think>`` ... ``</think>`` plus
``<response>`` tags), but the mechanics are the same, so one configurable sink does
both:

* before a start marker, text is answer content;
* from the earliest start marker to the earliest end marker, text is reasoning (a
  thought cut off before its end marker stays reasoning, and a note says so: nothing
  is dropped, and the caller can tell a finished thought from an unfinished one);
* after the end marker, text is content again.

``content_drops`` are tags removed from the content wherever they appear (3.3's
``<response>``/``</response>``), ``drops`` are removed from both channels
(``<|end_of_text|>``). When a marker or tag is cut out of the content, whitespace that
would otherwise be doubled at the seam is skipped.

``stoppers`` (the tool-call markers) end all marker processing outside a thought: the
JSON that follows them is passed on untouched, even if an argument happens to contain
``<think>`` or ``<response>``. With ``leading_json=True`` (the request offered tools, so
the output may be a bare JSON list of calls), a ``[`` as the first non-blank character
does the same.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from ._markers import MarkerSearch, marker_first_chars, marker_prefixes, partial_marker_length
from ._stages import NOTHING, WHITESPACE, Outbox, ScanningSink, TextSink

__all__ = ["ReasoningSplitter"]

_NON_BLANK = re.compile(r"[^ \t\n\r\f\v]")
_BEFORE, _THINKING, _AFTER, _PASS = 0, 1, 2, 3


class ReasoningSplitter(ScanningSink):
    """A :class:`~.stages.TextSink` that routes text to a reasoning and a content sink."""

    def __init__(
        self,
        reasoning: TextSink,
        content: TextSink,
        outbox: Outbox,
        *,
        starts: Sequence[str],
        ends: Sequence[str],
        content_drops: Sequence[str] = (),
        drops: Sequence[str] = (),
        drop_stray_ends: bool = False,
        stoppers: Sequence[str] = (),
        leading_json: bool = False,
    ) -> None:
        self.reasoning = reasoning
        self.content = content
        self.outbox = outbox
        self._starts = tuple(starts)
        self._ends = tuple(ends)
        self._content_drops = tuple(content_drops)
        self._drops = tuple(drops)
        self._stray = self._ends if drop_stray_ends else ()
        self._stoppers = tuple(stoppers)
        self._leading_json = leading_json
        self._fresh = True  # no non-blank content emitted yet
        self._state = _BEFORE
        self._pending = ""
        self._collapse = False
        self._last_was_space = True  # nothing emitted yet counts as a seam
        #: Whether a start marker was seen (so ``reasoning_content`` is not ``None``).
        self.thinking_seen = False
        # The markers of each state, and the characters they begin with, computed once.
        self._state_markers = {
            _BEFORE: (
                self._starts + self._content_drops + self._drops + self._stray + self._stoppers
            ),
            _THINKING: self._ends + self._drops,
            _AFTER: self._content_drops + self._drops + self._stoppers,
            _PASS: self._drops,
        }
        self._state_chars = {
            state: marker_first_chars(markers) for state, markers in self._state_markers.items()
        }
        self._state_prefixes = {
            state: marker_prefixes(markers) for state, markers in self._state_markers.items()
        }

    def _markers(self) -> tuple[str, ...]:
        return self._state_markers[self._state]

    def _holds(self) -> frozenset[str]:
        if self._fresh and self._leading_json and self._state == _BEFORE:
            return NOTHING  # the scan decides on a leading JSON list first
        return self._state_prefixes[self._state]

    # The fast lane (see ``Granite3StreamParser``): what a chunk may skip this sink for.

    def lane(self) -> frozenset[str] | None:
        """The characters that need this sink's scan now, or ``None`` if every chunk does.

        Not ``None`` when nothing is held back or pending (no partial marker, no seam
        to collapse, no leading-JSON decision): a chunk holding none of the characters
        then contains no marker and no marker prefix, so :meth:`write` would pass it on
        whole (to ``reasoning`` when :attr:`thinking`, else through :meth:`content_lane`).
        """
        if self._pending or self._collapse:
            return None
        if self._fresh and self._leading_json and self._state == _BEFORE:
            return None
        return self._state_chars[self._state]

    @property
    def thinking(self) -> bool:
        """Whether text is now reasoning (between a start and an end marker)."""
        return self._state == _THINKING

    def content_lane(self, target: Callable[[str], None]) -> Callable[[str], None]:
        """What :meth:`write` does with a marker-free chunk outside a thought, with
        ``target`` standing for the content sink's handling of it."""

        def write(text: str) -> None:
            target(text)
            self._last_was_space = text[-1] in WHITESPACE
            if self._fresh and text.strip(WHITESPACE):
                self._fresh = False

        return write

    def end(self) -> None:
        self._flush()
        if self._state == _THINKING:
            self.outbox.note(
                f"the reasoning has no end marker ({self._ends[0]!r}): the output ended "
                "inside it; the text after the start marker is kept as reasoning"
            )
        self.reasoning.end()
        self.content.end()

    def _scan(self, buffer: str, final: bool) -> None:
        position = 0
        markers = self._markers()
        search = MarkerSearch(buffer, markers)
        while True:
            if self._fresh and self._leading_json and self._state == _BEFORE:
                first = _NON_BLANK.search(buffer, position)
                if first is not None and first.group(0) == "[":
                    self._state = _PASS
                    markers = self._markers()
                    search = MarkerSearch(buffer, markers)
            found = search.next(position)
            if found is None:
                keep = 0 if final else partial_marker_length(buffer, markers, position)
                self._emit(buffer[position : len(buffer) - keep])
                self._pending = buffer[len(buffer) - keep :]
                return
            self._emit(buffer[position : found.start])
            position = found.end
            if self._on_marker(found.marker):
                markers = self._markers()
                search = MarkerSearch(buffer, markers)

    def _on_marker(self, marker: str) -> bool:
        """Handle a marker; return whether the state changed."""
        if marker in self._drops:
            if self._state != _THINKING:
                self._collapse = self._last_was_space
            return False
        if marker in self._stoppers and self._state != _THINKING:
            self._emit(marker)
            self._state = _PASS
            return True
        if self._state == _BEFORE and marker in self._starts:
            self._state = _THINKING
            self.thinking_seen = True
            self._collapse = self._last_was_space
            return True
        if self._state == _THINKING:
            self._state = _AFTER
            self._collapse = self._last_was_space
            return True
        if marker in self._stray and marker not in self._content_drops:
            self.outbox.note(f"removed {marker!r} that had no opening marker before it")
        self._collapse = self._last_was_space
        return False

    def _emit(self, text: str) -> None:
        if not text:
            return
        if self._state == _THINKING:
            self.reasoning.write(text)
            return
        if self._collapse:
            text = text.lstrip(WHITESPACE)
            if not text:
                return
            self._collapse = False
        self.content.write(text)
        self._last_was_space = text[-1] in WHITESPACE
        if self._fresh and text.strip(WHITESPACE):
            self._fresh = False
