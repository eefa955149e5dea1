"""Turn syntaxes: Granite's role tokens and ChatML, with how tool results are wrapped."""

from __future__ import annotations

import attrs

__all__ = ["CHATML", "GRANITE_ROLES", "ToolResults", "Turns"]


@attrs.frozen
class ToolResults:
    """How a run of consecutive ``tool`` messages becomes one turn.

    The turn has role :attr:`role`; each result is :attr:`item_open` + its text +
    :attr:`item_close`. With :attr:`header_when_first` false the turn header is left
    out when the run is the first message after the system message (a template quirk
    of Granite 4.2).
    """

    role: str
    item_open: str
    item_close: str
    header_when_first: bool = True


@attrs.frozen
class Turns:
    """A turn syntax: ``start + ROLE + after_role`` opens a turn, :attr:`end` closes it.

    Implements :class:`~granite_formatters.syntax.TurnSyntax`.
    """

    start: str
    after_role: str
    end: str
    tool_results: ToolResults

    def header(self, role: str) -> str:
        return self.start + role + self.after_role


#: ``<|start_of_role|>ROLE<|end_of_role|>…<|end_of_text|>\n`` (Granite 3.x, 4.0, 4.1);
#: tool results as one ``user`` turn of ``\n<tool_response>\n…\n</tool_response>`` items.
GRANITE_ROLES = Turns(
    start="<|start_of_role|>",
    after_role="<|end_of_role|>",
    end="<|end_of_text|>\n",
    tool_results=ToolResults("user", "\n<tool_response>\n", "\n</tool_response>"),
)

#: ``<|im_start|>ROLE\n…<|im_end|>\n`` (Granite 4.2); tool results as one ``user`` turn
#: of ``<tool_response>\n…\n</tool_response>\n`` items, its header left out when the
#: run comes first.
CHATML = Turns(
    start="<|im_start|>",
    after_role="\n",
    end="<|im_end|>\n",
    tool_results=ToolResults(
        "user", "<tool_response>\n", "\n</tool_response>\n", header_when_first=False
    ),
)
