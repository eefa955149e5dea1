"""Where a JSON value embedded in model output ends, found one chunk at a time.

Models write tool calls as JSON inside free text (``<|tool_call|>[...]``,
``<tool_call>{...}</tool_call>``). :class:`JsonScanner` tracks only strings and bracket
depth, so a parser can tell where the JSON ends (even across streamed chunks, and even
when a string inside it contains the closing tag) before validating it with
:func:`json.loads`.
"""

from __future__ import annotations

import re

__all__ = ["MAX_JSON_CHARS", "MAX_JSON_DEPTH", "JsonScanner"]

#: JSON longer than this is not scanned to its end (``JsonScanner.error`` is set).
MAX_JSON_CHARS = 1_000_000
#: JSON nested deeper than this is not scanned to its end (``JsonScanner.error`` is set).
MAX_JSON_DEPTH = 64

_STRUCTURE = re.compile(r'["\[\]{}]')
_IN_STRING = re.compile(r'["\\]')
_BRACKET = re.compile(r"[\[\]{}]")
_ESCAPE_OR_BRACKET = re.compile(r"[\\\[\]{}]")


class JsonScanner:
    """Finds where a JSON array or object ends, one piece of text at a time.

    It tracks only strings and bracket depth (validity is checked afterwards with
    :func:`json.loads`), in O(1) amortised time per character. ``error`` is set, and
    scanning stops, as soon as the value grows past :data:`MAX_JSON_CHARS` characters
    or :data:`MAX_JSON_DEPTH` levels (at the same character however the text is split).
    """

    __slots__ = ("_depth", "_escape", "_in_string", "consumed", "error", "stop")

    def __init__(self) -> None:
        self._depth = 0
        self._in_string = False
        self._escape = False
        self.consumed = 0
        self.error: str | None = None
        #: Where the last :meth:`scan` stopped in its text.
        self.stop = 0

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
