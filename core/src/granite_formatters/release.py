"""A release as a value: the syntaxes, wording, tokens and options of one Granite release.

A plugin declares a :class:`Release` and registers its model names with
``register(model_id, release=...)``; the core's one renderer and one parser run it.
See ``docs/syntaxes.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import attrs

if TYPE_CHECKING:
    from .processors import InputProcessor, OutputProcessor
    from .special_tokens import SpecialTokens
    from .syntax.blocks import SystemBlock
    from .syntax.citations.format import CitationFormat
    from .syntax.context_turns import DocumentsTurn, DocumentTurnPerDocument, ToolsTurn
    from .syntax.controls import Controls
    from .syntax.protocols import ReasoningSyntax, ToolCallSyntax, TurnSyntax
    from .syntax.system_prompt import DatedSystemPrompt

__all__ = ["Option", "Release"]


@attrs.frozen
class Option:
    """A ``chat_template_kwargs`` key the release's template reads.

    ``check`` returns why a given value is refused (``None``: accepted): a message, or
    ``(path, message)`` when a part of the value is at fault (the error's field is then
    ``chat_template_kwargs.<name>.<path>``); a value that is null takes :attr:`default`.
    """

    name: str
    default: Any = None
    check: Callable[[Any], str | tuple[str, str] | None] | None = None


def _tool_calls(syntax: ToolCallSyntax | None) -> ToolCallSyntax | None:
    """A plugin's syntax written against an earlier contract, adapted once (see
    ``syntax/_earlier_contract.py``)."""
    from .syntax._earlier_contract import current_tool_calls

    return current_tool_calls(syntax)


def _reasoning(syntax: ReasoningSyntax | None) -> ReasoningSyntax | None:
    """As :func:`_tool_calls`, for the reasoning syntax."""
    from .syntax._earlier_contract import current_reasoning

    return current_reasoning(syntax)


@attrs.frozen
class Release:
    """One Granite release's prompt and output format, composed of syntaxes.

    ``name`` (``"Granite 4.1"``) and ``family`` (``"Granite 4"``) appear in messages.
    ``default_system_message`` is printed when the system text is empty (``None``:
    no system turn then, unless ``always_system``). ``special_tokens`` are the tokens
    caller text may not hold; ``record_tokens`` those a past assistant turn may hold
    (what the model itself writes). ``options`` are the template options read, with
    their defaults; ``option_hints`` explain keys of other releases the template
    ignores. ``stop_strings`` end a generation. ``template_joins_parts`` is true when
    the official template reads content-part lists itself (Granite 4.0/4.1); when false
    (a template that prints only strings) text parts are joined with newlines as servers
    join them. ``empty_system_separated`` is true when a caller's empty system text is
    still followed by the blank line before the blocks (Granite 4.0/4.1).
    ``renders_other_roles`` is true when the template prints a message of any other role
    as a turn of that role (Granite 4.2) rather than dropping it; either way such a
    message is refused in strict mode.

    A release whose template writes a dated default system prompt and the tools and
    documents as turns of their own (Granite 3.x) sets ``system_prompt`` (the default
    system text, built from the date and the request; the system turn is then always
    printed, the caller's text even when empty), ``tools_turn`` and ``documents_turns``
    (the turns after the system turn) and ``controls`` (the ``controls`` option printed
    after the generation prompt's role). Such a template prints every message as a turn
    of its own role, verbatim (tool messages are not wrapped; the roles in
    ``refused_roles`` are refused in strict mode) and the generation prompt
    only after at least one message besides the caller's system message.
    ``record_tokens_lead`` is true when ``record_tokens`` are the model's only at the
    start of a past assistant turn (after whitespace), where it writes them.
    ``template_writes_calls`` is false when the template drops assistant ``tool_calls``:
    they are written in strict mode (a documented deviation) and left out with a
    warning with ``strict=False``.

    ``citations`` is the release's citation syntax (Granite 3.x: ``CO_CITATIONS``,
    ``CITE_TOKEN_CITATIONS``); the output of a release that declares one is also read
    for citations, sections and hallucinations (its messages are
    ``Granite3AssistantMessage``). ``tool_call_markers`` are further markers that open a
    tool call in output besides ``tool_calls.open`` (Granite 3.x: ``<tool_call>``);
    ``tool_call_ends`` are end markers removed from the content wherever they stand
    outside a block (noted when no call came before; Granite 3.x: ``</tool_call>``).
    ``dropped_tokens`` are removed from the output wherever they stand, reasoning and
    tool-call bodies included (Granite 3.x: ``<|end_of_text|>``).
    """

    name: str
    family: str
    turns: TurnSyntax
    special_tokens: SpecialTokens
    stop_strings: tuple[str, ...]
    tool_calls: ToolCallSyntax | None = attrs.field(default=None, converter=_tool_calls)
    reasoning: ReasoningSyntax | None = attrs.field(default=None, converter=_reasoning)
    tools_block: SystemBlock | None = None
    documents_block: SystemBlock | None = None
    default_system_message: str | None = None
    always_system: bool = False
    record_tokens: tuple[str, ...] = ()
    options: tuple[Option, ...] = ()
    option_hints: Mapping[str, str] = attrs.field(factory=dict, hash=False)
    template_joins_parts: bool = True
    empty_system_separated: bool = True
    renders_other_roles: bool = False
    system_prompt: DatedSystemPrompt | None = None
    tools_turn: ToolsTurn | None = None
    documents_turns: DocumentsTurn | DocumentTurnPerDocument | None = None
    controls: Controls | None = None
    refused_roles: tuple[str, ...] = ()
    record_tokens_lead: bool = False
    template_writes_calls: bool = True
    citations: CitationFormat | None = None
    tool_call_markers: tuple[str, ...] = ()
    tool_call_ends: tuple[str, ...] = ()
    dropped_tokens: tuple[str, ...] = ()

    def option(self, name: str) -> Option | None:
        """The declared option ``name``, or ``None``."""
        for option in self.options:
            if option.name == name:
                return option
        return None

    def input_processor(self) -> InputProcessor:
        """A new input processor rendering this release's prompts."""
        from ._engine.render import ReleaseInputProcessor

        return ReleaseInputProcessor(self)

    def output_processor(self) -> OutputProcessor:
        """A new output processor parsing this release's output."""
        if self.citations is not None:
            from .granite3._output_processor import CitedOutputProcessor

            return CitedOutputProcessor(self)
        from ._engine.parse import ReleaseOutputProcessor

        return ReleaseOutputProcessor(self)
