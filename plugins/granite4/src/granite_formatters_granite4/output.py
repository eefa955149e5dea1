"""The Granite 4.0 / 4.1 output processor: answer text and ``<tool_call>`` blocks.

A Granite 4 model calls tools by writing, anywhere in its answer, one or more blocks

    <tool_call>
    {"name": "get_weather", "arguments": {"city": "Paris"}}
    </tool_call>

(the newlines are optional; ``"arguments"`` may come before ``"name"``; a JSON array of
such objects in one block is accepted too). There is no reasoning, citation or
hallucination syntax. ``<tool_call>`` and ``</tool_call>`` are not special tokens, so
they survive a server's default ``skip_special_tokens=True``.

Parsing is one left-to-right pass that works the same on a whole text and on chunks
(:meth:`Granite4OutputProcessor.transform` feeds the stream parser once), so streaming
equals the batch parse for every chunking by construction:

* text outside blocks is content (leading and trailing whitespace of the whole content
  removed, as the Granite 3 parsers do); a possible partial ``<tool_call>`` at the end
  of a chunk is held back only while it can still become the tag;
* after ``<tool_call>`` and optional whitespace a JSON object (or array) is scanned to
  its end with :class:`~granite_formatters.jsonscan.JsonScanner`, so a ``</tool_call>``
  inside a JSON string does not end it; optional whitespace and ``</tool_call>`` must
  follow. The call is emitted when that tag is complete;
* arguments written as a JSON-encoded string are decoded once, so
  :meth:`~granite_formatters.types.ToolCall.to_openai` never double-encodes them;
* a block that is malformed (no JSON after the tag, JSON not followed by
  ``</tool_call>``, invalid JSON, no ``name``) or unclosed at the end stays in the content,
  and a note says why. Parsing never raises and each character is looked at a bounded
  number of times (linear time).
"""

from __future__ import annotations

import json
import re
from typing import ClassVar

import attrs

from granite_formatters.jsonscan import JsonScanner
from granite_formatters.processors import OutputProcessor, RequestLike
from granite_formatters.streaming import (
    ChunkText,
    Delta,
    StreamParser,
    ToolCallDelta,
    content_delta,
    finish_deltas,
)
from granite_formatters.toolcalljson import call_arguments, repaired_call
from granite_formatters.types import AssistantMessage, ToolCall, ToolCallIds

__all__ = ["TOOL_CALL_CLOSE", "TOOL_CALL_OPEN", "Granite4OutputProcessor", "Granite4StreamParser"]

TOOL_CALL_OPEN = "<tool_call>"
TOOL_CALL_CLOSE = "</tool_call>"
_WHITESPACE = " \t\r\n"

_TEXT, _OPEN, _JSON, _CLOSE = range(4)
_NON_SPACE = re.compile(r"[^ \t\r\n]")


def _partial_prefix(text: str, tag: str) -> int:
    """Length of the longest suffix of ``text`` that is a proper prefix of ``tag``."""
    start = max(0, len(text) - len(tag) + 1)
    while True:
        found = text.find(tag[0], start)
        if found == -1:
            return 0
        if tag.startswith(text[found:]):
            return len(text) - found
        start = found + 1


def _tool_calls(
    json_text: str, first_index: int, notes: list[str], new_id: ToolCallIds
) -> list[ToolCall] | str:
    """The calls in one block's JSON, or why there are none."""
    try:
        value = json.loads(json_text)
    except (ValueError, RecursionError) as exc:
        return f"its JSON is invalid ({str(exc)[:80]})"
    items = value if isinstance(value, list) else [value]
    if not items:
        return "it holds an empty list"
    calls: list[ToolCall] = []
    for offset, item in enumerate(items):
        if not isinstance(item, dict):
            return "it holds JSON that is not a {name, arguments} object"
        name = item.get("name")
        if not isinstance(name, str) or not name:
            return "its object has no string name"
        index = first_index + offset
        # (What is read from the object, and the notes, are the shared rule of
        # granite_formatters.toolcalljson: "parameters" when there is no "arguments",
        # a note for keys not read, lone surrogates replaced.)
        arguments = call_arguments(item, f"tool call {index} ({name[:40]})", notes)
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except (ValueError, RecursionError):
                notes.append(
                    f"tool call {index} ({name}): the arguments are a string that is not "
                    "JSON; kept as the string"
                )
        given_id = item.get("id")
        call_id = given_id if isinstance(given_id, str) and given_id else ""
        name, call_id, arguments = repaired_call([name, call_id, arguments], notes)
        calls.append(ToolCall(id=call_id or new_id(), name=name, arguments=arguments))
    return calls


class Granite4StreamParser(StreamParser):
    """Incremental Granite 4 output parser (see the module docstring)."""

    #: Whether :meth:`feed` may finish a chunk that cannot touch a tag or end a JSON
    #: value itself; the tests turn it off to compare every delta with the full path's.
    _fast_lanes: ClassVar[bool] = True

    def __init__(self) -> None:
        self._chunks: list[str] = []
        self._offset = 0  # absolute offset of the start of self._pending / the block
        self._mode = _TEXT
        self._pending = ""  # a partial <tool_call> (TEXT) or </tool_call> (CLOSE)
        self._block: list[str] = []  # the block so far, from "<tool_call>"
        self._block_len = 0
        self._json_start = 0  # offset of the JSON inside the block
        self._json_end = 0
        self._scanner: JsonScanner | None = None
        self._started = False
        self._spaces: list[str] = []
        self._content: list[str] = []
        self._calls: list[ToolCall] = []
        self._notes: list[str] = []
        self._out: list[Delta] = []
        self._out_text: list[str] = []
        self._message: AssistantMessage | None = None
        self._role_sent = False
        self._ids = ToolCallIds()
        self._text_of = ChunkText()  # (bytes are decoded as UTF-8)
        #: Whether feed's fast lanes are open: turned on (unless the tests turned them off)
        #: and the stream not closed, in one instance attribute read per chunk.
        self._lanes = self._fast_lanes
        #: Whether the next chunk with no "<" in it is content whole (feed's first lane):
        #: the lanes are open, the content has started and its role was sent, and no
        #: block or partial tag is pending. Set at the end of each chunk that takes the
        #: full path (the only path that changes any of these).
        self._steady = False

    # ------------------------------------------------------------------ API

    def feed(self, chunk: str | bytes) -> list[Delta]:
        if self._steady and chunk.__class__ is str and "<" not in chunk:
            # The fast lane: the content has started, nothing is pending and no tag can
            # start in this chunk, so all of it is content (what _text would find),
            # emitted here as _emit would.
            # (_emit, inlined: this runs for each streamed chunk.)
            self._chunks.append(chunk)
            self._offset += len(chunk)
            stripped = chunk.rstrip(_WHITESPACE)
            spaces = self._spaces
            if not stripped:
                spaces.append(chunk)
                return []
            size = len(stripped)
            if spaces:
                stripped = "".join(spaces) + stripped
                spaces.clear()
            if size < len(chunk):
                spaces.append(chunk[size:])
            self._content.append(stripped)
            return [content_delta(stripped)]
        if self._lanes and chunk.__class__ is str and chunk:
            mode = self._mode
            if mode == _JSON and self._scanner is not None and self._scanner.take(chunk):
                # Inside a block's JSON, and nothing that could end the value or fail it:
                # all of it belongs to the JSON (what _in_block would add to the block).
                self._chunks.append(chunk)
                self._block.append(chunk)
                self._block_len += len(chunk)
                return []
            if mode in (_TEXT, _CLOSE):
                # A chunk that only extends the "<tool_call>" (TEXT) or "</tool_call>"
                # (CLOSE) begun so far, or begins one, is kept (what _text or _in_block
                # would do).
                pending = self._pending
                tag = TOOL_CALL_OPEN if mode == _TEXT else TOOL_CALL_CLOSE
                if (pending or chunk[0] == "<") and len(pending) + len(chunk) < len(tag):
                    extended = pending + chunk
                    if tag.startswith(extended):
                        self._chunks.append(chunk)
                        self._pending = extended
                        self._steady = False  # (pending now)
                        return []
                elif mode == _CLOSE and not pending and not chunk.strip(_WHITESPACE):
                    # Only whitespace after a block's JSON: part of the block.
                    self._chunks.append(chunk)
                    self._add_block(chunk)
                    return []
        if self._message is not None:
            raise RuntimeError("feed() after close()")
        if chunk.__class__ is not str:
            chunk = self._text_of(chunk)
        if chunk:
            self._chunks.append(chunk)
            if self._mode == _TEXT and not self._pending and "<" not in chunk and self._lanes:
                # The fast lane, before the content has started.
                self._emit(chunk)
                self._offset += len(chunk)
            else:
                self._consume(chunk)
        deltas: list[Delta]
        if not self._out:
            # Text only (the usual streamed chunk): at most one delta, built directly.
            if not self._out_text:
                deltas = []
            else:
                out_text = self._out_text
                text = out_text[0] if len(out_text) == 1 else "".join(out_text)
                self._out_text = []
                deltas = [content_delta(text)]
        else:
            deltas = self._flush()
        if deltas and not self._role_sent:
            # The first delta of the stream carries the role.
            self._role_sent = True
            deltas[0] = attrs.evolve(deltas[0], role="assistant")
        # Whether the next chunk with no "<" may take the fast lane at the top.
        self._steady = (
            self._lanes
            and self._mode == _TEXT
            and self._started
            and not self._pending
            and self._role_sent
        )
        return deltas

    def close(self, finish_reason: str | None = None) -> list[Delta]:
        """End the stream; the last delta carries ``finish_reason`` (see the base class)."""
        if self._message is not None:
            return []
        rest = self._text_of.end()  # (a character cut at the end of the bytes: U+FFFD)
        if rest:
            self._chunks.append(rest)
            self._consume(rest)
        self._lanes = self._steady = False
        if self._mode == _TEXT:
            self._emit(self._pending)
            self._pending = ""
        else:
            block = "".join(self._block) + (self._pending if self._mode == _CLOSE else "")
            self._notes.append(
                f"the <tool_call> block at offset {self._offset} is not closed by "
                "</tool_call>; kept as content"
            )
            self._emit(block)
        raw = "".join(self._chunks)
        self._message = AssistantMessage(
            content="".join(self._content),
            tool_calls=self._calls,
            raw_content=raw,
            notes=self._notes,
        )
        return finish_deltas(
            self._flush(),
            first=not self._role_sent,
            finish_reason=finish_reason,
            tool_calls=bool(self._calls),
        )

    @property
    def message(self) -> AssistantMessage | None:
        return self._message

    # ------------------------------------------------------------------ machinery

    def _flush_text(self) -> None:
        if self._out_text:
            self._out.append(content_delta("".join(self._out_text)))
            self._out_text = []

    def _flush(self) -> list[Delta]:
        self._flush_text()
        out, self._out = self._out, []
        return out

    def _emit(self, text: str) -> None:
        """Content, with the whole content's leading and trailing whitespace removed."""
        if not text:
            return
        if not self._started:
            text = text.lstrip(_WHITESPACE)
            if not text:
                return
            self._started = True
        stripped = text.rstrip(_WHITESPACE)
        if not stripped:
            self._spaces.append(text)
            return
        body = "".join(self._spaces) + stripped if self._spaces else stripped
        self._spaces = [text[len(stripped) :]] if len(stripped) < len(text) else []
        self._content.append(body)
        self._out_text.append(body)

    def _consume(self, text: str) -> None:
        # Undecided text (a partial tag, at most a few characters) is only left over at
        # the end of a chunk, so joining it to the next chunk copies each chunk once.
        if self._pending:
            text = self._pending + text
            self._pending = ""
        pos = 0
        while pos < len(text):
            pos = self._text(text, pos) if self._mode == _TEXT else self._in_block(text, pos)

    def _text(self, text: str, pos: int) -> int:
        found = text.find(TOOL_CALL_OPEN, pos)
        if found == -1:
            tail_start = max(pos, len(text) - len(TOOL_CALL_OPEN) + 1)
            end = len(text) - _partial_prefix(text[tail_start:], TOOL_CALL_OPEN)
            self._emit(text[pos:end])
            self._offset += end - pos
            self._pending = text[end:]
            return len(text)
        self._emit(text[pos:found])
        self._offset += found - pos
        self._mode = _OPEN
        self._block = [TOOL_CALL_OPEN]
        self._block_len = len(TOOL_CALL_OPEN)
        return found + len(TOOL_CALL_OPEN)

    def _add_block(self, text: str) -> None:
        if text:
            self._block.append(text)
            self._block_len += len(text)

    def _reject(self, reason: str, pos: int) -> int:
        """The block so far is content; the text from ``pos`` on is read again as text."""
        block = "".join(self._block)
        self._notes.append(
            f"the <tool_call> block at offset {self._offset} {reason}; kept as content"
        )
        self._emit(block)
        self._offset += len(block)
        self._mode = _TEXT
        self._block = []
        self._block_len = 0
        self._scanner = None
        return pos

    def _skip_space(self, text: str, pos: int) -> int:
        """Add the whitespace from ``pos`` on to the block; the next non-space index (or
        ``len(text)`` when the chunk ends first)."""
        found = _NON_SPACE.search(text, pos)
        start = len(text) if found is None else found.start()
        self._add_block(text[pos:start])
        return start

    def _in_block(self, text: str, pos: int) -> int:
        if self._mode == _OPEN:
            start = self._skip_space(text, pos)
            if start == len(text):
                return start
            if text[start] not in "{[":
                return self._reject("is not followed by a JSON object", start)
            self._mode = _JSON
            self._json_start = self._block_len
            self._scanner = JsonScanner()
            pos = start
        if self._mode == _JSON:
            scanner = self._scanner
            assert scanner is not None
            end = scanner.scan(text, pos)
            if scanner.error is not None:
                self._add_block(text[pos : scanner.stop])
                return self._reject(f"holds JSON {scanner.error}", scanner.stop)
            if end is None:
                self._add_block(text[pos:])
                return len(text)
            self._add_block(text[pos:end])
            self._json_end = self._block_len
            self._mode = _CLOSE
            pos = end
        # _CLOSE: optional whitespace (part of the block), then "</tool_call>".
        start = self._skip_space(text, pos)
        if start == len(text):
            return start
        candidate = text[start : start + len(TOOL_CALL_CLOSE)]
        if candidate == TOOL_CALL_CLOSE:
            self._add_block(candidate)
            self._finish_block()
            return start + len(TOOL_CALL_CLOSE)
        if start + len(candidate) == len(text) and TOOL_CALL_CLOSE.startswith(candidate):
            self._pending = candidate
            return len(text)
        return self._reject("is not closed by </tool_call> after its JSON", start)

    def _finish_block(self) -> None:
        block = "".join(self._block)
        json_text = block[self._json_start : self._json_end]
        result = _tool_calls(json_text, len(self._calls), self._notes, self._ids)
        if isinstance(result, str):
            self._notes.append(
                f"the <tool_call> block at offset {self._offset} is not a tool call: "
                f"{result}; kept as content"
            )
            self._emit(block)
        else:
            deltas = []
            for call in result:
                deltas.append(
                    ToolCallDelta(
                        index=len(self._calls),
                        id=call.id,
                        name=call.name,
                        arguments=call.to_openai()["function"]["arguments"],
                    )
                )
                self._calls.append(call)
            self._flush_text()
            self._out.append(Delta(tool_calls=tuple(deltas)))
        self._offset += len(block)
        self._mode = _TEXT
        self._block = []
        self._block_len = 0
        self._scanner = None


class Granite4OutputProcessor(OutputProcessor):
    """Parses Granite 4.0 / 4.1 output: content and ``<tool_call>`` blocks."""

    def transform(
        self, model_output: str, chat_completion: RequestLike | None = None
    ) -> AssistantMessage:
        parser = Granite4StreamParser()
        parser.feed(model_output)  # (UTF-8 bytes are decoded, as in a stream)
        parser.close()
        message = parser.message
        assert message is not None
        return message

    def stream_parser(self, chat_completion: RequestLike | None = None) -> StreamParser:
        return Granite4StreamParser()
