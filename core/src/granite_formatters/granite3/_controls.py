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


def controls_problem(controls: Any) -> tuple[str, str] | None:
    """``(field, message)`` for the first invalid key or value, or ``None``.

    Values are compared by exact type (``1`` is not ``true``; a ``str`` subclass is not a
    string); the message quotes the value received.
    """
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
