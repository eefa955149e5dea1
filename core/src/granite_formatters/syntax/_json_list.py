"""JSON-list tool calls: ``<|tool_call|>[{"name": …, "arguments": …}, …]``.

Granite 3.x models call tools by writing the ``<|tool_call|>`` token and one JSON list
of ``{"name", "arguments"}`` objects (no closing marker: the body ends where the JSON
ends). Read from output: after the marker and optional whitespace a JSON list (or one
object) is scanned to its end and decoded (OpenAI-shaped items and arguments given as
a JSON string are accepted). Written into history as the model writes it: the turn's
text, the marker, then the compact JSON list with each call's arguments decoded.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from .. import _jsonscan as jsonscan
from .._errors import InvalidRequestError, quote
from .._toolcalljson import NUMBERS_KEPT, call_arguments, decode_json, repaired_call
from ._json_body import JsonBody

if TYPE_CHECKING:
    from .._types import ToolCall
    from ._protocols import HistoryCall, HistoryWriter

__all__ = ["JSON_LIST", "JsonList", "decode_json_list", "json_list_call_name"]

#: The keys of an OpenAI-shaped item (``{"id", "type", "function": {...}}``) read
#: outside its function object.
_WRAPPER_KEYS = ("id", "type", "function")


def _depth_within(value: Any, limit: int) -> bool:
    """Whether ``value`` (decoded JSON) nests at most ``limit`` containers deep."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > limit:
                return False
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return True


def _decoded_arguments(value: Any, notes: list[str]) -> Any:
    """Arguments given as a JSON object or list string, decoded (else as they are)."""
    if (
        isinstance(value, str)
        and len(value) <= jsonscan.MAX_JSON_CHARS
        and value.lstrip().startswith(("{", "["))
    ):
        try:
            decoded, odd = decode_json(value)
        except (ValueError, RecursionError):
            return value
        if not _depth_within(decoded, jsonscan.MAX_JSON_DEPTH):
            notes.append(
                f"tool call arguments nested deeper than {jsonscan.MAX_JSON_DEPTH} levels are kept "
                "as their JSON string"
            )
            return value
        if odd:
            notes.append(f"the tool-call arguments: {NUMBERS_KEPT}")
        return decoded
    return value


def json_list_call_name(item: Any) -> str | None:
    """The call's name when ``item`` (decoded JSON) is shaped like a tool call (flat or
    OpenAI-wrapped, with a non-blank string name), else ``None``."""
    if not isinstance(item, dict):
        return None
    function = item.get("function")
    body = function if isinstance(function, dict) else item
    name = body.get("name")
    return name if isinstance(name, str) and name.strip() else None


def _one_call(
    item: dict[str, Any], index: int, new_id: Callable[[], str], notes: list[str]
) -> ToolCall:
    from granite_formatters._types import ToolCall

    function = item.get("function")
    body = function if isinstance(function, dict) else item
    name = body["name"]
    where = f"tool call {index} ({name[:40]})"
    if body is item:
        raw_arguments = call_arguments(item, where, notes)
    else:
        unread = [key for key in item if key not in _WRAPPER_KEYS]
        raw_arguments = call_arguments(body, where, notes, read=("name",), also_unread=unread)
    arguments = _decoded_arguments(raw_arguments, notes)
    given_id = item.get("id")
    call_id = given_id if isinstance(given_id, str) and given_id else ""
    name, call_id, arguments = repaired_call([name, call_id, arguments], notes)
    return ToolCall(id=call_id or new_id(), name=name, arguments=arguments)


def decode_json_list(
    json_text: str,
    first_index: int,
    notes: list[str],
    new_id: Callable[[], str],
    *,
    bare: bool = False,
) -> list[ToolCall] | str:
    """The calls of one ``<|tool_call|>`` body (numbered from ``first_index``), or why
    there are none.

    A single object stands for a list of one, except with ``bare`` (JSON met without
    the marker before it), which accepts only a non-empty list. Every item must be
    shaped like a call (:func:`json_list_call_name`). What had to be repaired goes to
    ``notes`` (only when the calls are returned).
    """
    try:
        value, odd = decode_json(json_text)
    except (ValueError, RecursionError) as exc:
        return f"not valid JSON ({str(exc)[:80]})"
    if isinstance(value, dict) and not bare:
        value = [value]
    if not isinstance(value, list) or (bare and not value):
        return "not a list of tool calls"
    for offset, item in enumerate(value):
        if json_list_call_name(item) is None:
            return f"item {offset} is not a tool call object with a string 'name'"
    found: list[str] = []
    calls = [
        _one_call(item, first_index + offset, new_id, found) for offset, item in enumerate(value)
    ]
    if odd:
        notes.append(f"the tool-call JSON: {NUMBERS_KEPT}")
    notes.extend(found)
    return calls


def _history_arguments(arguments: Any, field: str) -> Any:
    """A history call's arguments as written: a JSON string decoded, null or a blank
    string as ``{}`` (a call without arguments)."""
    if arguments is None:
        return {}
    if isinstance(arguments, str):
        if not arguments.strip():
            return {}
        try:
            return json.loads(arguments)
        except (ValueError, RecursionError):
            raise InvalidRequestError(
                f"the arguments must be a JSON string (as OpenAI sends them), not "
                f"{quote(arguments)}",
                field=field,
            ) from None
    return arguments


@attrs.frozen
class JsonList(JsonBody):
    """The JSON-list tool-call syntax (implements
    :class:`~granite_formatters.syntax.ToolCallSyntax`).

    :attr:`close` is empty: a body ends where its JSON ends. :attr:`bare_body`: a JSON
    list at the very start of the output is read as calls too when the request offered
    tools (a server that drops special tokens drops the marker).
    """

    open: str = "<|tool_call|>"
    close: str = ""
    bare_body: str = "["

    def body_start(self, char: str) -> str | None:
        return None if char in "[{" else "is not followed by JSON"

    def not_closed_note(self) -> str:
        return "is not a whole JSON value"  # (unused: no close marker to miss)

    def unfinished_note(self) -> str:
        return "is cut off"

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
        """See :class:`~granite_formatters.syntax.ToolCallSyntax`; ``bare`` (a body met
        without its marker) accepts only a non-empty list."""
        del tools  # (the JSON carries its own types)
        return decode_json_list(body, first_index, notes, new_id, bare=bare)

    def write(self, text: str, calls: Iterable[HistoryCall], writer: HistoryWriter) -> str:
        """``text``, the open marker, then ``[{"name": NAME, "arguments": ARGS}, …]`` as
        compact JSON: string arguments decoded (they must be JSON), null or blank
        arguments written as ``{}``."""
        items = []
        for call in calls:
            item = {
                "name": call.name,
                "arguments": _history_arguments(call.arguments, f"{call.field}.arguments"),
            }
            items.append(writer.json(item, call.field))
        return text + self.open + "[" + ", ".join(items) + "]"


#: ``<|tool_call|>`` JSON lists (Granite 3.x).
JSON_LIST = JsonList()
