"""transformers' ``tojson`` filter in plain Python: the JSON that chat templates print.

Every Granite chat template writes JSON into the prompt through transformers' own
``tojson`` filter, which is ``json.dumps(value, ensure_ascii=False, indent=indent)``:
key order kept, non-ASCII text written as it is, and ``<``, ``>``, ``&``, ``'`` not
escaped (Jinja's built-in ``tojson`` would escape them). :func:`tojson` gives the same
string; indented output of plain JSON data comes from a faster writer.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring
from typing import Any

__all__ = ["MAX_JSON_NESTING", "JSONNestingError", "tojson"]

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
