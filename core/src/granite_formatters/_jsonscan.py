"""Where a JSON value embedded in model output ends, found one chunk at a time.

Models write tool calls as JSON inside free text (``<|tool_call|>[...]``,
``<tool_call>{...}</tool_call>``). :class:`JsonScanner` tracks only strings and bracket
depth, so a parser can tell where the JSON ends (even across streamed chunks, and even
when a string inside it contains the closing tag) before validating it with
:func:`json.loads`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

__all__ = ["MAX_JSON_CHARS", "MAX_JSON_DEPTH", "WHOLE_CHARS", "JsonScanner"]

#: JSON longer than this is not scanned to its end (``JsonScanner.error`` is set).
MAX_JSON_CHARS = 1_000_000
#: JSON nested deeper than this is not scanned to its end (``JsonScanner.error`` is set).
MAX_JSON_DEPTH = 64

_STRUCTURE = re.compile(r'["\[\]{}]')
_IN_STRING = re.compile(r'["\\]')
_BRACKET = re.compile(r"[\[\]{}]")
_ESCAPE_OR_BRACKET = re.compile(r"[\\\[\]{}]")
_DECODER = json.JSONDecoder()
_CLOSER = {"{": "}", "[": "]"}

#: A value of at most this many characters that arrives whole is read by the C decoder.
WHOLE_CHARS = 4096


class JsonScanner:
    """Finds where a JSON array or object ends, one piece of text at a time.

    It tracks only strings and bracket depth (validity is checked afterwards with
    :func:`json.loads`), in O(1) amortised time per character. ``error`` is set, and
    scanning stops, as soon as the value grows past :data:`MAX_JSON_CHARS` characters
    or :data:`MAX_JSON_DEPTH` levels (at the same character however the text is split).
    A value that arrives whole in one text (a batch parse) is found by the C JSON
    decoder instead of character by character, when it is valid JSON and at most
    :data:`WHOLE_CHARS` long (see :meth:`_whole`).
    """

    __slots__ = ("_depth", "_escape", "_in_string", "consumed", "error", "stop")

    #: A JSON body never ends with its block's close marker (see BlockReader).
    closed = False

    def __init__(self) -> None:
        self._depth = 0
        self._in_string = False
        self._escape = False
        self.consumed = 0
        self.error: str | None = None
        #: Where the last :meth:`scan` stopped in its text.
        self.stop = 0

    def holds(self, text: str, held: Sequence[str]) -> bool:
        """Never: :meth:`take` reads what can be read cheaply (see
        :class:`~granite_formatters.syntax.BlockReader`)."""
        return False

    def take(self, text: str) -> bool:
        """Consume all of ``text`` if the value can neither end nor fail within it (it
        holds no bracket and stays within :data:`MAX_JSON_CHARS`). Returns whether it
        did (as :meth:`scan` would have, returning ``None``); if not, nothing changed.
        The cheap path for a value arriving in small chunks."""
        if self.error is not None or self.consumed + len(text) > MAX_JSON_CHARS:
            return False
        if not self._escape:
            if (_IN_STRING if self._in_string else _STRUCTURE).search(text) is None:
                self.consumed += len(text)  # nothing that changes the state: no scan needed
                self.stop = len(text)
                return True
            if _ESCAPE_OR_BRACKET.search(text) is None:
                # Quotes only: each one opens or closes a string, so only their parity
                # changes the state (the usual piece of "key": "value" text).
                if text.count('"') & 1:
                    self._in_string = not self._in_string
                self.consumed += len(text)
                self.stop = len(text)
                return True
        if _BRACKET.search(text) is not None:
            return False
        self.scan(text)  # quotes or escapes, but no end and no error
        return True

    def scan(self, text: str, pos: int = 0) -> int | None:
        """Consume ``text[pos:]``; return the index just after the value if it ended.

        Returns ``None`` when the value has not ended yet (all of ``text[pos:]`` was
        consumed) or when ``error`` got set; ``stop`` says where scanning stopped.
        """
        if not self.consumed and pos < len(text):
            end = self._whole(text, pos)
            if end is not None:
                return end
        start = pos
        limit = min(len(text), pos + MAX_JSON_CHARS - self.consumed)
        result: int | None = None
        while pos < limit:
            if self._escape:
                self._escape = False
                pos += 1
                continue
            if self._in_string:
                found = _IN_STRING.search(text, pos, limit)
                if found is None:
                    pos = limit
                    break
                pos = found.end()
                if found.group(0) == "\\":
                    self._escape = True
                else:
                    self._in_string = False
                continue
            found = _STRUCTURE.search(text, pos, limit)
            if found is None:
                pos = limit
                break
            pos = found.end()
            char = found.group(0)
            if char == '"':
                self._in_string = True
            elif char in "[{":
                self._depth += 1
                if self._depth > MAX_JSON_DEPTH:
                    self.error = f"nested deeper than {MAX_JSON_DEPTH} levels"
                    break
            else:
                self._depth -= 1
                if self._depth <= 0:
                    result = pos
                    break
        self.consumed += pos - start
        self.stop = pos
        if result is None and self.error is None and pos < len(text):
            self.error = f"longer than {MAX_JSON_CHARS} characters"
        return result

    def _whole(self, text: str, pos: int) -> int | None:
        """The steady case of a fresh scanner: a value of at most :data:`WHOLE_CHARS`
        characters, all in ``text`` from ``pos``, read by the C decoder.

        Where valid JSON ends, the bracket count of the character scan returns to zero;
        so when the value is valid, within :data:`MAX_JSON_CHARS`, and holds at most
        :data:`MAX_JSON_DEPTH` brackets (so it is not nested deeper), the scan would end
        where the decoder did, with no error: its end is returned and the state is the
        scan's. Otherwise ``None`` and nothing changed (the caller scans). The decoder
        reads at most :data:`WHOLE_CHARS` characters, and only when a character that can
        end the value is among them (a failed decode costs a Python exception): bounded
        work per value, so scanning stays linear.
        """
        closer = _CLOSER.get(text[pos])
        if closer is None:
            return None
        window_end = pos + WHOLE_CHARS
        if text.find(closer, pos + 1, window_end) == -1:
            return None
        window = text[pos:window_end]
        try:
            end = _DECODER.raw_decode(window)[1]
        except (ValueError, RecursionError):
            return None
        if end > MAX_JSON_CHARS or window.count("{", 0, end) + window.count("[", 0, end) > (
            MAX_JSON_DEPTH
        ):
            return None
        self.consumed = end
        self.stop = pos + end
        return pos + end
