"""How the renderer writes a :class:`~granite_formatters.syntax.DatedLayout` (Granite 3.x):
the system turn (the caller's, or the dated default), the tools and documents turns after
it, each message as a turn of its own role, and the generation prompt with the controls.

The renderer's one loop asks a layout's writer (``DatedLayout.writer``) what to write;
this module holds what only the dated layout knows.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .._engine.checks import _checked
from .._engine.documents import request_documents
from .._engine.render import (
    ROLES,
    _history_calls,
    _Writer,
)
from .._engine.request import plain_turn
from .._errors import InvalidRequestError, quote
from .._special_tokens import SpecialTokenPolicy
from ._context_turns import DocumentsTurn, DocumentTurnPerDocument
from ._controls import CONTROLS, thinking_option_error, valid_control_items

if TYPE_CHECKING:
    from .._engine.render import ReleaseInputProcessor
    from .._engine.request import Problems
    from ._dated_layout import DatedLayout
    from ._protocols import Head, OptionSet, TurnContext

__all__ = ["DatedWriter"]

#: How many default system turns (and controlled generation prompts) a writer keeps
#: (then it starts afresh).
_KEPT = 32

#: The Granite 3.x options (default and check by name): a release that declares exactly
#: these reads a typed options object (``DatedLayout.options_type``) by attribute.
_TYPED_OPTION_DECLARATIONS = {
    "thinking": (False, thinking_option_error),
    "controls": (None, CONTROLS.check),
}

#: What a default system turn's text depends on: the date, whether there are tools and
#: documents, thinking, and whether the controls ask for citations and hallucinations.
_SystemKey = tuple[datetime.date, bool, bool, bool, bool, bool]

#: What a head's plan depends on besides the options: the date, whether the first
#: message is the caller's system message, whether there are no tools, no documents.
_PlanKey = tuple[datetime.date, bool, bool, bool]

#: A head's plan: the default system turn (``None``: the caller's is written), the
#: options the template would not honour (field, problem), the generation prompt.
_Plan = tuple["str | None", tuple[tuple[str, str], ...], str]

_DATE = datetime.date


def _checked_day(today: Any) -> datetime.date:
    """``today`` when it is a date (the date of a dated system prompt)."""
    if not isinstance(today, datetime.date):
        raise InvalidRequestError(
            f"must be a datetime.date, not {type(today).__name__}", field="today"
        )
    return today


class DatedWriter:
    """A :class:`DatedLayout` bound to one release's input processor (its memos: the
    default system turns by date and flags, the generation prompts by controls)."""

    __slots__ = (
        "_controlled",
        "_default_flags",
        "_end",
        "_options_type",
        "_record_tokens_lead",
        "_refused",
        "_system_texts",
        "_tokens",
        "_tools_header",
        "_typed_sets",
        "_writes_calls",
        "layout",
        "processor",
        "reads_typed",
        "verbatim_roles",
    )

    def __init__(self, layout: DatedLayout, processor: ReleaseInputProcessor) -> None:
        release = processor.release
        self.layout = layout
        self.processor = processor
        self._tokens = processor._tokens
        self._end = processor._end
        # (Granite3Kwargs, imported when a typed request first comes: see typed_options)
        self._options_type: type[Any] | None = None
        # The controls and thinking flag of a request that sets no option.
        self._default_flags = (
            processor._defaults.get("controls"),
            processor._defaults.get("thinking") is True,
        )
        self._refused = frozenset(layout.refused_roles)
        self._writes_calls = layout.template_writes_calls
        self._record_tokens_lead = layout.record_tokens_lead
        sentinel = release.special_tokens.sentinel
        #: The roles a message is written with as it is (no calls, no special token's
        #: sentinel in its text): not refused, without the sentinel.
        self.verbatim_roles = frozenset(
            role for role in ROLES - self._refused if not sentinel or sentinel not in role
        )
        #: Whether the options are the Granite 3.x ones (thinking, controls), checked as
        #: their syntax checks them: a typed options object is then read by attribute.
        self.reads_typed = (
            layout.controls is not None
            and {option.name: (option.default, option.check) for option in release.options}
            == _TYPED_OPTION_DECLARATIONS
        )
        self._tools_header = (
            release.turns.header(layout.tools_turn.role) if layout.tools_turn else ""
        )
        self._system_texts: dict[_SystemKey, str] = {}
        # Generation prompts with controls, by the controls' items (checked valid: exact
        # str keys, bool/str/null values, so equal items print alike).
        self._controlled: dict[tuple[tuple[str, Any], ...], str] = {}
        # The option sets of typed options objects, by thinking and the controls' items.
        self._typed_sets: dict[tuple[bool, tuple[tuple[str, Any], ...] | None], OptionSet] = {}

    @property
    def documents_turns(self) -> DocumentsTurn | DocumentTurnPerDocument | None:
        """How the documents are written: turns after the system turn."""
        return self.layout.documents_turns

    def typed_options(self, kwargs: Any) -> OptionSet | None:
        """A ``Granite3ChatCompletion``'s options read by attribute (their defaults the
        release's), with the generation prompt of their controls when kept; ``None`` when
        they are not of that type or not valid (the caller then checks them by name and
        raises the error)."""
        options_type = self._options_type
        if options_type is None:
            options_type = self._options_type = self.layout.options_type()
        if type(kwargs) is not options_type:
            return None
        thinking = kwargs.thinking
        controls = kwargs.controls
        if not (thinking is None or thinking is True or thinking is False):
            return None
        if controls is None:
            if thinking is not True:
                return self.processor._default_set  # (read only: shared)
            items = None
        elif type(controls) is not dict:
            return None
        else:
            items = valid_control_items(controls)
            if items is None:
                return None
        key = (thinking is True, items)
        option_set = self._typed_sets.get(key)
        if option_set is None:
            # (the controls copied: checked valid, equal items print alike)
            options = {
                "thinking": thinking is True,
                "controls": None if items is None else dict(items),
            }
            option_set = (options, self._controlled.get(items) if items else None, {})
            if len(self._typed_sets) >= _KEPT:
                self._typed_sets.clear()
            self._typed_sets[key] = option_set
        return option_set

    def options_prompt(self, options: Mapping[str, Any]) -> str | None:
        """The generation prompt with the (checked) options' controls, if they set any."""
        controls = options.get("controls")
        return self.controlled_prompt(controls) if controls and self.layout.controls else None

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
        """The system turn (the caller's or the dated default), the tools turn and the
        documents turns; the first message they consume; the generation prompt (printed
        only after a message besides the caller's system message).

        What the date, the options and the request's shape decide (the default system
        turn, the options the template would not honour, the generation prompt) is
        planned once (:meth:`_plan`) and kept in the option set's dict."""
        if today is None:
            today = self.layout.today()
        elif type(today) is not _DATE:
            today = _checked_day(today)
        first = messages[0]
        if plain:
            # (only its role read here: a message that is not the system's is read, and
            # checked, with the others by the render loop)
            first_role = first.get("role") if type(first) is dict else None
        else:
            first_role = first.role  # (its text and calls read if it is the system's)
            if documents and raw is not None:
                documents = request_documents(request, raw)
        if policy == "strip" and type(first_role) is str:
            # As if the request had been sanitized first: "sys<|end_of_text|>tem" is a
            # system role.
            first_role = self._tokens.remove(first_role)
        custom_system = first_role == "system" and type(first_role) is str
        key = (today, custom_system, not tools, not documents)
        plan = option_set[2].get(key)
        if plan is None:
            plan = self._plan(key, option_set)
        system, unhonoured, generation = plan
        for field, why in unhonoured:
            problems.add(why, field)
        start = 0
        if system is not None:
            out = [system]
        else:
            out = self._system(plain, messages, raw_messages, policy, problems)
            start = 1
            if len(messages) == 1:
                generation = ""  # (only the caller's system message: no generation prompt)
        if tools:
            tools_turn = self.layout.tools_turn
            if tools_turn is None:
                self.processor._unrendered("tools", problems)
            else:
                out += (
                    self._tools_header,
                    self.processor._indented(tools, tools_field, policy, tools_turn.indent),
                    self._end,
                )
        if documents:
            documents_turns = self.layout.documents_turns
            if documents_turns is None:
                self.processor._unrendered("documents", problems)
            else:
                self.processor._documents.write(
                    out,
                    documents,
                    documents_turns,
                    policy,
                    problems,
                    plain,
                    raw is None,  # (typed: a validated request's documents)
                )
        return out, start, -1, -1, generation

    def _plan(self, key: _PlanKey, option_set: OptionSet) -> _Plan:
        """What the head writes for ``key`` (the date, whether the first message is the
        caller's system message, whether there are no tools and no documents) and the
        option set: the default system turn (``None``: the caller's), the options the
        template would not honour (field, problem), the generation prompt; kept in the
        option set's dict when it has one (bounded) and the date is a ``datetime.date``."""
        today, custom_system, no_tools, no_documents = key
        options, prompt, plans = option_set
        processor = self.processor
        layout = self.layout
        if options is processor._defaults:
            controls, thinking = self._default_flags
        else:
            controls = options.get("controls")
            thinking = options.get("thinking") is True
        unhonoured: tuple[tuple[str, str], ...] = ()
        if thinking or (controls and (custom_system or no_documents)):
            # (nothing unhonoured otherwise)
            unhonoured = tuple(
                layout.system_prompt.unhonoured(
                    processor.release.name,
                    custom_system=custom_system,
                    tools=not no_tools,
                    documents=not no_documents,
                    thinking=thinking,
                    controls=controls,
                )
            )
        system = None
        if not custom_system:
            has_documents = not no_documents
            system_key = (
                today,
                not no_tools,
                has_documents,
                thinking,
                has_documents and controls is not None and "citations" in controls,
                has_documents and controls is not None and "hallucinations" in controls,
            )
            system = self._system_texts.get(system_key)
            if system is None:
                system = self._system_turn(system_key, controls)
        if prompt is not None:
            generation = prompt
        elif not controls or layout.controls is None:
            generation = processor._generation_prompt
        else:
            generation = self.controlled_prompt(controls)
        plan = (system, unhonoured, generation)
        if type(today) is _DATE:
            if len(plans) >= _KEPT:
                plans.clear()
            plans[key] = plan
        return plan

    def _system(
        self,
        plain: bool,
        messages: Sequence[Any],
        raw_messages: Any,
        policy: SpecialTokenPolicy,
        problems: Problems,
    ) -> list[str]:
        """The caller's system turn (the first message), checked."""
        processor = self.processor
        if plain:
            _, first_text, first_calls = plain_turn(messages[0])
        else:
            first_text = messages[0].content
            first_calls = messages[0].tool_calls
        if first_text is None:
            raise processor._missing_content(0)
        text = first_text
        if raw_messages is not None or text[:1] == "\n":
            text = processor._text(raw_messages, messages, 0, text)
        # (a str subclass's own __contains__ could hide a token: checked in full)
        tokens = self._tokens
        if type(text) is not str or policy == "keep" or tokens.sentinel in text:
            text = _checked(text, "messages[0].content", policy, tokens)
        if first_calls:
            problems.add(
                "tool_calls on a 'system' message are not rendered; only assistant "
                "messages carry tool calls.",
                "messages[0].tool_calls",
            )
        return [processor._headers["system"], text, self._end]

    def turn(
        self,
        out: list[str],
        index: int,
        role: Any,
        text: Any,
        calls: Sequence[Any] | None,
        context: TurnContext,
    ) -> None:
        """Write a message the render loop does not write as it is: a validated message's
        missing, joined or non-``str`` text, a special token in its role or text, a role
        the release was not trained on, tool calls. Every message is a turn of its own
        role."""
        messages, _, raw_messages, plain, policy, problems, _, _, _ = context
        processor = self.processor
        tokens = processor._tokens
        if not plain:
            if text is None:
                if not (calls and role == "assistant" and (self._writes_calls or problems.strict)):
                    raise processor._missing_content(index, calls=bool(calls))
                text = ""
            elif raw_messages is not None or text[:1] == "\n":
                text = processor._text(raw_messages, messages, index, text)
        sentinel = tokens.sentinel if policy != "keep" else ""
        if (
            sentinel in role
            or sentinel in text
            # (a typed request's str subclass, whose own __contains__ could hide a
            # token: checked in full; a plain request's texts are exact str)
            or type(text) is not str
            or type(role) is not str
        ):
            where = f"messages[{index}]"
            role = _checked(role, f"{where}.role", policy, tokens)
            if role == "assistant" and policy == "error" and self._record_tokens_lead:
                self._check_assistant_lead(text, f"{where}.content")
            else:
                text = _checked(text, f"{where}.content", policy, tokens)
        if role in self._refused:
            problems.add(
                f"{processor.release.name} was not trained on the role {quote(role)}; the chat "
                "template prints it verbatim as an unknown role. Use 'system'.",
                f"messages[{index}].role",
            )
        if calls:
            text = self._turn_calls(role, text, calls, index, policy, problems)
        out += (processor._headers[role], text, processor._end)

    def _system_turn(self, key: _SystemKey, controls: Mapping[str, Any] | None) -> str:
        """The default system turn for ``key`` (the date, the tools, documents and
        thinking flags, and whether ``controls`` ask for citations and hallucinations, all
        its text depends on), kept in a small memo by ``key``."""
        today, tools, documents, thinking, _, _ = key
        processor = self.processor
        text = self.layout.system_prompt.text(
            today, tools=tools, documents=documents, thinking=thinking, controls=controls
        )
        turn = processor._headers["system"] + text + processor._end
        if type(today) is _DATE:
            if len(self._system_texts) >= _KEPT:
                self._system_texts.clear()
            self._system_texts[key] = turn
        return turn

    def controlled_prompt(self, controls: Mapping[str, Any]) -> str:
        """The generation prompt with the (checked) controls after the assistant role."""
        items = tuple(controls.items())
        prompt = self._controlled.get(items)
        if prompt is None:
            assert self.layout.controls is not None  # (the caller's condition)
            suffix = self.layout.controls.role_suffix(controls)
            prompt = self.processor.release.turns.header("assistant" + suffix)
            if len(self._controlled) >= _KEPT:
                self._controlled.clear()
            self._controlled[items] = prompt
        return prompt

    def _turn_calls(
        self,
        role: str,
        text: str,
        calls: Sequence[Any],
        index: int,
        policy: SpecialTokenPolicy,
        problems: Problems,
    ) -> str:
        """A message's text with its tool calls written (assistant turns of a template
        that writes them, or in strict mode), else a problem."""
        where = f"messages[{index}]"
        release = self.processor.release
        if role != "assistant":
            problems.add(
                f"tool_calls on a {quote(role)} message are not rendered; only "
                "assistant messages carry tool calls.",
                f"{where}.tool_calls",
            )
        elif not (self._writes_calls or problems.strict):
            problems.add(
                f"the {release.name} chat template does not render tool_calls "
                f"({len(calls)} call(s) left out).",
                f"{where}.tool_calls",
            )
        elif release.tool_calls is not None:
            writer = _Writer(self.processor._tokens, policy, problems)
            text = release.tool_calls.write(text, _history_calls(calls, where, problems), writer)
        return text

    def _check_assistant_lead(self, text: str, field: str) -> None:
        """Refuse a special token in a past assistant turn's text, except a record token
        at its start (after whitespace), where the model writes it."""
        stripped = text.lstrip()
        for token in self.processor.release.record_tokens:
            if stripped.startswith(token):
                text = stripped[len(token) :]
                break
        _checked(text, field, "error", self.processor._tokens)
