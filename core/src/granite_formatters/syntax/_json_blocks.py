"""JSON tool-call blocks: ``<tool_call>\\n{"name": …, "arguments": …}\\n</tool_call>``.

Granite 4.0/4.1 write each call as one such block. Read from output: after the open
marker and optional whitespace a JSON object (or an array of them) is scanned to its end
(a ``</tool_call>`` inside a JSON string does not end it), then optional whitespace and
the close marker. Written into history exactly as the official templates do.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from .._errors import quote
from .._toolcalljson import NUMBERS_KEPT, call_arguments, decode_json, repaired_call
from ._json_body import JsonBody

if TYPE_CHECKING:
    from .._types import ToolCall
    from ._protocols import HistoryCall, HistoryWriter

__all__ = ["JSON_BLOCKS", "JsonBlocks", "decode_json_block"]

_JSON_BREAKING = frozenset('"\\') | {chr(code) for code in range(0x20)}


@functools.cache
def _tool_call_class() -> type[ToolCall]:
    # (Imported on first use: the syntaxes load without pydantic. Cached: an import
    # statement in a function costs more than the rest of a small block's decoding.)
    from .._types import ToolCall

    return ToolCall


def decode_json_block(
    json_text: str, first_index: int, notes: list[str], new_id: Callable[[], str]
) -> list[ToolCall] | str:
    """The calls in one block's JSON (numbered from ``first_index``), or why there are none.

    Arguments written as a JSON-encoded string are decoded once (so
    :meth:`~granite_formatters._types.ToolCall.to_openai` never double-encodes them);
    a string that is not JSON is kept, with a note.
    """
    tool_call = _tool_call_class()
    try:
        value, odd = decode_json(json_text)
    except (ValueError, RecursionError) as exc:
        return f"its JSON is invalid ({str(exc)[:80]})"
    # Decoded JSON can hold a lone surrogate only from a non-ASCII text or a \u escape.
    plain = json_text.isascii() and "\\u" not in json_text
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
        # What is read from the object, and the notes, are the shared rule of
        # granite_formatters._toolcalljson: "parameters" when there is no "arguments",
        # a note for keys not read, lone surrogates replaced.
        arguments = call_arguments(item, f"tool call {index} ({name[:40]})", notes)
        if isinstance(arguments, str):
            try:
                arguments, odd_string = decode_json(arguments)
                odd = odd or odd_string
            except (ValueError, RecursionError):
                notes.append(
                    f"tool call {index} ({name}): the arguments are a string that is not "
                    "JSON; kept as the string"
                )
        given_id = item.get("id")
        call_id = given_id if isinstance(given_id, str) and given_id else ""
        if not plain:
            name, call_id, arguments = repaired_call([name, call_id, arguments], notes)
        calls.append(tool_call(id=call_id or new_id(), name=name, arguments=arguments))
    if odd:
        notes.append(f"the tool-call JSON: {NUMBERS_KEPT}")
    return calls


@attrs.frozen
class JsonBlocks(JsonBody):
    """The JSON block tool-call syntax (implements
    :class:`~granite_formatters.syntax.ToolCallSyntax`)."""

    open: str = "<tool_call>"
    close: str = "</tool_call>"

    def body_start(self, char: str) -> str | None:
        return None if char in "{[" else "is not followed by a JSON object"

    def not_closed_note(self) -> str:
        return f"is not closed by {self.close} after its JSON"

    def unfinished_note(self) -> str:
        return f"is not closed by {self.close}"

    def decode(
        self,
        body: str,
        first_index: int,
        notes: list[str],
        new_id: Callable[[], str],
        tools: Sequence[Mapping[str, Any]] | None,
        *,
        bare: bool = False,
    ) -> list[ToolCall] | str:
        del tools, bare  # (the JSON carries its own types; no bare bodies)
        return decode_json_block(body, first_index, notes, new_id)

    def write(self, text: str, calls: Iterable[HistoryCall], writer: HistoryWriter) -> str:
        """``text``, then per call a newline (unless first after empty text) and
        ``<tool_call>\\n{"name": "NAME", "arguments": ARGS}\\n</tool_call>``: the name
        printed as it is, string arguments verbatim, others as JSON."""
        out = [text]
        for number, call in enumerate(calls):
            name = call.name
            if not call.name_reported and not _JSON_BREAKING.isdisjoint(name):
                writer.problem(
                    f"the name {quote(name)} contains a quote, backslash or control character, "
                    "which the template prints unescaped into the call's JSON.",
                    f"{call.field}.name",
                )
            name = writer.text(name, f"{call.field}.name")
            arguments = call.arguments
            if isinstance(arguments, str):
                args_text = writer.text(arguments, f"{call.field}.arguments")
            else:
                args_text = writer.json(arguments, f"{call.field}.arguments")
            if number or text:
                out.append("\n")
            out += (
                self.open,
                '\n{"name": "',
                name,
                '", "arguments": ',
                args_text,
                "}\n",
                self.close,
            )
        return "".join(out)


#: ``<tool_call>`` JSON blocks (Granite 4.0, 4.1).
JSON_BLOCKS = JsonBlocks()
