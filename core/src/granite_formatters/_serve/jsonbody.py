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

__all__ = ["MAX_DEPTH", "load_body"]

#: How deeply arrays and objects may nest in a request body.
MAX_DEPTH = 64

_SURROGATE = re.compile("[\ud800-\udfff]")

#: What may make a decoded body fail :func:`_check`, found in its text: a surrogate's
#: escape, a non-finite constant, a number that may overflow a float (an exponent of 100
#: or more, or 100 digits in a row: under both, a number is below 1e198). A body without
#: any, and with fewer brackets than :data:`MAX_DEPTH`, cannot fail: it is not walked.
_MAY_FAIL = re.compile(r"\\u[dD][89a-fA-F]|Infinity|NaN|[eE]\+?\d{3}|\d{100}")

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
    if text.isascii():
        return None
    found = _SURROGATE.search(text)
    return None if found is None else f"\\u{ord(found.group()):04x}"


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
        value = json.loads(text)
    except RecursionError:
        raise InvalidRequestError(
            f"the request body is nested more than {MAX_DEPTH} levels deep"
        ) from None
    except ValueError as exc:
        raise InvalidRequestError(f"the request body is not valid JSON ({exc})") from None
    if text.count("{") + text.count("[") >= MAX_DEPTH or _MAY_FAIL.search(text):
        _check(value)
    return value
