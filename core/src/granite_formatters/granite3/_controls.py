"""The Granite 3 ``controls`` option: its keys and values, checked without pydantic.

Used when a request is validated and again when it is rendered, so a typed request
changed after validation cannot put arbitrary text into the generation prompt.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import InvalidRequestError, quote

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
    """``(field, message)`` for the first invalid key or value, or ``None``.

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
            return _WHERE, f"unknown control {quote(key)}; the controls are {known}"
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


def check_controls(controls: Any) -> None:
    """Raise :class:`InvalidRequestError` naming the control for an invalid ``controls``."""
    problem = controls_problem(controls)
    if problem is not None:
        field, message = problem
        raise InvalidRequestError(message, field=field)
