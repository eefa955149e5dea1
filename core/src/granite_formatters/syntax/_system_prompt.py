"""The dated default system prompt of Granite 3.x.

When the request has no system message, the Granite 3.x templates write one: a preamble
with today's date ("Today's Date: April 06, 2025."), then one instruction chosen by what
the request gives (tools and documents, tools, documents, thinking, or none), then the
citations and hallucinations instructions when ``controls`` names them and there are
documents. The date is the caller's ``today`` or the clock's, read at each call.

The template silently ignores some options; :meth:`DatedSystemPrompt.unhonoured` names
them (the renderer refuses them in strict mode).
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any

import attrs

__all__ = ["DatedSystemPrompt", "format_date"]

#: English month names, as ``%B`` prints them under the C locale.
_MONTH_NAMES = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
_DAY_NUMBERS = tuple(f" {number:02d}, " for number in range(32))


def format_date(day: datetime.date) -> str:
    """``day`` as the templates print it: ``strftime('%B %d, %Y')``, e.g. ``April 06, 2025``.

    The month name is English whatever the process locale; the day is zero-padded.
    """
    return _MONTH_NAMES[day.month - 1] + _DAY_NUMBERS[day.day] + str(day.year)


_REPLACED = (
    "a system message given as messages[0] replaces the whole default system prompt, "
    "which is where the {what} instructions go"
)


@attrs.frozen
class DatedSystemPrompt:
    """A default system prompt: :attr:`preamble` (holding ``{date}`` once), one branch
    instruction, then the controls' instructions.

    The branch is the first that applies: :attr:`tools_and_documents`, :attr:`tools`,
    :attr:`documents`, :attr:`thinking` (``None``: the release has no thinking mode),
    :attr:`plain`. :attr:`citations` and :attr:`hallucinations` are appended when
    ``controls`` has that key (whatever its value) and there are documents. Every piece
    is appended exactly as given.
    """

    preamble: str
    tools: str
    tools_and_documents: str
    documents: str
    plain: str
    citations: str
    hallucinations: str
    thinking: str | None = None

    def __attrs_post_init__(self) -> None:
        if self.preamble.count("{date}") != 1:
            raise ValueError("preamble must contain '{date}' exactly once")

    def text(
        self,
        day: datetime.date,
        *,
        tools: bool,
        documents: bool,
        thinking: bool,
        controls: Mapping[str, Any] | None,
    ) -> str:
        """The system text for a request with (or without) tools, documents, thinking
        and these controls, dated ``day``."""
        if tools:
            middle = self.tools_and_documents if documents else self.tools
        elif documents:
            middle = self.documents
        elif thinking and self.thinking is not None:
            middle = self.thinking
        else:
            middle = self.plain
        before, _, after = self.preamble.partition("{date}")
        text = before + format_date(day) + after + middle
        if documents and controls:
            if "citations" in controls:
                text += self.citations
            if "hallucinations" in controls:
                text += self.hallucinations
        return text

    def unhonoured(
        self,
        release: str,
        *,
        custom_system: bool,
        tools: bool,
        documents: bool,
        thinking: bool,
        controls: Mapping[str, Any] | None,
    ) -> list[tuple[str, str]]:
        """``(field, message)`` for each option the template would silently ignore.

        Thinking needs the default system prompt and no tools or documents; the
        ``citations`` and ``hallucinations`` controls (when true) need the default
        system prompt and documents.
        """
        found: list[tuple[str, str]] = []
        if thinking:
            problem = None
            if self.thinking is None:
                found.append(("chat_template_kwargs.thinking", f"{release} has no thinking mode."))
            elif custom_system:
                problem = _REPLACED.format(what="thinking") + (
                    ". Either remove the system message to use the default one, "
                    "or set thinking to false."
                )
            elif tools or documents:
                given = "tools" if tools else "documents"
                problem = (
                    f"its chat template writes the thinking instructions only when there "
                    f"are no tools and no documents, so thinking would be silently ignored "
                    f"with {given}. Either remove the {given} or set thinking to false."
                )
            if problem is not None:
                found.append(
                    (
                        "chat_template_kwargs.thinking",
                        f"{release} cannot honour thinking=true: {problem}",
                    )
                )
        if controls:
            for key, what in (("citations", "citation"), ("hallucinations", "hallucination")):
                if not controls.get(key):
                    continue
                if custom_system:
                    problem = _REPLACED.format(what=what) + (
                        f". Either remove the system message to use the default one, or "
                        f"remove the {key!r} control."
                    )
                elif not documents:
                    problem = (
                        f"its chat template writes the {what} instructions only when "
                        f"documents are given. Either add documents or remove the {key!r} "
                        "control."
                    )
                else:
                    continue
                found.append(
                    (
                        f"chat_template_kwargs.controls.{key}",
                        f"{release} cannot honour {key}=true: {problem}",
                    )
                )
        return found
