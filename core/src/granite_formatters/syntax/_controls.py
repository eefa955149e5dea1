"""Granite 3.x ``controls``: the template option that asks for citations, hallucination
flags, a response length or originality, printed into the generation prompt.

``chat_template_kwargs.controls`` is an object of up to four keys (:data:`CONTROL_VALUES`);
the template prints a non-empty one after the generation prompt's role, verbatim and in
the caller's key order: ``<|start_of_role|>assistant {"citations": true}<|end_of_role|>``.
Its ``citations`` and ``hallucinations`` keys also add instructions to the default
system prompt (see :mod:`.system_prompt`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from .._errors import quote
from .._jsonwriter import tojson

__all__ = [
    "CONTROL_VALUES",
    "CONTROLS",
    "Controls",
    "controls_problem",
    "thinking_option_error",
    "valid_control_items",
]

#: Each control and its allowed values (``None``/null is always allowed: "not set").
CONTROL_VALUES: dict[str, tuple[Any, ...]] = {
    "citations": (True, False),
    "hallucinations": (True, False),
    "length": ("short", "long"),
    "originality": ("extractive", "abstractive"),
}

_WHERE = "chat_template_kwargs.controls"

#: Every valid (control, value) pair, null included. Looked up only with a value of an
#: exact type (``1 == True`` and they hash alike, so the type is checked first).
_VALID_PAIRS: frozenset[tuple[str, Any]] = frozenset(
    (key, value) for key, values in CONTROL_VALUES.items() for value in (*values, None)
)


def valid_control_items(controls: dict[str, Any]) -> tuple[tuple[str, Any], ...] | None:
    """The items of ``controls`` when every key and value is valid and of an exact type
    (``str`` keys; ``bool``, ``str`` or null values), else ``None``.

    The common case of :func:`controls_problem`, in a few set look-ups. Two valid item
    tuples are equal only if the controls print alike, so the tuple is an exact cache key.
    """
    items = tuple(controls.items())
    for key, value in items:
        if not (
            type(key) is str
            and (value is None or value is True or value is False or type(value) is str)
            and (key, value) in _VALID_PAIRS
        ):
            return None
    return items


def controls_problem(controls: Any) -> tuple[str, str] | None:
    """``(field, message)`` for the first invalid key or value, or ``None``; the field
    names the control (``chat_template_kwargs.controls.length``) when it is a string.

    Values are compared by exact type (``1`` is not ``true``; a ``str`` subclass is not a
    string); the message quotes the value received.
    """
    if type(controls) is dict and valid_control_items(controls) is not None:
        return None
    if not isinstance(controls, Mapping):
        return _WHERE, f"must be an object, not {type(controls).__name__}"
    for key, value in controls.items():
        allowed = CONTROL_VALUES.get(key) if type(key) is str else None
        if allowed is None:
            known = ", ".join(CONTROL_VALUES)
            where = f"{_WHERE}.{key}" if type(key) is str else _WHERE
            return where, f"unknown control {quote(key)}; the controls are {known}"
        if value is None:
            continue
        if (type(value) is bool or type(value) is str) and any(
            value == option and type(value) is type(option) for option in allowed
        ):
            continue
        expected = " or ".join(
            "true" if option is True else "false" if option is False else repr(option)
            for option in allowed
        )
        return f"{_WHERE}.{key}", f"must be {expected} (or null), not {quote(value)}"
    return None


def thinking_option_error(value: Any) -> str | None:
    """Why a value of the Granite 3.x ``thinking`` option is refused (true, false or
    null are accepted)."""
    if value is None or type(value) is bool:
        return None
    return f"must be true or false, not {quote(value)}"


@attrs.frozen
class Controls:
    """The ``controls`` option: checked as an :class:`~granite_formatters.release.Option`
    (:meth:`check`), printed after the generation prompt's role (:meth:`role_suffix`)."""

    name: str = "controls"

    @staticmethod
    def check(value: Any) -> str | tuple[str, str] | None:
        """Why ``value`` is refused (``None``: accepted): ``(control, message)`` when one
        control is at fault (its field is ``chat_template_kwargs.controls.<control>``)."""
        if value is None or (type(value) is dict and valid_control_items(value) is not None):
            return None
        problem = controls_problem(value)
        if problem is None:
            return None
        field, message = problem
        if field != _WHERE:
            return field[len(_WHERE) + 1 :], message
        return message

    @staticmethod
    def role_suffix(controls: Any) -> str:
        """What follows the assistant role of the generation prompt: ``" "`` + the
        controls' JSON when they are a non-empty object, else nothing."""
        if not controls:
            return ""
        items = valid_control_items(controls) if type(controls) is dict else None
        if items is not None:
            suffix = _SUFFIXES.get(items)
            if suffix is None:
                suffix = " " + tojson(controls)
                if len(_SUFFIXES) < _SUFFIXES_KEPT:
                    _SUFFIXES[items] = suffix
            return suffix
        return " " + tojson(controls)


#: Role suffixes of valid controls by their items (a handful are usual).
_SUFFIXES: dict[tuple[tuple[str, Any], ...], str] = {}
_SUFFIXES_KEPT = 64

#: The Granite 3.x controls.
CONTROLS = Controls()
