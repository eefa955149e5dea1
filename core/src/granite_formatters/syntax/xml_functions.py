"""XML function/parameter tool calls: ``<tool_call><function=F><parameter=P>V</parameter>…``.

Granite 4.2 (and Qwen3-Coder, Nemotron 3) write one call per block::

    <tool_call>
    <function=get_weather>
    <parameter=city>
    Paris
    </parameter>
    </function>
    </tool_call>

Values are raw text: written as JSON for objects and lists and as Python's ``str()``
otherwise (as the templates print them), read back typed by the request's tool schema.
The specification is in ``docs/granite42.md``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from ..errors import InvalidRequestError, quote

if TYPE_CHECKING:
    from ..types import ToolCall
    from .protocols import HistoryCall, HistoryWriter

__all__ = ["XML_FUNCTIONS", "XmlBlockReader", "XmlFunctions", "decode_arguments"]

_FUNCTION = "<function="
_FUNCTION_END = "</function>"
_PARAMETER = "<parameter="
_PARAMETER_END = "</parameter>"
_BLANK = " \t\r\n"
_NON_BLANK = re.compile(r"[^ \t\r\n]")
#: A block body longer than this is not read to its end (as for JSON blocks).
_MAX_BODY_CHARS = 1_000_000

# JSON's number grammar: what an "integer" or "number" parameter may read.
_INTEGER = re.compile(r"-?(?:0|[1-9][0-9]*)")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_NAME_BREAKING = re.compile(r"[<>\n]")

# --------------------------------------------------------------------------- writing


def decode_arguments(arguments: Any, field: str) -> Mapping[str, Any]:
    """A history call's ``arguments`` as the object the template iterates.

    OpenAI clients send a JSON string, which servers (vLLM) decode before rendering:
    a string must hold a JSON object. Anything else that is not an object is an
    :class:`InvalidRequestError` naming ``field`` (the template cannot render it).
    """
    if type(arguments) is dict or (type(arguments) is not str and isinstance(arguments, Mapping)):
        return arguments
    if isinstance(arguments, str):
        try:
            decoded = json.loads(arguments)
        except (ValueError, RecursionError):
            decoded = None
        if isinstance(decoded, dict):
            return decoded
        raise InvalidRequestError(
            f"must be a JSON object or a string holding one, not {quote(arguments)}", field=field
        )
    raise InvalidRequestError(
        f"must be a JSON object or a string holding one, not {quote(arguments)}", field=field
    )


def _write_call(call: HistoryCall, writer: HistoryWriter) -> str:
    out = ["<tool_call>\n<function=", writer.text(call.name, f"{call.field}.name"), ">\n"]
    where = f"{call.field}.arguments"
    for key, value in decode_arguments(call.arguments, where).items():
        at = f"{where}.{key}"
        # Objects and lists as the template's tojson, anything else as Python's str().
        if type(value) is str:
            text = value
        elif isinstance(value, (Mapping, list, tuple)):
            text = writer.json(value, at)
        else:
            text = str(value)
        out += (_PARAMETER, writer.text(str(key), at), ">\n", writer.text(text, at), "\n")
        out.append(_PARAMETER_END + "\n")
    out.append("</function>\n</tool_call>\n")
    return "".join(out)


# --------------------------------------------------------------------------- reading

# What XmlBlockReader expects next.
_FUNCTION_TAG, _FUNCTION_NAME, _IN_FUNCTION, _TAG, _PARAMETER_NAME, _VALUE = range(6)


class XmlBlockReader:
    """Finds where the body of one block ends: one ``<function=…>`` element, read one
    chunk at a time (implements :class:`~granite_formatters.syntax.BlockReader`).

    Only the structure is checked here (tags, a value running to the first
    ``</parameter>``); names and values are read by :meth:`XmlFunctions.decode`.
    """

    __slots__ = ("_matched", "_state", "_tag", "consumed", "error", "stop")

    def __init__(self) -> None:
        self._state = _FUNCTION_TAG
        self._tag = _FUNCTION  # the literal being matched in _FUNCTION_TAG / _TAG / _VALUE
        self._matched = 0  # how much of it has been matched
        self.consumed = 0
        self.error: str | None = None
        self.stop = 0

    def take(self, chunk: str) -> bool:
        """Consume ``chunk`` when it only extends a value (no ``<`` in it)."""
        if (
            self._state == _VALUE
            and not self._matched
            and self.error is None
            and "<" not in chunk
            and self.consumed + len(chunk) <= _MAX_BODY_CHARS
        ):
            self.consumed += len(chunk)
            self.stop = len(chunk)
            return True
        return False

    def _fail(self, reason: str, pos: int) -> None:
        self.error = reason
        self.stop = pos

    def scan(self, text: str, pos: int = 0) -> int | None:
        """Consume ``text[pos:]``; the index just after ``</function>`` once read."""
        start = pos
        end = min(len(text), pos + _MAX_BODY_CHARS - self.consumed)
        result = self._scan(text, pos, end)
        if result is None and self.error is None and end < len(text):
            self._fail(f"is longer than {_MAX_BODY_CHARS} characters", end)
        self.consumed += (result if result is not None else self.stop) - start
        return result

    def _scan(self, text: str, pos: int, end: int) -> int | None:
        while pos < end:
            state = self._state
            if state in (_FUNCTION_TAG, _TAG):
                if state == _TAG and not self._matched:
                    found = _NON_BLANK.search(text, pos, end)
                    if found is None:
                        break
                    pos = found.start()
                    if text[pos] != "<":
                        self._fail("has text outside <parameter=…> in a <function=…>", pos)
                        return None
                    self._matched = 1
                    pos += 1
                    continue
                if state == _TAG and self._matched == 1:
                    # "<p…" opens a parameter, "</…" closes the function.
                    self._tag = _PARAMETER if text[pos] == "p" else _FUNCTION_END
                tag = self._tag
                size = min(len(tag) - self._matched, end - pos)
                expected = tag[self._matched : self._matched + size]
                if text[pos : pos + size] != expected:
                    # (stopped at the first character that differs, however the text is cut)
                    wrong = next(i for i in range(size) if text[pos + i] != expected[i])
                    self._fail(f"is not {tag!r} where that tag is expected", pos + wrong)
                    return None
                pos += size
                self._matched += size
                if self._matched < len(tag):
                    break
                self._matched = 0
                if tag == _FUNCTION_END:
                    self.stop = pos
                    return pos
                self._state = _FUNCTION_NAME if tag == _FUNCTION else _PARAMETER_NAME
            elif state in (_FUNCTION_NAME, _PARAMETER_NAME):
                found = _NAME_BREAKING.search(text, pos, end)
                if found is None:
                    pos = end
                    break
                pos = found.end()
                if found.group(0) != ">":
                    self._fail("has a name that is not closed by '>' on its line", found.start())
                    return None
                self._state = _TAG if state == _FUNCTION_NAME else _VALUE
                self._tag = _PARAMETER_END
            else:  # _VALUE: up to the first "</parameter>" (it holds no second "<")
                if self._matched:
                    size = min(len(_PARAMETER_END) - self._matched, end - pos)
                    if (
                        text[pos : pos + size]
                        == _PARAMETER_END[self._matched : self._matched + size]
                    ):
                        pos += size
                        self._matched += size
                        if self._matched == len(_PARAMETER_END):
                            self._matched = 0
                            self._state = _TAG
                        continue
                    self._matched = 0
                    continue
                less = text.find("<", pos, end)
                if less < 0:
                    pos = end
                    break
                pos = less + 1
                self._matched = 1
        self.stop = pos
        return None


def _type_names(declared: Any) -> tuple[str, ...]:
    if isinstance(declared, str):
        return (declared,)
    if isinstance(declared, (list, tuple)):
        return tuple(item for item in declared if isinstance(item, str))
    return ()


def _convert(text: str, declared: Any) -> tuple[Any, bool]:
    """``text`` typed by a JSON schema ``type``: ``(value, whether it fits)``.

    No type, or a type that admits ``string``, keeps the text.
    """
    names = _type_names(declared)
    if not names or "string" in names:
        return text, True
    for name in names:
        if name == "integer" and _INTEGER.fullmatch(text):
            return int(text), True
        if name == "number" and _NUMBER.fullmatch(text):
            return json.loads(text), True
        if name == "boolean" and text.lower() in ("true", "false"):
            return text.lower() == "true", True
        if name == "null" and text in ("null", "None"):
            return None, True
        if name in ("object", "array"):
            try:
                value = json.loads(text)
            except (ValueError, RecursionError):
                continue
            if isinstance(value, dict if name == "object" else list):
                return value, True
    return text, False


def _schemas(tools: Sequence[Any] | None) -> dict[str, Mapping[str, Any]]:
    """``{function name: its parameters' properties}`` of a request's tools."""
    found: dict[str, Mapping[str, Any]] = {}
    for tool in tools or ():
        if not isinstance(tool, Mapping):
            continue
        function = tool.get("function")
        if isinstance(function, Mapping):
            tool = function
        name = tool.get("name")
        parameters = tool.get("parameters")
        properties = parameters.get("properties") if isinstance(parameters, Mapping) else None
        if isinstance(name, str):
            found[name] = properties if isinstance(properties, Mapping) else {}
    return found


def _one_newline_off(text: str) -> str:
    """A value without the one newline the format writes on each side of it."""
    if text.startswith("\n"):
        text = text[1:]
    return text[:-1] if text.endswith("\n") else text


def _read_function(body: str) -> tuple[str, list[tuple[str, str]]] | str:
    """The name and raw ``(key, value)`` pairs of the element the reader delimited."""
    start = body.index(_FUNCTION) + len(_FUNCTION)
    head_end = body.index(">", start)
    name = body[start:head_end].strip()
    if not name:
        return "its function name is empty"
    pairs: list[tuple[str, str]] = []
    pos = head_end + 1
    while True:
        pos = body.index("<", pos)
        if body.startswith(_FUNCTION_END, pos):
            return name, pairs
        key_start = pos + len(_PARAMETER)
        key_end = body.index(">", key_start)
        value_end = body.index(_PARAMETER_END, key_end)
        pairs.append((body[key_start:key_end].strip(), body[key_end + 1 : value_end]))
        pos = value_end + len(_PARAMETER_END)


@attrs.frozen
class XmlFunctions:
    """The XML function/parameter tool-call syntax (implements
    :class:`~granite_formatters.syntax.ToolCallSyntax`)."""

    open: str = "<tool_call>"
    close: str = "</tool_call>"

    def body_start(self, char: str) -> str | None:
        return None if char == "<" else "is not followed by a <function=…> element"

    def reader(self) -> XmlBlockReader:
        return XmlBlockReader()

    def decode(
        self,
        body: str,
        first_index: int,
        notes: list[str],
        new_id: Callable[[], str],
        tools: Sequence[Mapping[str, Any]] | None,
    ) -> list[ToolCall] | str:
        """The one call of a block, its values typed by the tool's parameter schema.

        A value whose declared type it does not fit stays a string (with a note); a
        function the request does not offer keeps every value a string (with a note),
        as does a request without tools.
        """
        # (Absolute imports: a relative one in a function costs about twice as much.)
        from granite_formatters.toolcalljson import repaired_call
        from granite_formatters.types import ToolCall

        found = _read_function(body)
        if isinstance(found, str):
            return found
        name, pairs = found
        label = f"tool call {first_index} ({quote(name)})"
        schemas = _schemas(tools)
        properties = schemas.get(name)
        if properties is None and schemas:
            notes.append(f"{label}: not one of the request's tools; its values are kept as text")
        arguments: dict[str, Any] = {}
        for key, raw in pairs:
            value = _one_newline_off(raw)
            schema = properties.get(key) if properties is not None else None
            if isinstance(schema, Mapping):
                declared = schema.get("type")
                value, fits = _convert(value, declared)
                if not fits:
                    notes.append(
                        f"{label}: the value of {quote(key)} is not of type {quote(declared)}; "
                        "kept as text"
                    )
            if key in arguments:
                notes.append(
                    f"{label}: the parameter {quote(key)} is given twice; the last is kept"
                )
            arguments[key] = value
        # (Lone surrogates: the shared rule of granite_formatters.toolcalljson.)
        name, arguments = repaired_call([name, arguments], notes)
        return [ToolCall(id=new_id(), name=name, arguments=arguments)]

    def write(self, text: str, calls: Iterable[HistoryCall], writer: HistoryWriter) -> str:
        """``text`` (ending in a newline or ``<think></think>``), then per call
        ``<tool_call>\\n<function=NAME>\\n``, per argument
        ``<parameter=KEY>\\nVALUE\\n</parameter>\\n``, then ``</function>\\n</tool_call>\\n``."""
        out = [text]
        for call in calls:
            out.append(_write_call(call, writer))
        return "".join(out)


#: XML function/parameter blocks (Granite 4.2).
XML_FUNCTIONS = XmlFunctions()
