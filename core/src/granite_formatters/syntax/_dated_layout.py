"""The Granite 3.x prompt layout: a dated default system prompt, the tools and documents
as turns of their own after the system turn, the controls in the generation prompt.

A release names this layout as its ``layout`` (``Release(layout=DatedLayout(...))``);
the core's renderer asks it what the system turn, the tools and documents turns and the
generation prompt are. See ``docs/syntaxes.md``.
"""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING, Any

import attrs

if TYPE_CHECKING:
    from .._engine.render import ReleaseInputProcessor
    from ._context_turns import DocumentsTurn, DocumentTurnPerDocument, ToolsTurn
    from ._controls import Controls
    from ._dated_writer import DatedWriter
    from ._system_prompt import DatedSystemPrompt

__all__ = ["DatedLayout"]

#: The clock module (``granite3.dates``) and the typed options class (``Granite3Kwargs``),
#: imported when first needed (``current_date`` is looked up at each call: tests replace it).
_CLOCK: Any = None
_OPTIONS_TYPE: Any = None


@attrs.frozen
class DatedLayout:
    """The layout of a release whose template writes a dated default system prompt and
    the tools and documents as turns of their own (Granite 3.x).

    ``system_prompt`` is the default system text, built from the date and the request;
    the system turn is then always printed (the caller's text even when empty).
    ``tools_turn`` and ``documents_turns`` are the turns after the system turn,
    ``controls`` the ``controls`` option printed after the generation prompt's role.
    Every message is printed as a turn of its own role, verbatim (tool messages are not
    wrapped; the roles in ``refused_roles`` are refused in strict mode), and the
    generation prompt only after at least one message besides the caller's system
    message. ``record_tokens_lead`` is true when the release's ``record_tokens`` are the
    model's only at the start of a past assistant turn (after whitespace), where it
    writes them. ``template_writes_calls`` is false when the template drops assistant
    ``tool_calls``: they are written in strict mode (a documented deviation) and left out
    with a warning with ``strict=False``.
    """

    system_prompt: DatedSystemPrompt
    tools_turn: ToolsTurn | None = None
    documents_turns: DocumentsTurn | DocumentTurnPerDocument | None = None
    controls: Controls | None = None
    refused_roles: tuple[str, ...] = ()
    record_tokens_lead: bool = False
    template_writes_calls: bool = True

    def writer(self, processor: ReleaseInputProcessor) -> DatedWriter:
        """The layout bound to ``processor``: what the renderer's loop asks it to write
        (``_dated_writer.py``)."""
        from ._dated_writer import DatedWriter

        return DatedWriter(self, processor)

    @staticmethod
    def today() -> datetime.date:
        """The date of a prompt given none: ``granite3.dates.current_date()``, read at
        each call."""
        global _CLOCK
        if _CLOCK is None:
            from ..granite3 import _dates as dates

            _CLOCK = dates
        day: datetime.date = _CLOCK.current_date()
        return day

    @staticmethod
    def options_type() -> type[Any]:
        """The typed ``chat_template_kwargs`` of a Granite 3.x request
        (``Granite3Kwargs``), whose ``thinking`` and ``controls`` the renderer reads by
        attribute."""
        global _OPTIONS_TYPE
        if _OPTIONS_TYPE is None:
            from ..granite3._types import Granite3Kwargs

            _OPTIONS_TYPE = Granite3Kwargs
        options_type: type[Any] = _OPTIONS_TYPE
        return options_type
