"""The request body as JSON that the rest of the server can trust.

Valid UTF-8, nested at most :data:`MAX_DEPTH` levels, every number finite and every string
(keys included) valid Unicode: a body that is not gets an :class:`InvalidRequestError`
naming the field, never a ``RecursionError``, an ``inf`` sent on to the backend or a lone
surrogate that no encoder can write.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from .._errors import InvalidRequestError, quote
from .._surrogates import first_lone_surrogate

__all__ = ["MAX_DEPTH", "load_body"]

#: How deeply arrays and objects may nest in a request body.
MAX_DEPTH = 64

#: A surrogate's escape in a body's text: only such a body can hold a lone surrogate
#: (UTF-8 carries none).
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class _NotFinite(Exception):
    """The decoder met a number that is not a finite float (the body is then walked)."""


def _finite(literal: str) -> float:
    value = float(literal)
    if not math.isfinite(value):  # (an exponent or a run of digits past float's range)
        raise _NotFinite
    return value


def _constant(name: str) -> float:
    raise _NotFinite  # (NaN, Infinity, -Infinity)


#: The decoder of a body that may skip the walk: a number that could fail it (a
#: non-finite constant, a float out of range) stops it, and the body is then decoded
#: as JSON reads it and walked. Only a body with such a number, a surrogate's escape or
#: as many brackets as :data:`MAX_DEPTH` can fail :func:`_check`.
_DECODE_FINITE = json.JSONDecoder(parse_float=_finite, parse_constant=_constant).decode

# A path is a chain of (parent path, key or index), built into text only for an error.
_Path = tuple[Any, ...] | None


def _field(path: _Path) -> str | None:
    parts: list[str] = []
    while path is not None:
        path, key = path
        parts.append(f"[{key}]" if isinstance(key, int) else f".{key}")
    text = "".join(reversed(parts)).removeprefix(".")
    return text or None


def _surrogate(text: str) -> str | None:
    """The first lone surrogate in ``text`` as a JSON escape, or ``None``."""
    first = first_lone_surrogate(text)
    return None if first is None else f"\\u{ord(first):04x}"


def _check(value: Any) -> None:
    stack: list[tuple[Any, _Path, int]] = [(value, None, 0)]
    while stack:
        item, path, depth = stack.pop()
        if isinstance(item, str):
            escape = _surrogate(item)
            if escape is not None:
                raise InvalidRequestError(
                    f"contains a lone surrogate escape ({escape}), which is not Unicode text",
                    field=_field(path),
                )
        elif isinstance(item, float):
            if not math.isfinite(item):
                raise InvalidRequestError(
                    "must be a finite number (not Infinity, NaN or out of range)",
                    field=_field(path),
                )
        elif isinstance(item, dict | list):
            if depth >= MAX_DEPTH:
                raise InvalidRequestError(
                    f"is nested more than {MAX_DEPTH} levels deep", field=_field(path)
                )
            if isinstance(item, list):
                stack.extend((v, (path, i), depth + 1) for i, v in enumerate(item))
                continue
            for key, v in item.items():
                escape = _surrogate(key)
                if escape is not None:
                    raise InvalidRequestError(
                        f"has a key with a lone surrogate escape ({escape}): {quote(key)}",
                        field=_field(path),
                    )
                stack.append((v, (path, key), depth + 1))


def load_body(raw: bytes) -> Any:
    """The decoded JSON of ``raw``, checked as the module says."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidRequestError(
            f"the request body is not valid UTF-8 (at byte {exc.start})"
        ) from None
    try:
        try:
            value, walk = _DECODE_FINITE(text), False
        except _NotFinite:
            value, walk = json.loads(text), True
    except RecursionError:
        raise InvalidRequestError(
            f"the request body is nested more than {MAX_DEPTH} levels deep"
        ) from None
    except ValueError as exc:
        raise InvalidRequestError(f"the request body is not valid JSON ({exc})") from None
    if (
        walk
        or text.count("{") + text.count("[") >= MAX_DEPTH
        or ("\\u" in text and _SURROGATE_ESCAPE.search(text) is not None)
    ):
        _check(value)
    return value
