"""How the renderer writes a :class:`~granite_formatters.syntax.SystemBlocksLayout`
(Granite 4.x, role tokens or ChatML): the tools and documents as blocks of the system
turn, past reasoning and tool calls in assistant turns, consecutive tool results in one
turn, messages of other roles printed or dropped, the generation prompt with the
release's reasoning.

The renderer's one loop asks a layout's writer (``SystemBlocksLayout.writer``) what to
write; this module holds what only the system-blocks layout knows.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .._engine.checks import _checked
from .._engine.documents import request_documents
from .._engine.render import (
    _history_calls,
    _Writer,
)
from .._engine.request import NotPlain, are_plain_documents, plain_turn
from .._errors import quote
from .._special_tokens import SpecialTokenPolicy

if TYPE_CHECKING:
    from .._engine.render import ReleaseInputProcessor
    from .._engine.request import Problems
    from ._context_turns import DocumentsTurn, DocumentTurnPerDocument
    from ._protocols import Head, OptionSet, TurnContext
    from ._system_blocks_layout import SystemBlocksLayout

__all__ = ["SystemBlocksWriter"]


def _role(message: Any) -> Any:
    """A message's role, read without judging it (``None`` when it has none)."""
    if type(message) is dict or isinstance(message, Mapping):
        return message.get("role")
    return getattr(message, "role", None)


class SystemBlocksWriter:
    """A :class:`SystemBlocksLayout` bound to one release's input processor."""

    __slots__ = (
        "_assistant_tokens",
        "_end",
        "_headers",
        "_reasoning",
        "_release",
        "_tokens",
        "layout",
        "processor",
        "reads_typed",
        "verbatim_roles",
    )

    #: The documents are blocks of the system turn, not turns of their own.
    documents_turns: DocumentsTurn | DocumentTurnPerDocument | None = None

    def __init__(self, layout: SystemBlocksLayout, processor: ReleaseInputProcessor) -> None:
        self.layout = layout
        self.processor = processor
        self.reads_typed = False
        # (what each turn reads, resolved once)
        self._release = processor.release
        self._reasoning = processor.release.reasoning
        self._headers = processor._headers
        self._end = processor._end
        self._tokens = processor._tokens
        self._assistant_tokens = processor._assistant_tokens
        #: The roles a message is written with as it is (no calls, no special token's
        #: sentinel in its text; a system message after the first): an assistant's only
        #: when the release has no reasoning to write with it.
        roles = {"user", "system"}
        if processor.release.reasoning is None:
            roles.add("assistant")
        self.verbatim_roles = frozenset(roles)

    def typed_options(self, kwargs: Any) -> OptionSet | None:
        """No typed options object of its own: read by name."""
        return None

    def options_prompt(self, options: Mapping[str, Any]) -> str | None:
        """No generation prompt kept with the options."""
        return None

    def head(
        self,
        request: Any,
        plain: bool,
        messages: Sequence[Any],
        tools: Any,
        tools_field: str,
        documents: Any,
        option_set: OptionSet,
        raw: Mapping[str, Any] | None,
        raw_messages: Any,
        policy: SpecialTokenPolicy,
        problems: Problems,
        today: datetime.date | None,
    ) -> Head:
        """The system turn: the first message's text if it is the system's, then the
        tools and documents blocks (or the default system message); the index of the last
        user message when the release has reasoning (marked when its reasoning adds to
        it); the generation prompt."""
        processor = self.processor
        layout = self.layout
        release = processor.release
        tokens = processor._tokens
        end = processor._end
        headers = processor._headers
        if documents:
            if not plain:
                documents = request_documents(request, raw)
            elif not are_plain_documents(documents):
                raise NotPlain
        blocks: list[str] = []
        if tools:
            block = layout.tools_block
            if block is None:
                processor._unrendered(tools_field, problems)
            else:
                blocks.append(processor._lines(tools, tools_field, policy, block))
        if documents:
            block = layout.documents_block
            if block is None:
                processor._unrendered("documents", problems)
            else:
                blocks.append(processor._lines(documents, "documents", policy, block))
        system: Any
        if plain:
            role, system, calls = plain_turn(messages[0])
        else:
            first = messages[0]
            role = first.role
            system = first.content
            calls = first.tool_calls
        start = 0
        if role == "system":
            start = 1
            if not plain and (raw_messages is not None or system is None or system[:1] == "\n"):
                system = processor._text(raw_messages, messages, 0, system)
            if policy == "keep" or type(system) is not str or tokens.sentinel in system:
                system = _checked(system, "messages[0].content", policy, tokens)
            if blocks and (system or layout.empty_system_separated):
                system = "\n\n".join([system, *blocks])
            elif blocks:
                system = "\n\n".join(blocks)
            if calls:
                problems.add(
                    "tool_calls on a 'system' message are not rendered; only assistant "
                    "messages carry tool calls.",
                    "messages[0].tool_calls",
                )
        else:
            system = "\n\n".join(blocks)
        if system:
            out = [headers["system"], system, end]
        elif layout.default_system_message is not None:
            out = [headers["system"], layout.default_system_message, end]
        elif layout.always_system:
            out = [headers["system"], end]
        else:
            out = []
        reasoning = release.reasoning
        options = option_set[0]
        last_user = marked = -1
        if reasoning is None:
            generation = processor._generation_prompt
        else:
            generation = processor._generation_prompt + reasoning.generation_prompt(options)
            for index in range(len(messages) - 1, -1, -1):
                message = messages[index]
                if (message.get("role") if type(message) is dict else _role(message)) == "user":
                    last_user = index
                    # (written by the loop as it is when nothing is added to it)
                    if reasoning.last_user_suffix(options):
                        marked = index
                    break
        return out, start, last_user, marked, generation

    def turn(
        self,
        out: list[str],
        index: int,
        role: Any,
        text: Any,
        calls: Sequence[Any] | None,
        context: TurnContext,
    ) -> None:
        """Write a message the render loop does not write as it is: a validated
        message's text, a special token's sentinel in its text, tool calls, past
        reasoning, the last user message of a release with reasoning, a tool result (in
        one turn with its neighbours), a message of another role (printed as a turn of
        that role, or dropped)."""
        messages, raw, raw_messages, plain, policy, problems, options, last_user, start = context
        processor = self.processor
        headers = self._headers
        end = self._end
        tokens = self._tokens
        if calls and role != "assistant":
            problems.add(
                f"tool_calls on a {quote(role)} message are not rendered; only assistant "
                "messages carry tool calls.",
                f"messages[{index}].tool_calls",
            )
        if not plain and (raw_messages is not None or text is None or text[:1] == "\n"):
            text = processor._text(raw_messages, messages, index, text)
        sentinel = tokens.sentinel if policy != "keep" else None
        reasoning = self._reasoning
        if role == "user" or role == "system":
            if sentinel is None or type(text) is not str or sentinel in text:
                text = _checked(text, f"messages[{index}].content", policy, tokens)
            if index == last_user and reasoning is not None:
                text += reasoning.last_user_suffix(options)
            out += (headers[role], text, end)
        elif role == "assistant":
            assistant_tokens = self._assistant_tokens
            if sentinel is None or type(text) is not str or assistant_tokens.sentinel in text:
                text = _checked(text, f"messages[{index}].content", policy, assistant_tokens)
            if reasoning is not None:
                past = processor._reasoning_of(raw, index, messages[index])
                if past:
                    # (caller text too: it may not forge turns)
                    field = f"messages[{index}].reasoning_content"
                    past = _checked(past, field, policy, assistant_tokens)
                text = reasoning.history(
                    text,
                    past,
                    historical=index < last_user,
                    tool_calls=bool(calls),
                    options=options,
                )
            tool_calls = self._release.tool_calls
            if calls and tool_calls is not None:
                writer = _Writer(assistant_tokens, policy, problems)
                history = _history_calls(calls, f"messages[{index}]", problems)
                text = tool_calls.write(text, history, writer)
            out += (headers["assistant"], text, end)
        elif role == "tool":
            turns = self._release.turns
            results = turns.tool_results
            if index == 0 or _role(messages[index - 1]) != "tool":
                first = index == 0 or (index == 1 and start == 1)
                if results.header_when_first or not first:
                    out.append(headers.get(results.role) or turns.header(results.role))
            if sentinel is None or type(text) is not str or sentinel in text:
                text = _checked(text, f"messages[{index}].content", policy, tokens)
            out += (results.item_open, text, results.item_close)
            if index == len(messages) - 1 or _role(messages[index + 1]) != "tool":
                out.append(end)
        elif self.layout.renders_other_roles:
            release = self._release
            where = f"messages[{index}]"
            problems.add(
                f"the {release.family} chat template renders a message with role "
                f"{quote(role)} as a turn of that role, which the model was not trained on "
                "(use system, user, assistant or tool).",
                f"{where}.role",
            )
            # (the role is caller text too: printed in the header, it may not forge turns)
            role = _checked(role, f"{where}.role", policy, tokens)
            text = _checked(text, f"{where}.content", policy, tokens)
            out += (release.turns.header(role), text, end)
        else:
            problems.add(
                f"the {self._release.family} chat template drops messages with role "
                f"{quote(role)} "
                "(it renders system, user, assistant and tool messages only).",
                f"messages[{index}].role",
            )
