"""Building blocks of the Granite 3.x prompt format, in plain Python.

The official Hugging Face chat templates of Granite 3.1, 3.2 and 3.3 are the reference
for every string produced here; this module reproduces what transformers makes of them
without running Jinja:

- :func:`tojson` is transformers' ``tojson`` filter (``json.dumps`` with
  ``ensure_ascii=False``: non-ASCII text stays as it is and ``<``, ``>``, ``&``, ``'``
  are not escaped), with a faster writer for indented output.
- :func:`format_date` is ``strftime('%B %d, %Y')`` with English month names whatever the
  process locale; :func:`current_date` is the clock read when no date is given.
- :func:`turn` and :func:`generation_prompt` are the turn and assistant-header formats.
- :class:`SpecialTokens` finds and removes special tokens in caller text (one compiled
  alternation, linear time); :func:`sanitize` applies it to a whole request.

The point-release formatters are built from these pieces by
:class:`granite_formatters.granite3.input.Granite3InputProcessor`.
"""

from __future__ import annotations

import datetime
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from json.encoder import encode_basestring
from typing import TYPE_CHECKING, Any, Literal

from ..errors import InvalidRequestError
from ..types import coerce_request
from .types import Granite3ChatCompletion

if TYPE_CHECKING:
    from ..processors import RequestLike

__all__ = [
    "MAX_JSON_NESTING",
    "JSONNestingError",
    "END_OF_ROLE",
    "END_OF_TEXT",
    "GRANITE3_SPECIAL_TOKENS",
    "MONTH_NAMES",
    "SANITIZE_PARTS",
    "START_OF_ROLE",
    "TOOL_CALL",
    "SpecialTokenPolicy",
    "SpecialTokens",
    "current_date",
    "find_special_token_in_json",
    "format_date",
    "generation_prompt",
    "sanitize",
    "remove_special_tokens_in_json",
    "tojson",
    "turn",
]

START_OF_ROLE = "<|start_of_role|>"
END_OF_ROLE = "<|end_of_role|>"
END_OF_TEXT = "<|end_of_text|>"
TOOL_CALL = "<|tool_call|>"

#: English month names, as ``%B`` prints them under the C locale.
MONTH_NAMES = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)

#: What to do with special tokens found in caller-supplied text: reject the request
#: (``"error"``), delete them (``"strip"``) or render them verbatim (``"keep"``).
SpecialTokenPolicy = Literal["error", "strip", "keep"]
SPECIAL_TOKEN_POLICIES: tuple[str, ...] = ("error", "strip", "keep")

#: The request parts :func:`sanitize` can clean.
SANITIZE_PARTS = ("messages", "tools", "documents")


# --------------------------------------------------------------------------- dates


def current_date() -> datetime.date:
    """Today's date in local time: the clock a formatter reads when no date is given.

    Read at every call (never cached). Tests replace this function to move the clock.
    """
    return datetime.date.today()


def format_date(day: datetime.date) -> str:
    """``day`` as the templates print it: ``strftime('%B %d, %Y')``, e.g. ``April 06, 2025``.

    The month name is English whatever the process locale; the day is zero-padded.
    """
    return MONTH_NAMES[day.month - 1] + _DAY_NUMBERS[day.day] + str(day.year)


_DAY_NUMBERS = tuple(f" {number:02d}, " for number in range(32))


# --------------------------------------------------------------------------- JSON

_COMPACT = json.JSONEncoder(ensure_ascii=False)
_INFINITY = float("inf")


class _Unsupported(Exception):
    """A value the fast indented writer leaves to :mod:`json`."""


def _scalar_json(value: Any) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    kind = type(value)
    if kind is int:
        return int.__repr__(value)
    if kind is float:
        if value != value:
            return "NaN"
        if value == _INFINITY:
            return "Infinity"
        if value == -_INFINITY:
            return "-Infinity"
        return float.__repr__(value)
    raise _Unsupported


#: JSON printed into a prompt may nest at most this deep. The official template (through
#: ``json.dumps``) fails somewhere past Python's recursion limit, at a depth that
#: depends on the Python version; a fixed limit makes the outcome the same everywhere.
MAX_JSON_NESTING = 256
_MAX_INDENT_CHARS = MAX_JSON_NESTING  # newline + one unit per level


class JSONNestingError(ValueError):
    """Raised by :func:`tojson` for data nested deeper than :data:`MAX_JSON_NESTING`."""


def _write_indented(value: Any, out: list[str], newline: str, unit: str) -> None:
    """Append ``json.dumps(value, ensure_ascii=False, indent=unit)`` to ``out``, in pieces.

    Handles exactly ``dict`` (string keys), ``list``, ``str``, ``int``, ``float``,
    ``bool`` and ``None``; anything else raises :class:`_Unsupported`.
    """
    kind = type(value)
    if (kind is dict or kind is list) and len(newline) > _MAX_INDENT_CHARS * len(unit):
        raise JSONNestingError(f"the data is nested more than {MAX_JSON_NESTING} levels deep")
    if kind is dict:
        if not value:
            out.append("{}")
            return
        inner = newline + unit
        separator = "{" + inner
        for key, item in value.items():
            if type(key) is not str:
                raise _Unsupported
            item_kind = type(item)
            if item_kind is str:
                out.append(separator + encode_basestring(key) + ": " + encode_basestring(item))
            elif item_kind is dict or item_kind is list:
                out.append(separator + encode_basestring(key) + ": ")
                _write_indented(item, out, inner, unit)
            else:
                out.append(separator + encode_basestring(key) + ": " + _scalar_json(item))
            separator = "," + inner
        out.append(newline + "}")
    elif kind is list:
        if not value:
            out.append("[]")
            return
        inner = newline + unit
        separator = "[" + inner
        for item in value:
            item_kind = type(item)
            if item_kind is str:
                out.append(separator + encode_basestring(item))
            elif item_kind is dict or item_kind is list:
                out.append(separator)
                _write_indented(item, out, inner, unit)
            else:
                out.append(separator + _scalar_json(item))
            separator = "," + inner
        out.append(newline + "]")
    elif kind is str:
        out.append(encode_basestring(value))
    else:
        out.append(_scalar_json(value))


def tojson(value: Any, indent: int | None = None) -> str:
    """transformers' ``tojson`` filter: ``json.dumps(value, ensure_ascii=False, indent=indent)``.

    Key order is kept, non-ASCII text is written as UTF-8 and nothing is HTML-escaped
    (unlike Jinja's own ``tojson``). Indented output of plain JSON data is produced by a
    faster writer that gives the same string; other values go through :mod:`json`.
    Raises ``TypeError``/``ValueError`` as ``json.dumps`` does, and
    :class:`JSONNestingError` (a ``ValueError``) for containers nested deeper than
    :data:`MAX_JSON_NESTING` in indented output.
    """
    if indent is None:
        return _COMPACT.encode(value)
    if indent < 1:
        return json.dumps(value, ensure_ascii=False, indent=indent)
    out: list[str] = []
    try:
        _write_indented(value, out, "\n", " " * indent)
    except _Unsupported:
        return json.dumps(value, ensure_ascii=False, indent=indent)
    except RecursionError:
        raise JSONNestingError(
            f"the data is nested more than {MAX_JSON_NESTING} levels deep"
        ) from None
    return "".join(out)


# --------------------------------------------------------------------------- turns


def turn(role: str, content: str) -> str:
    """One conversation turn: ``<|start_of_role|>role<|end_of_role|>content<|end_of_text|>\\n``."""
    return START_OF_ROLE + role + END_OF_ROLE + content + END_OF_TEXT + "\n"


_ASSISTANT_HEADER = START_OF_ROLE + "assistant"


def generation_prompt(controls: Mapping[str, Any] | None = None) -> str:
    """The assistant header that asks the model to answer.

    A non-empty ``controls`` dict is printed after the role, verbatim and in the
    caller's key order: ``<|start_of_role|>assistant {"citations": true}<|end_of_role|>``.
    """
    if controls:
        return _ASSISTANT_HEADER + " " + _flat_object_json(controls) + END_OF_ROLE
    return _ASSISTANT_HEADER + END_OF_ROLE


def _flat_object_json(mapping: Mapping[str, Any]) -> str:
    """``tojson(mapping)``, faster for a small dict of strings, booleans and nulls (controls)."""
    items: list[str] = []
    for key, value in mapping.items():
        if type(key) is not str:
            return _COMPACT.encode(mapping)
        if value is True:
            text = "true"
        elif value is False:
            text = "false"
        elif value is None:
            text = "null"
        elif type(value) is str:
            text = encode_basestring(value)
        else:
            return _COMPACT.encode(mapping)
        items.append(encode_basestring(key) + ": " + text)
    return "{" + ", ".join(items) + "}"


# --------------------------------------------------------------------------- special tokens

_FORBIDDEN_IN_TOKENS = re.compile(r'["\\\x00-\x1f]')


class SpecialTokens:
    """A set of special-token strings, found and removed in linear time.

    Detection is one search with a compiled alternation of all tokens. Removal deletes
    every occurrence, including tokens that only appear once others are removed
    (``<|end_of<|end_of_text|>_text|>``), so the result never contains a token, and it
    never removes the text between two tokens.

    Tokens must not contain ``"``, ``\\`` or control characters (so that a token in a
    JSON string is also a token in its JSON text).
    """

    __slots__ = ("_final_chars", "_longest", "_pattern", "sentinel", "tokens")

    def __init__(self, tokens: Iterable[str]) -> None:
        unique = tuple(dict.fromkeys(tokens))
        if not unique:
            raise ValueError("SpecialTokens needs at least one token")
        for token in unique:
            if not isinstance(token, str) or not token:
                raise ValueError(f"special tokens must be non-empty strings, not {token!r}")
            if _FORBIDDEN_IN_TOKENS.search(token):
                raise ValueError(f"special token {token!r} contains a quote, backslash or control")
        self.tokens: tuple[str, ...] = unique
        self._longest = tuple(sorted(unique, key=len, reverse=True))
        self._pattern = re.compile("|".join(re.escape(token) for token in self._longest))
        self._final_chars = re.compile(
            "[" + "".join(re.escape(c) for c in sorted({t[-1] for t in unique})) + "]"
        )
        shared = set(unique[0]).intersection(*unique[1:])
        #: A character that every token contains (``""`` if there is none): text without
        #: it has no token, and ``sentinel in text`` is much faster than :meth:`search`.
        self.sentinel: str = min(shared, key=_sentinel_rank) if shared else ""

    def __repr__(self) -> str:
        return f"SpecialTokens({list(self.tokens)!r})"

    def __iter__(self) -> Iterator[str]:
        return iter(self.tokens)

    def __len__(self) -> int:
        return len(self.tokens)

    def __contains__(self, token: object) -> bool:
        return token in self.tokens

    def search(self, text: str) -> str | None:
        """The first special token in ``text``, or ``None``."""
        if self.sentinel not in text:
            return None
        match = self._pattern.search(text)
        return None if match is None else match.group()

    def remove(self, text: str) -> str:
        """``text`` with every special token removed (see the class docstring)."""
        if self.search(text) is None:
            return text
        # The output is kept as a stack of intervals of ``text``. A token can only end at
        # one of its final characters, so the text is pushed in chunks that each end at
        # such a character, and the end of the output is checked after each chunk. The
        # output never contains a token, so removing one from its end cannot expose
        # another, and no interval is ever copied before the final join: linear time.
        starts: list[int] = []
        ends: list[int] = []
        longest = self._longest
        width = len(longest[0])
        start = 0
        for match in self._final_chars.finditer(text):
            end = match.end()
            if ends and ends[-1] == start:
                ends[-1] = end
            else:
                starts.append(start)
                ends.append(end)
            start = end
            tail = _tail(text, starts, ends, width)
            if not tail.endswith(longest):
                continue
            for token in longest:
                if tail.endswith(token):
                    _drop_tail(starts, ends, len(token))
                    break
        starts.append(start)
        ends.append(len(text))
        return "".join([text[first:last] for first, last in zip(starts, ends, strict=True)])


def _sentinel_rank(char: str) -> tuple[bool, bool, str]:
    # Prefer characters that are rare in prose: not letters, digits, spaces or common
    # punctuation.
    return (char.isalnum() or char.isspace(), char in "<>_-.,:;!?'()/", char)


def _tail(text: str, starts: list[int], ends: list[int], width: int) -> str:
    """The last ``width`` characters (at most) of the output intervals."""
    pieces: list[str] = []
    needed = width
    index = len(ends)
    while index and needed > 0:
        index -= 1
        first = max(starts[index], ends[index] - needed)
        pieces.append(text[first : ends[index]])
        needed -= ends[index] - first
    return "".join(reversed(pieces))


def _drop_tail(starts: list[int], ends: list[int], count: int) -> None:
    """Remove ``count`` characters from the end of the output intervals."""
    while count:
        length = ends[-1] - starts[-1]
        if length <= count:
            starts.pop()
            ends.pop()
            count -= length
        else:
            ends[-1] -= count
            count = 0


#: The special tokens shared by every Granite 3 tokenizer that a prompt can contain.
GRANITE3_SPECIAL_TOKENS = SpecialTokens((START_OF_ROLE, END_OF_ROLE, END_OF_TEXT, TOOL_CALL))


def _child_path(path: str, key: object) -> str:
    if isinstance(key, int) and not isinstance(key, bool):
        return f"{path}[{key}]"
    if isinstance(key, str) and key.isidentifier():
        return f"{path}.{key}"
    return f"{path}[{json.dumps(key, ensure_ascii=False, default=repr)}]"


def find_special_token_in_json(
    value: Any, tokens: SpecialTokens, path: str
) -> tuple[str, str] | None:
    """The first special token in the strings (keys and values) of a JSON value.

    Returns ``(where, token)``, ``where`` being ``path`` extended to the offending value
    or key (``tools[0].function.description``), or ``None`` when there is none.
    """
    if isinstance(value, str):
        token = tokens.search(value)
        return None if token is None else (path, token)
    if isinstance(value, Mapping):
        for key, item in value.items():
            where = _child_path(path, key)
            if isinstance(key, str):
                token = tokens.search(key)
                if token is not None:
                    return where, token
            found = find_special_token_in_json(item, tokens, where)
            if found is not None:
                return found
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            found = find_special_token_in_json(item, tokens, f"{path}[{index}]")
            if found is not None:
                return found
    return None


def remove_special_tokens_in_json(value: Any, tokens: SpecialTokens, path: str) -> Any:
    """A copy of a JSON value with special tokens removed from every key and string.

    Containers are always copied (the input is never modified). Two keys of one object
    that become equal raise :class:`InvalidRequestError` naming the object.
    """
    if isinstance(value, str):
        return tokens.remove(value)
    if isinstance(value, Mapping):
        cleaned: dict[Any, Any] = {}
        for key, item in value.items():
            new_key = tokens.remove(key) if isinstance(key, str) else key
            if new_key in cleaned:
                raise InvalidRequestError(
                    f"removing special tokens makes two keys equal ({new_key!r}); "
                    "rename the key that contains special tokens",
                    field=path,
                )
            cleaned[new_key] = remove_special_tokens_in_json(item, tokens, _child_path(path, key))
        return cleaned
    if isinstance(value, (list, tuple)):
        return [
            remove_special_tokens_in_json(item, tokens, f"{path}[{index}]")
            for index, item in enumerate(value)
        ]
    return value


# --------------------------------------------------------------------------- sanitize


def _sanitize_parts(parts: str | Iterable[str]) -> frozenset[str]:
    items = [parts] if isinstance(parts, str) else parts
    try:
        chosen = list(items)
    except TypeError:
        raise InvalidRequestError(
            f"parts must be 'all' or a list of 'messages', 'tools', 'documents', "
            f"not {type(parts).__name__}",
            field="parts",
        ) from None
    selected: set[str] = set()
    for part in chosen:
        if part == "all":
            selected.update(SANITIZE_PARTS)
        elif isinstance(part, str) and part in SANITIZE_PARTS:
            selected.add(part)
        else:
            raise InvalidRequestError(
                f"unknown part {part!r}; use 'all' or any of 'messages', 'tools', 'documents'",
                field="parts",
            )
    return frozenset(selected)


def sanitize(
    chat_completion: RequestLike,
    parts: str | Iterable[str] = "all",
    *,
    special_tokens: SpecialTokens = GRANITE3_SPECIAL_TOKENS,
) -> Granite3ChatCompletion:
    """A copy of a request with special tokens removed from caller-supplied text.

    ``parts`` is ``"all"`` or any of ``"messages"`` (each message's role and content),
    ``"tools"`` (every key and string inside the tool definitions, at any depth) and
    ``"documents"`` (text, string ``doc_id`` and ``title``). Text between tokens is
    kept. The input is not modified; the result is a new :class:`Granite3ChatCompletion`
    (of the input's class when a typed request is given).
    """
    selected = _sanitize_parts(parts)
    request = coerce_request(chat_completion, Granite3ChatCompletion)
    updates: dict[str, Any] = {}
    if "messages" in selected:
        updates["messages"] = [
            message.model_copy(
                update={
                    "role": special_tokens.remove(message.role),
                    "content": None
                    if message.content is None
                    else special_tokens.remove(message.content),
                },
                deep=True,
            )
            for message in request.messages
        ]
    if "tools" in selected and request.tools is not None:
        try:
            updates["tools"] = remove_special_tokens_in_json(request.tools, special_tokens, "tools")
        except RecursionError:
            raise InvalidRequestError(
                "the tool definitions are nested too deeply (or contain themselves)",
                field="tools",
            ) from None
    if "documents" in selected and request.documents is not None:
        documents = []
        for document in request.documents:
            changes: dict[str, Any] = {"text": special_tokens.remove(document.text)}
            if isinstance(document.doc_id, str):
                changes["doc_id"] = special_tokens.remove(document.doc_id)
            if document.title is not None:
                changes["title"] = special_tokens.remove(document.title)
            documents.append(document.model_copy(update=changes, deep=True))
        updates["documents"] = documents
    return request.model_copy(update=updates, deep=True)
