"""Tool calls in Granite 3 output, parsed incrementally.

The Granite 3 prompts ask for ``<|tool_call|>`` followed by a JSON list of
``{"name": ..., "arguments": {...}}`` objects. What actually reaches a parser varies:

* ``<|tool_call|>[...]``: the special token kept (``skip_special_tokens=False``);
* ``<tool_call>[...]``: the plain string some releases emit (optionally closed by
  ``</tool_call>``, which is removed);
* ``[...]`` alone at the start of the output: the special token was removed by the
  server. Accepted only when the request offered tools and the list is a non-empty
  list of call-shaped objects, since an ordinary answer may be a JSON list.

Tolerated: whitespace around the marker, text before the marker (kept as content),
text after the JSON (kept as content), a single JSON object instead of a list (after a
marker), OpenAI-shaped items (``{"function": {"name", "arguments"}}``), and arguments
given as a JSON string. What is read from each call object (``parameters`` instead of
``arguments``, the note for keys not read) is the rule of
:mod:`granite_formatters.toolcalljson`, shared with the other parsers. JSON that is
invalid, cut off, larger than :data:`MAX_JSON_CHARS` or nested deeper than
:data:`MAX_JSON_DEPTH` is left in the content and explained in the notes.

Call ids: the model's ``id`` when it gives one, otherwise one made by the parser's
:class:`~.stages.Outbox`: ``call_`` followed by 24 hex digits, 16 drawn at random once per
parser and 8 counting the calls of the message. Ids are therefore unique across parsers
(the same call in two turns of a conversation gets two ids), and within one parser the
n-th call always gets the same suffix. Making an id costs O(1), whatever the size of
the list.

Decoded values must serialise: lone surrogates (from ``\\ud83d``-style JSON escapes)
are replaced by U+FFFD, and arguments given as a JSON string nested deeper than
:data:`MAX_JSON_DEPTH` are kept as that string (both noted).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..jsonscan import MAX_JSON_CHARS, MAX_JSON_DEPTH, JsonScanner
from ..syntax.json_list import decode_json_list
from ..types import ToolCall, ToolCallIds
from ._markers import MarkerSearch, marker_first_chars, marker_prefixes, partial_marker_length
from ._stages import NOTHING, Outbox, ScanningSink, TextSink

__all__ = [
    "MAX_JSON_CHARS",
    "MAX_JSON_DEPTH",
    "TOOL_CALL_MARKERS",
    "JsonScanner",
    "ToolCallExtractor",
    "build_tool_calls",
]

#: The markers that introduce tool calls.
TOOL_CALL_MARKERS = ("<|tool_call|>", "<tool_call>")
_CLOSING_TAG = "</tool_call>"

# The first character that is not whitespace (the JSON whitespace and more).
_NOT_SPACE = re.compile(r"[^ \t\n\r\f\v]")


def build_tool_calls(
    json_text: str,
    *,
    bare: bool = False,
    outbox: Outbox | None = None,
    notes: list[str] | None = None,
) -> list[ToolCall] | str:
    """Turn tool-call JSON into :class:`ToolCall` objects, or explain why not.

    ``bare`` (no marker before the JSON) accepts only a non-empty list. Returns the
    calls, or a short reason (a ``str``) when ``json_text`` is not a tool call.
    Ids the model did not give come from ``outbox`` (a fresh one when ``None``);
    what had to be repaired is appended to ``notes``. The decoding is the JSON-list
    syntax's (:func:`granite_formatters.syntax.json_list.decode_json_list`).
    """
    new_id: Callable[[], str] = _fresh_id
    first = 0
    if outbox is not None:
        first = outbox.tool_call_count
        new_id = outbox.new_call_id
    return decode_json_list(json_text, first, [] if notes is None else notes, new_id, bare=bare)


def _fresh_id() -> str:
    return ToolCallIds()()


_SCAN, _LEAD, _AFTER_MARKER, _JSON = range(4)


class ToolCallExtractor(ScanningSink):
    """A :class:`~.stages.TextSink` that takes tool calls out of the content stream.

    Content passes through to ``next_sink``; tool calls go to ``outbox`` as soon as
    their JSON is complete and valid. With ``bare_list=True`` (the request offered
    tools), a JSON list at the very start of the text is also tried.
    """

    def __init__(
        self,
        next_sink: TextSink,
        outbox: Outbox,
        *,
        bare_list: bool = False,
        markers: tuple[str, ...] = TOOL_CALL_MARKERS,
    ) -> None:
        self.next = next_sink
        self._scan_markers = (*markers, _CLOSING_TAG)
        self._lane_chars = marker_first_chars(self._scan_markers)
        self._prefixes = marker_prefixes(self._scan_markers)
        self.outbox = outbox
        self._state = _LEAD if bare_list else _SCAN
        self._pending = ""
        # The marker (and whitespace) before JSON, or leading whitespace, in pieces.
        self._held: list[str] = []
        self._marker = ""  # "" for a bare list
        self._json: list[str] = []
        self._scanner = JsonScanner()
        self._seen_call = False

    def lane(self) -> frozenset[str] | None:
        """The characters that need this sink's scan now, or ``None`` if every chunk does.

        Outside a call with nothing pending, a chunk holding none of them is passed on
        to ``next_sink`` unchanged.
        """
        if self._state != _SCAN or self._pending:
            return None
        return self._lane_chars

    def _holds(self) -> frozenset[str]:
        return self._prefixes if self._state == _SCAN else NOTHING

    def end(self) -> None:
        self._flush()
        if self._state == _JSON:
            self._give_up(f"{self._what()} is cut off")
        elif self._held:
            if self._state == _AFTER_MARKER:
                self.outbox.note(f"{self._marker} at the end of the output has no JSON after it")
            self.next.write("".join(self._held))
            self._held = []
        self.next.end()

    def _what(self) -> str:
        if self._marker:
            return f"the tool call JSON after {self._marker}"
        return "the JSON list at the start of the output"

    def _give_up(self, reason: str) -> None:
        # A bare list that is not a tool call is just an answer: no note for it.
        if self._marker:
            self.outbox.note(reason + "; it is kept as content")
        self.next.write("".join(self._held) + "".join(self._json))
        self._held = []
        self._json = []
        self._state = _SCAN

    def _scan(self, buffer: str, final: bool) -> None:
        position = 0
        scan_markers = self._scan_markers
        search = MarkerSearch(buffer, scan_markers)
        length = len(buffer)
        while position < length:
            state = self._state
            if state == _SCAN:
                found = search.next(position)
                if found is None:
                    keep = 0 if final else partial_marker_length(buffer, scan_markers, position)
                    self.next.write(buffer[position : length - keep])
                    self._pending = buffer[length - keep :]
                    return
                self.next.write(buffer[position : found.start])
                position = found.end
                if found.marker == _CLOSING_TAG:
                    if not self._seen_call:
                        self.outbox.note("removed a </tool_call> that closes no tool call")
                    continue
                self._marker = found.marker
                self._held = [found.marker]
                self._state = _AFTER_MARKER
            elif state in (_LEAD, _AFTER_MARKER):
                # Skip whitespace without copying the rest of the buffer (a copy per
                # marker made a run of markers quadratic).
                found_text = _NOT_SPACE.search(buffer, position)
                stop = length if found_text is None else found_text.start()
                self._held.append(buffer[position:stop])
                position = stop
                if found_text is None:
                    return
                first = buffer[position]
                if first == "[" or (first == "{" and state == _AFTER_MARKER):
                    self._state = _JSON
                    self._scanner = JsonScanner()
                    self._json = []
                else:
                    if state == _AFTER_MARKER:
                        self.outbox.note(f"{self._marker} is not followed by JSON; kept as content")
                    self.next.write("".join(self._held))
                    self._held = []
                    self._state = _SCAN
            else:  # _JSON
                end = self._scanner.scan(buffer, position)
                stop = self._scanner.stop
                self._json.append(buffer[position:stop])
                position = stop
                if end is not None:
                    self._finish_json()
                elif self._scanner.error is not None:
                    self._give_up(f"{self._what()} is {self._scanner.error}")

    def _finish_json(self) -> None:
        json_text = "".join(self._json)
        notes: list[str] = []
        result = build_tool_calls(json_text, bare=not self._marker, outbox=self.outbox, notes=notes)
        for note in notes:
            self.outbox.note(note)
        if isinstance(result, str):
            self._give_up(f"{self._what()} is {result}")
            return
        if not result:
            self.outbox.note(f"{self._marker} was followed by an empty list: no tool was called")
        for call in result:
            self.outbox.tool_call(call)
        self._seen_call = True
        if not self._marker:
            self.next.write("".join(self._held))  # whitespace before a bare list
        self._held = []
        self._json = []
        self._state = _SCAN
