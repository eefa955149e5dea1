"""The OpenAI top-level ``reasoning_effort``, per release: applied as the library applies
it (a release with a ``reasoning_effort`` option, Granite 4.2), else refused with a 400
naming the field, rather than accepted and ignored.

:func:`effort_table` is the table ``docs/serving.md`` and ``docs/granite42.md`` print (a
test checks both against it).
"""

from __future__ import annotations

from .._api import get_formatter, list_models
from .._errors import quote
from .._processors import Formatter
from ..release import Release

__all__ = ["effort_refusal", "effort_table"]


def _effect(release: Release) -> str:
    """What the field does for ``release`` (the cell of the table)."""
    if release.option("reasoning_effort") is not None:
        off = (
            '`"none"` turns thinking off (`enable_thinking: false`); '
            if release.option("enable_thinking") is not None
            else ""
        )
        low = '`"low"` asks for low effort; ' if release.option("low_effort") is not None else ""
        return (
            f"{off}{low}any other string is passed to the template (thinking stays on); "
            "`chat_template_kwargs` values win"
        )
    if release.option("thinking") is not None:
        return "400 (`param: reasoning_effort`); thinking is `chat_template_kwargs.thinking`"
    return "400 (`param: reasoning_effort`); the release has no thinking switch"


def effort_refusal(formatter: Formatter, model: str) -> str | None:
    """Why a top-level ``reasoning_effort`` is refused for ``formatter`` (``None``: its
    release reads it, and the formatter renders it)."""
    release = formatter.release
    if release is None or release.option("reasoning_effort") is not None:
        return None
    hint = (
        ": turn thinking on with chat_template_kwargs.thinking"
        if release.option("thinking") is not None
        else ""
    )
    return f"reasoning_effort is not supported by {quote(model, 60)} ({release.name}){hint}"


def effort_table() -> str:
    """The Markdown table of what ``reasoning_effort`` does per installed release."""
    rows = ["| release | `reasoning_effort` |", "|---|---|"]
    seen: set[str] = set()
    for model in list_models():
        release = get_formatter(model.model_id).release
        if release is None or release.name in seen:
            continue
        seen.add(release.name)
        rows.append(f"| {release.name} | {_effect(release)} |")
    return "\n".join(rows) + "\n"
