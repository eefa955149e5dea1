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

import itertools
import json
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import attrs

from .._errors import InvalidRequestError, quote
from .._toolcalljson import NUMBERS_KEPT, decode_json

if TYPE_CHECKING:
    from .._types import ToolCall
    from ._protocols import HistoryCall, HistoryWriter

__all__ = ["XML_FUNCTIONS", "ToolSchemas", "XmlBlockReader", "XmlFunctions", "decode_arguments"]

_FUNCTION = "<function="
_FUNCTION_END = "</function>"
_PARAMETER = "<parameter="
_PARAMETER_END = "</parameter>"
#: The block's close marker, read as the end of a ``<function=…>`` that lacks its own.
_CLOSE = "</tool_call>"
_BLANK = " \t\r\n"
_NON_BLANK = re.compile(r"[^ \t\r\n]")
#: A block body longer than this is not read to its end (as for JSON blocks).
_MAX_BODY_CHARS = 1_000_000
#: The tags that end a body, and how far back one may start before a chunk's end.
_BODY_END = re.compile("</function>|</tool_call>")
_END_REACH = len("</tool_call>") - 1
#: A body of at most this many characters that arrives whole is read by ``str.find``.
_WHOLE_CHARS = 4096

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
_FUNCTION_TAG, _FUNCTION_NAME, _TAG, _PARAMETER_NAME, _VALUE = range(5)


class XmlBlockReader:
    """Finds where the body of one block ends: one ``<function=…>`` element, read one
    chunk at a time (implements :class:`~granite_formatters.syntax.BlockReader`).

    A value ends at a ``</parameter>`` followed (after whitespace) by ``<parameter=``,
    ``</function>`` or ``</tool_call>``; any other ``</parameter>`` is part of the value
    (files that hold the markup). A ``</tool_call>`` where ``</function>`` may come ends
    the element and the block (:attr:`closed`: the model left ``</function>`` out). Only
    the structure is checked here; names and values are read by
    :meth:`XmlFunctions.decode`, which splits the body by the same rule (or takes the
    split from :data:`_last_walked` when this reader read the element whole).
    """

    __slots__ = (
        "_after_value",
        "_matched",
        "_state",
        "_tag",
        "closed",
        "consumed",
        "error",
        "stop",
    )

    def __init__(self) -> None:
        self._state = _FUNCTION_TAG
        self._tag = _FUNCTION  # the literal being matched in _FUNCTION_TAG / _TAG
        self._matched = 0  # how much of it (or of "</parameter>" in _VALUE) is matched
        self._after_value = False  # (_TAG: a "</parameter>" came before: no error)
        #: Whether the body ended with the block's close marker (no ``</function>``).
        self.closed = False
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

    def holds(self, chunk: str, held: Sequence[str]) -> bool:
        """Whether ``chunk`` may wait unread after ``held``: no ``</function>`` or
        ``</tool_call>`` (the tags that end the body) ends in it."""
        if ">" not in chunk:
            return True
        before = "".join(held[-_END_REACH:])[-_END_REACH:]
        return _BODY_END.search(before + chunk) is None

    def _fail(self, reason: str, pos: int) -> None:
        self.error = reason
        self.stop = pos

    def scan(self, text: str, pos: int = 0) -> int | None:
        """Consume ``text[pos:]``; the index just after ``</function>`` once read.

        A fresh reader first tries the element whole (:func:`_walk`, within
        :data:`_WHOLE_CHARS` characters: bounded work per block, so reading stays
        linear); the steady case of a batch parse. What it read is kept in
        :data:`_last_walked` for :meth:`XmlFunctions.decode`.
        """
        global _last_walked
        if not self.consumed and self._state == _FUNCTION_TAG and not self._matched:
            walked = _walk(text, pos, min(len(text), pos + _WHOLE_CHARS))
            if walked is not None:
                end, name, pairs, closed = walked
                _last_walked = (text[pos:end], name, pairs, closed)
                self.consumed = end - pos
                self.stop = end
                self.closed = closed
                return end
        start = pos
        end = min(len(text), pos + _MAX_BODY_CHARS - self.consumed)
        result = self._scan(text, pos, end)
        if result is None and self.error is None and end < len(text):
            self._fail(f"is longer than {_MAX_BODY_CHARS} characters", end)
        self.consumed += (result if result is not None else self.stop) - start
        return result

    def _back_to_value(self, matched: str) -> None:
        """A tag after ``</parameter>`` did not follow: the value goes on, ``matched``
        (the tag's start, read so far) being part of it."""
        self._state = _VALUE
        self._matched = len(matched) if _PARAMETER_END.startswith(matched) else 0

    def _scan(self, text: str, pos: int, end: int) -> int | None:
        while pos < end:
            state = self._state
            if state == _VALUE:
                if self._matched:
                    # (a "</parameter>" cut by the chunk: its rest, character by character)
                    if text[pos] == _PARAMETER_END[self._matched]:
                        pos += 1
                        self._matched += 1
                        if self._matched == len(_PARAMETER_END):
                            self._matched = 0
                            self._state = _TAG
                            self._after_value = True
                    else:
                        self._matched = 0
                    continue
                close = text.find(_PARAMETER_END, pos, end)
                if close < 0:
                    less = text.rfind("<", max(pos, end - len(_PARAMETER_END) + 1), end)
                    if less >= 0 and _PARAMETER_END.startswith(text[less:end]):
                        self._matched = end - less
                    pos = end
                    break
                pos = close + len(_PARAMETER_END)
                self._state = _TAG
                self._after_value = True
            elif state == _TAG and not self._matched:
                found = _NON_BLANK.search(text, pos, end)
                if found is None:
                    pos = end
                    break
                pos = found.start()
                if text[pos] != "<":
                    if self._after_value:
                        self._back_to_value("")
                        continue
                    self._fail("has text outside <parameter=…> in a <function=…>", pos)
                    return None
                self._matched = 1
                pos += 1
            elif state in (_FUNCTION_TAG, _TAG):
                if state == _TAG and self._matched == 1:
                    # "<p…" opens a parameter, "</…" closes the function.
                    self._tag = _PARAMETER if text[pos] == "p" else _FUNCTION_END
                tag = self._tag
                size = min(len(tag) - self._matched, end - pos)
                expected = tag[self._matched : self._matched + size]
                if text[pos : pos + size] != expected:
                    # (stopped at the first character that differs, however the text is cut)
                    wrong = next(i for i in range(size) if text[pos + i] != expected[i])
                    if tag == _FUNCTION_END and self._matched + wrong == 2:
                        # "</t…": the block's close marker may end the element instead.
                        self._tag = _CLOSE
                        pos += wrong
                        self._matched = 2
                        continue
                    if state == _TAG and self._after_value:
                        self._back_to_value(tag[: self._matched + wrong])
                        pos += wrong
                        continue
                    self._fail(f"is not {tag!r} where that tag is expected", pos + wrong)
                    return None
                pos += size
                self._matched += size
                if self._matched < len(tag):
                    break
                self._matched = 0
                if tag in (_FUNCTION_END, _CLOSE):
                    self.closed = tag == _CLOSE
                    self.stop = pos
                    return pos
                self._state = _FUNCTION_NAME if tag == _FUNCTION else _PARAMETER_NAME
            else:  # _FUNCTION_NAME, _PARAMETER_NAME
                found = _NAME_BREAKING.search(text, pos, end)
                if found is None:
                    pos = end
                    break
                pos = found.end()
                if found.group(0) != ">":
                    self._fail("has a name that is not closed by '>' on its line", found.start())
                    return None
                self._state = _TAG if state == _FUNCTION_NAME else _VALUE
                self._after_value = False
        self.stop = pos
        return None


# The JSON schema type names (and the aliases vLLM's qwen3_coder reader accepts) a
# parameter may declare, by the kind of value read.
_KIND_OF = {
    **dict.fromkeys(("string", "str", "text", "varchar", "char", "enum"), "string"),
    **dict.fromkeys(("integer", "int", "uint", "long", "short", "unsigned"), "integer"),
    **dict.fromkeys(("number", "num", "float", "double"), "number"),
    **dict.fromkeys(("boolean", "bool", "binary"), "boolean"),
    **dict.fromkeys(("object", "dict"), "object"),
    **dict.fromkeys(("array", "arr", "list"), "array"),
    "null": "null",
}
_MAX_SCHEMA_DEPTH = 8
#: The kinds of a ``string`` parameter (its text is its value).
_TEXT = ("string",)
#: A ``$ref`` (a definition elsewhere): JSON objects and arrays are read, else text.
_REFERENCE = ("object", "array", "string")


def _kinds(schema: Any, depth: int = 0) -> tuple[str, ...]:
    """The kinds of value a parameter schema admits, in the order it declares them:
    its ``type`` (a name or a list), the branches of ``anyOf`` / ``oneOf``, ``null``
    for ``nullable: true``. ``()``: anything (no type, an unknown one, ``{}``)."""
    if (type(schema) is not dict and not isinstance(schema, Mapping)) or depth > _MAX_SCHEMA_DEPTH:
        return ()
    found: list[str] = []
    declared = schema.get("type")
    names = [declared] if isinstance(declared, str) else declared
    if isinstance(names, (list, tuple)):
        for name in names:
            kind = _KIND_OF.get(name.strip().lower()) if isinstance(name, str) else None
            if kind is None:
                return ()
            found.append(kind)
    elif declared is not None:
        return ()
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if isinstance(branches, (list, tuple)):
            for branch in branches:
                kinds = _kinds(branch, depth + 1)
                if not kinds:
                    return ()
                found += kinds
    if not found and isinstance(schema.get("$ref"), str):
        found += _REFERENCE
    if found and schema.get("nullable") is True:
        found.append("null")
    return tuple(dict.fromkeys(found))


def _number(text: str) -> tuple[Any, str | None]:
    try:
        value = json.loads(text)
    except ValueError:
        return text, "has too many digits to be read as a number; kept as text"
    if isinstance(value, float) and math.isinf(value):
        return text, "is out of the range of a JSON number; kept as text"
    return value, None


def _convert(text: str, kinds: tuple[str, ...]) -> tuple[Any, str | None]:
    """``text`` read as the first of ``kinds`` it fits: ``(value, None)``, or
    ``(text, why it is kept as text)``.

    A nullable parameter reads ``null`` (any case) and ``None`` (Python's ``str()``,
    as the template writes it) as null; ``string`` keeps any text.
    """
    if "null" in kinds and (text == "None" or text.lower() == "null"):
        return None, None
    problem: str | None = None
    for kind in kinds:
        if kind == "string":
            return text, None
        if kind == "integer" and _INTEGER.fullmatch(text):
            try:
                return int(text), None
            except ValueError:
                problem = "has too many digits to be read as a number; kept as text"
        elif kind == "number" and _NUMBER.fullmatch(text):
            value, problem = _number(text)
            if problem is None:
                return value, None
        elif kind == "boolean" and text.lower() in ("true", "false"):
            return text.lower() == "true", None
        elif kind in ("object", "array") and text[:1] in "{[":
            try:
                value, odd = decode_json(text)
            except (ValueError, RecursionError):
                continue
            if isinstance(value, dict if kind == "object" else list):
                return value, ("is read, but its " + NUMBERS_KEPT) if odd else None
    if problem is None:
        problem = "is not of type " + " or ".join(map(quote, kinds)) + "; kept as text"
    return text, problem


class ToolSchemas(list):  # type: ignore[type-arg]
    """A request's tools (the list itself) with their parameters read once per output
    (:meth:`XmlFunctions.prepare_tools`): the kinds of a function's parameters are read
    when a call of it is first decoded."""

    __slots__ = ("_kinds", "_properties")

    def __init__(self, tools: Sequence[Any]) -> None:
        super().__init__(tools)
        self._properties = _properties(tools)
        self._kinds: dict[str, dict[str, tuple[str, ...]]] = {}

    @property
    def offered(self) -> bool:
        """Whether the request offers any function."""
        return bool(self._properties)

    def kinds(self, name: str) -> dict[str, tuple[str, ...]] | None:
        """``{parameter: the kinds it admits}`` of the function ``name`` (``None``: the
        request does not offer it)."""
        found = self._kinds.get(name)
        if found is None:
            properties = self._properties.get(name)
            if properties is None:
                return None
            found = self._kinds[name] = {str(key): _kinds(value) for key, value in properties}
        return found


def _properties(tools: Sequence[Any] | None) -> dict[str, list[tuple[Any, Any]]]:
    """``{function name: its parameters' (name, schema) pairs}`` of a request's tools."""
    found: dict[str, list[tuple[Any, Any]]] = {}
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
            found[name] = list(properties.items()) if isinstance(properties, Mapping) else []
    return found


def _one_newline_off(text: str) -> str:
    """A value without the one newline the format writes on each side of it."""
    if text.startswith("\n"):
        text = text[1:]
    return text[:-1] if text.endswith("\n") else text


#: What a ``</parameter>`` that ends a value is followed by (after whitespace).
_FOLLOWERS = (_PARAMETER, _FUNCTION_END, _CLOSE)


def _tag_end(text: str, pos: int, limit: int) -> int | None:
    """The index after the ``>`` that closes the name at ``pos`` on its line, if any."""
    found = _NAME_BREAKING.search(text, pos, limit)
    return found.end() if found is not None and found.group() == ">" else None


def _walk(text: str, pos: int, limit: int) -> tuple[int, str, list[tuple[str, str]], bool] | None:
    """The element at ``text[pos:]`` read whole by ``str.find`` (no state kept): the
    index just after its ``</function>`` (or the ``</tool_call>`` that stands for it),
    its name, its raw ``(key, value)`` pairs and whether ``</tool_call>`` ended it;
    ``None`` when it is not complete and well formed within ``text[:limit]``.

    Where it returns an element, :class:`XmlBlockReader` ends at the same index with no
    error (the same rule, read from the whole text: a value ends at the first
    ``</parameter>`` that ``<parameter=`` or ``</function>`` follows after whitespace).
    """
    if not text.startswith(_FUNCTION, pos, limit):
        return None
    at = _tag_end(text, pos + len(_FUNCTION), limit)
    if at is None:
        return None
    name = text[pos + len(_FUNCTION) : at - 1]
    pairs: list[tuple[str, str]] = []
    while True:
        found = _NON_BLANK.search(text, at, limit)
        if found is None:
            return None
        at = found.start()
        if text.startswith(_FUNCTION_END, at, limit):
            return at + len(_FUNCTION_END), name, pairs, False
        if text.startswith(_CLOSE, at, limit):
            return at + len(_CLOSE), name, pairs, True
        if not text.startswith(_PARAMETER, at, limit):
            return None
        value_start = search = _tag_end(text, at + len(_PARAMETER), limit)
        if value_start is None:
            return None
        key = text[at + len(_PARAMETER) : value_start - 1]
        while True:
            close = text.find(_PARAMETER_END, search, limit)
            if close < 0:
                return None
            found = _NON_BLANK.search(text, close + len(_PARAMETER_END), limit)
            if found is None:
                return None
            if text.startswith(_FOLLOWERS, found.start()):
                break
            search = close + 1
        pairs.append((key, text[value_start:close]))
        at = close + len(_PARAMETER_END)


#: The element an :class:`XmlBlockReader` last read whole: ``(its text, its name, its
#: raw (key, value) pairs, whether </tool_call> ended it)``. The parser decodes a block
#: as soon as its reader has ended it, so :func:`_read_function` takes the split from
#: here when the body is that text, rather than splitting it again. (Any other body,
#: read in pieces or by another thread meanwhile, is split anew: the same rule, the same
#: result.) Kept here, not on the reader: ``ToolCallSyntax.decode`` is given the body.
_last_walked: tuple[str, str, list[tuple[str, str]], bool] | None = None


def _read_function(body: str) -> tuple[str, list[tuple[str, str]], bool] | str:
    """The name, raw ``(key, value)`` pairs and whether ``</function>`` was left out, of
    the element the reader delimited."""
    last = _last_walked
    if last is not None and last[0] == body:
        _text, name, pairs, closed = last
    else:
        walked = _walk(body, body.index(_FUNCTION), len(body))
        assert walked is not None  # (the reader accepted it: the same rule)
        _end, name, pairs, closed = walked
    name = name.strip()
    if not name:
        return "its function name is empty"
    return name, [(key.strip(), value) for key, value in pairs], closed


def _split_values(
    pairs: list[tuple[str, str]],
    kinds_of: Mapping[str, Any] | None,
    label: str,
    notes: list[str],
) -> list[tuple[str, str]] | str:
    """``pairs`` with each value that holds ``<parameter=`` split (see
    :func:`_split_unclosed`), each split noted; or why the block is not a call."""
    found: list[tuple[str, str]] = []
    told: list[str] = []
    for key, raw in pairs:
        if _PARAMETER not in raw:
            found.append((key, raw))
            continue
        split = _split_unclosed(key, raw, kinds_of)
        if isinstance(split, str):
            return split
        found += split
        for (before, _), (after, _) in itertools.pairwise(split):
            told.append(
                f"{label}: <parameter={before}> has no </parameter>; it ends where "
                f"<parameter={after}> starts"
            )
    notes += told
    return found


# Tool-call markup that a value holding "<parameter=" makes ambiguous.
_MARKUP = ("<tool_call>", "</tool_call>", _FUNCTION, _FUNCTION_END, _PARAMETER_END)
_INNER_PARAMETER = re.compile(r"\n<parameter=([^<>\n]*)>")


def _split_unclosed(
    key: str, raw: str, known: Mapping[str, Any] | None
) -> list[tuple[str, str]] | str:
    """A value holding ``<parameter=``: the parameters it holds when each is a missing
    ``</parameter>`` (the tag starts a line and names another parameter of the
    function's schema, and the value holds no other tool-call markup), else why the
    block is not read as a call."""
    refused = (
        f"the value of {quote(key)} holds <parameter=…> before its </parameter>: a "
        "</parameter> left out, or tool-call markup inside a value"
    )
    if known is None or any(tag in raw for tag in _MARKUP):
        return refused
    pieces: list[tuple[str, str]] = []
    last_key, last_start = key, 0
    for found in _INNER_PARAMETER.finditer(raw):
        inner = found.group(1).strip()
        if inner not in known or inner == last_key:
            return refused
        pieces.append((last_key, raw[last_start : found.start() + 1]))
        last_key, last_start = inner, found.end()
    if raw.count(_PARAMETER) != len(pieces):
        return refused
    pieces.append((last_key, raw[last_start:]))
    return pieces


@attrs.frozen
class XmlFunctions:
    """The XML function/parameter tool-call syntax (implements
    :class:`~granite_formatters.syntax.ToolCallSyntax`)."""

    open: str = "<tool_call>"
    close: str = "</tool_call>"

    def body_start(self, char: str) -> str | None:
        return None if char == "<" else "is not followed by a <function=…> element"

    bare_body: ClassVar[str] = ""

    def reader(self) -> XmlBlockReader:
        return XmlBlockReader()

    def reader_note(self, error: str) -> str:
        return error  # (the reader's own words: they name tags)

    def not_closed_note(self) -> str:
        return f"is not closed by {self.close} after its </function>"

    def unfinished_note(self) -> str:
        return f"is not closed by {self.close}"

    def prepare_tools(self, tools: Sequence[Mapping[str, Any]] | None) -> ToolSchemas | None:
        """The request's tools as :meth:`decode` reads them, their parameters' kinds
        read once (the parser calls this once per output)."""
        return None if tools is None else ToolSchemas(tools)

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
        """The one call of a block, its values typed by the tool's parameter schema.

        A value whose declared type it does not fit stays a string (with a note); a
        function the request does not offer keeps every value a string (with a note),
        as does a request without tools.
        """
        # (Absolute imports: a relative one in a function costs about twice as much.)
        from granite_formatters._toolcalljson import repaired_call
        from granite_formatters._types import ToolCall

        found = _read_function(body)
        if isinstance(found, str):
            return found
        name, pairs, closed = found
        label = f"tool call {first_index} ({quote(name)})"
        schemas = tools if isinstance(tools, ToolSchemas) else ToolSchemas(tools or ())
        kinds_of = schemas.kinds(name)
        if body.count(_PARAMETER) != len(pairs):  # (a value holds "<parameter=")
            split = _split_values(pairs, kinds_of, label, notes)
            if isinstance(split, str):
                return split
            pairs = split
        if closed:
            notes.append(f"{label}: </tool_call> came where </function> was due")
        if kinds_of is None and schemas.offered:
            notes.append(f"{label}: not one of the request's tools; its values are kept as text")
        arguments: dict[str, Any] = {}
        for key, raw in pairs:
            value = _one_newline_off(raw)
            kinds = kinds_of.get(key) if kinds_of is not None else None
            if kinds and kinds != _TEXT:
                value, problem = _convert(value, kinds)
                if problem is not None:
                    notes.append(f"{label}: the value of {quote(key)} {problem}")
            if key in arguments:
                notes.append(
                    f"{label}: the parameter {quote(key)} is given twice; the last is kept"
                )
            arguments[key] = value
        # (Lone surrogates: the shared rule of granite_formatters._toolcalljson. Text
        # can hold one only when it is not ASCII or a JSON value has a \u escape.)
        if not body.isascii() or "\\u" in body:
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
