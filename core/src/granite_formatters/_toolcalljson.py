"""The tool-call objects a model writes as JSON, read the same way by every parser.

A model calls a tool by writing a JSON object such as
``{"name": "get_weather", "arguments": {"city": "Paris"}}`` (each release has its own
markers around it; the parsers find the object). Once the object is decoded, what is
read from it is the same for every release (``docs/output-formats.md``, "Tool-call
objects"):

* the arguments are the value of ``"arguments"``; ``"parameters"`` is read instead when
  there is no ``"arguments"`` (models trained on tool *definitions*, which hold
  ``parameters``, write it now and then); with neither, the arguments are ``{}``;
* any other key of the object is not read, and a note names it: its value is then only
  in ``raw_content`` (``"args"`` is such a key, not an alias: the text shows which
  key the model wrote, and a guess would hide it);
* text holding lone surrogates (a ``"\\ud83c"`` escape is valid JSON and decodes to one)
  cannot be written as UTF-8: each is replaced by U+FFFD, with a note, so the message
  always serialises;
* a number that JSON output cannot carry (``NaN``, ``Infinity``, ``-Infinity``, a value
  out of a float's range such as ``1e999``, an integer longer than Python reads) stays
  its text, a string, with a note (:func:`decode_json`): arguments always serialise as
  strict JSON (``json.dumps(arguments, allow_nan=False)``).
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Iterable, Mapping
from typing import Any

from ._surrogates import has_lone_surrogate, replace_lone_surrogates

__all__ = [
    "ARGUMENT_KEYS",
    "NUMBERS_KEPT",
    "SURROGATES_REPLACED",
    "call_arguments",
    "decode_json",
    "json_safe",
    "repaired_call",
    "text_safe",
]

#: The keys the arguments are read from, in order of preference.
ARGUMENT_KEYS = ("arguments", "parameters")

# The keys a caller of call_arguments usually reads itself.
_NAME_AND_ID = frozenset(("name", "id"))

#: The note for a tool call whose text had lone surrogates.
SURROGATES_REPLACED = "replaced lone surrogates in a tool call with U+FFFD"

#: The note for tool-call JSON that held numbers JSON output cannot carry.
NUMBERS_KEPT = (
    "numbers that JSON cannot carry (NaN, Infinity, out of range, or too many digits) "
    "are kept as their text"
)


def decode_json(text: str) -> tuple[Any, bool]:
    """``json.loads(text)``, except that a number JSON output cannot carry stays its
    text (a string): ``(value, whether any did)``.

    Such numbers are ``NaN``, ``Infinity`` and ``-Infinity`` (which :func:`json.loads`
    accepts), a number out of a float's range (``1e999`` reads as infinity) and an
    integer with more digits than Python converts (``ValueError`` from
    :func:`json.loads`). Invalid JSON raises as :func:`json.loads` does.
    """
    kept: list[str] = []
    _KEPT.tokens = kept
    try:
        value = _DECODER.decode(text)
    except ValueError as exc:
        if isinstance(exc, json.JSONDecodeError):
            raise
        # (An integer past the int-string limit: read again, keeping such ones as text.)
        kept = _KEPT.tokens = []
        value = json.JSONDecoder(
            parse_constant=_keep, parse_float=_finite, parse_int=_int_or_text
        ).decode(text)
    return value, bool(kept)


#: The numbers kept as text by the decoding running in this thread.
_KEPT = threading.local()


def _keep(token: str) -> str:
    _KEPT.tokens.append(token)
    return token


def _finite(token: str) -> float | str:
    number = float(token)
    return _keep(token) if math.isinf(number) else number


def _int_or_text(token: str) -> int | str:
    try:
        return int(token)
    except ValueError:
        return _keep(token)


# (One decoder, built once: building one per call costs more than a small call's decoding.)
_DECODER = json.JSONDecoder(parse_constant=_keep, parse_float=_finite)


def text_safe(text: str) -> str | None:
    """``text`` with each lone surrogate replaced by U+FFFD, or ``None`` if it has none.

    A Python ``str`` can hold surrogate code points (a ``\\ud83d`` JSON escape decodes
    to one) that no UTF-8 encoder accepts. One character replaces one, so spans hold.
    """
    return replace_lone_surrogates(text) if has_lone_surrogate(text) else None


def json_safe(value: Any) -> Any:
    """``value`` (decoded JSON) with lone surrogates replaced, or ``None`` if it has none.

    Keys and strings at any depth are checked, iteratively (no recursion limit).
    """
    dirty = False

    def clean(item: Any) -> Any:
        nonlocal dirty
        if isinstance(item, str):
            fixed = text_safe(item)
            if fixed is not None:
                dirty = True
                return fixed
        return item

    root: list[Any] = [value]
    stack: list[tuple[Any, Any]] = [(root, 0)]
    while stack:
        container, key = stack.pop()
        item = container[key]
        if isinstance(item, dict):
            rebuilt = {clean(k): v for k, v in item.items()}
            container[key] = rebuilt
            stack.extend((rebuilt, k) for k in rebuilt)
        elif isinstance(item, list):
            rebuilt_list = list(item)
            container[key] = rebuilt_list
            stack.extend((rebuilt_list, i) for i in range(len(rebuilt_list)))
        else:
            container[key] = clean(item)
    return root[0] if dirty else None


def call_arguments(
    body: Mapping[str, Any],
    where: str,
    notes: list[str],
    *,
    read: Iterable[str] = _NAME_AND_ID,
    also_unread: Iterable[str] = (),
) -> Any:
    """The arguments of the call object ``body``, as written (a JSON-encoded string is
    the caller's to decode): ``"arguments"``, else ``"parameters"``, else ``{}``.

    Keys of ``body`` that are not read (neither an argument key nor one of ``read``,
    the keys the caller reads itself) are named in a note starting with ``where``
    (``"tool call 0 (get_weather)"``), as is ``"parameters"`` beside ``"arguments"``,
    and the keys ``also_unread`` (those of an object around ``body``, such as the
    OpenAI ``{"id", "type", "function"}`` wrapper, that the caller does not read).
    """
    arguments: Any = {}
    used = None
    for key in ARGUMENT_KEYS:
        if key in body:
            arguments, used = body[key], key
            break
    known = read if isinstance(read, frozenset) else frozenset(read)
    unread = []
    for key in body:  # (a loop: a comprehension is a call, which costs more than two keys)
        if key != used and key not in known:
            unread.append(key)
    if also_unread:
        unread.extend(also_unread)
    if unread:
        listed = ", ".join(_quoted(key) for key in unread[:5])
        more = f" and {len(unread) - 5} more" if len(unread) > 5 else ""
        source = f'from "{used}"' if used else '{} (no "arguments" key)'
        notes.append(
            f"{where}: the arguments are {source}; the key(s) {listed}{more} are not read "
            "(only raw_content has them)"
        )
    return arguments


def repaired_call(parts: list[Any], notes: list[str]) -> list[Any]:
    """``parts`` (a call's name, id, arguments...) with lone surrogates replaced by
    U+FFFD at any depth, noting :data:`SURROGATES_REPLACED` when there were any."""
    cleaned = json_safe(parts)
    if cleaned is None:
        return parts
    notes.append(SURROGATES_REPLACED)
    return list(cleaned)


def _quoted(key: Any) -> str:
    text = key if isinstance(key, str) else str(key)
    if len(text) > 40:
        text = text[:37] + "..."
    return '"' + (text_safe(text) or text) + '"'
