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

import hashlib
import json

from granite_formatters.jsonscan import JsonScanner
from granite_formatters.processors import OutputProcessor, RequestLike
from granite_formatters.streaming import Delta, StreamParser, ToolCallDelta
from granite_formatters.types import AssistantMessage, ToolCall

__all__ = ["TOOL_CALL_CLOSE", "TOOL_CALL_OPEN", "Granite4OutputProcessor", "Granite4StreamParser"]

TOOL_CALL_OPEN = "<tool_call>"
TOOL_CALL_CLOSE = "</tool_call>"
_WHITESPACE = " \t\r\n"

_TEXT, _OPEN, _JSON, _CLOSE = range(4)


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


def _call_id(json_text: str, index: int) -> str:
    digest = hashlib.sha256(f"{index}\x00{json_text}".encode("utf-8", "surrogatepass"))
    return "call_" + digest.hexdigest()[:24]


def _tool_calls(json_text: str, first_index: int, notes: list[str]) -> list[ToolCall] | str:
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
        arguments = item.get("arguments", {})
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except (ValueError, RecursionError):
                notes.append(
                    f"tool call {index} ({name}): the arguments are a string that is not "
                    "JSON; kept as the string"
                )
        given_id = item.get("id")
        call_id = given_id if isinstance(given_id, str) and given_id else _call_id(json_text, index)
        calls.append(ToolCall(id=call_id, name=name, arguments=arguments))
    return calls


class Granite4StreamParser(StreamParser):
    """Incremental Granite 4 output parser (see the module docstring)."""

    def __init__(self) -> None:
        self._chunks: list[str] = []
        self._offset = 0  # absolute offset of the start of self._pending / the block
        self._mode = _TEXT
        self._pending = ""  # TEXT: undecided text (a partial tag); CLOSE: text after JSON
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
        self._message: AssistantMessage | None = None

    # ------------------------------------------------------------------ API

    def feed(self, chunk: str) -> list[Delta]:
        if self._message is not None:
            raise RuntimeError("feed() after close()")
        if chunk:
            self._chunks.append(chunk)
            self._consume(chunk)
        return self._flush()

    def close(self) -> list[Delta]:
        if self._message is not None:
            return []
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
        return self._flush()

    @property
    def message(self) -> AssistantMessage | None:
        return self._message

    # ------------------------------------------------------------------ machinery

    def _flush(self) -> list[Delta]:
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
        if self._out and self._out[-1].content is not None and not self._out[-1].tool_calls:
            self._out[-1] = Delta(content=self._out[-1].content + body)
        else:
            self._out.append(Delta(content=body))

    def _consume(self, text: str) -> None:
        while text:
            text = self._text(text) if self._mode == _TEXT else self._in_block(text)

    def _text(self, text: str) -> str:
        pending = self._pending + text
        found = pending.find(TOOL_CALL_OPEN)
        if found == -1:
            keep = _partial_prefix(pending, TOOL_CALL_OPEN)
            self._emit(pending[: len(pending) - keep])
            self._offset += len(pending) - keep
            self._pending = pending[len(pending) - keep :]
            return ""
        self._emit(pending[:found])
        self._offset += found
        self._pending = ""
        self._mode = _OPEN
        self._block = [TOOL_CALL_OPEN]
        self._block_len = len(TOOL_CALL_OPEN)
        return pending[found + len(TOOL_CALL_OPEN) :]

    def _add_block(self, text: str) -> None:
        self._block.append(text)
        self._block_len += len(text)

    def _reject(self, reason: str, rest: str) -> str:
        """The block so far is content; ``rest`` is read again as text."""
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
        self._pending = ""
        return rest

    def _in_block(self, text: str) -> str:
        if self._mode == _OPEN:
            skipped = len(text) - len(text.lstrip(_WHITESPACE))
            self._add_block(text[:skipped])
            text = text[skipped:]
            if not text:
                return ""
            if text[0] not in "{[":
                return self._reject("is not followed by a JSON object", text)
            self._mode = _JSON
            self._json_start = self._block_len
            self._scanner = JsonScanner()
        if self._mode == _JSON:
            scanner = self._scanner
            assert scanner is not None
            end = scanner.scan(text)
            if scanner.error is not None:
                self._add_block(text[: scanner.stop])
                return self._reject(f"holds JSON {scanner.error}", text[scanner.stop :])
            if end is None:
                self._add_block(text)
                return ""
            self._add_block(text[:end])
            self._json_end = self._block_len
            self._mode = _CLOSE
            self._pending = ""
            text = text[end:]
        # _CLOSE: optional whitespace, then "</tool_call>".
        pending = self._pending + text
        tail = pending.lstrip(_WHITESPACE)
        if len(tail) < len(TOOL_CALL_CLOSE):
            if TOOL_CALL_CLOSE.startswith(tail):
                self._pending = pending
                return ""
        elif tail.startswith(TOOL_CALL_CLOSE):
            used = len(pending) - len(tail) + len(TOOL_CALL_CLOSE)
            self._add_block(pending[:used])
            self._pending = ""
            self._finish_block()
            return pending[used:]
        self._pending = ""
        return self._reject("is not closed by </tool_call> after its JSON", pending)

    def _finish_block(self) -> None:
        block = "".join(self._block)
        json_text = block[self._json_start : self._json_end]
        result = _tool_calls(json_text, len(self._calls), self._notes)
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
        parser.feed(model_output if isinstance(model_output, str) else str(model_output))
        parser.close()
        message = parser.message
        assert message is not None
        return message

    def stream_parser(self, chat_completion: RequestLike | None = None) -> StreamParser:
        return Granite4StreamParser()
