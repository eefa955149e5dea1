"""The Granite 3 ``controls`` option: its keys and values, checked without pydantic.

Used when a request is validated and again when it is rendered, so a typed request
changed after validation cannot put arbitrary text into the generation prompt.
"""

from __future__ import annotations

from typing import Any

from ..errors import InvalidRequestError
from ..syntax.controls import CONTROL_VALUES, controls_problem, valid_control_items

__all__ = ["CONTROL_VALUES", "check_controls", "controls_problem", "valid_control_items"]


def check_controls(controls: Any) -> None:
    """Raise :class:`InvalidRequestError` naming the control for an invalid ``controls``."""
    problem = controls_problem(controls)
    if problem is not None:
        field, message = problem
        raise InvalidRequestError(message, field=field)
