"""The one renderer: a request view and a :class:`~granite_formatters.Release` in, the
prompt out, byte for byte what the release's official template prints."""

from __future__ import annotations

import datetime
import marshal
import warnings
from collections.abc import Iterator, Mapping, Sequence
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from .._errors import DroppedInputWarning, InvalidRequestError, quote
from .._jsonwriter import JSONNestingError, tojson
from .._plaindicts import PlainDataMemo
from .._processors import InputProcessor
from .._special_tokens import (
    SpecialTokenPolicy,
    SpecialTokens,
    find_special_token_in_json,
    remove_special_tokens_in_json,
)
from ..syntax._controls import CONTROLS, thinking_option_error, valid_control_items
from ..syntax._dated_layout import DatedLayout
from ..syntax._protocols import HistoryCall
from ..syntax._system_blocks_layout import SystemBlocksLayout
from .checks import _checked, _special_token_error
from .documents import DocumentTurns, request_documents
from .request import (
    STRICT,
    VALIDATED_TYPES,
    NotPlain,
    PlainRequest,
    Problems,
    RequestView,
    _new,
    body_value,
    join_parts,
    plain_fields,
    plain_messages,
    plain_request,
    plain_turn,
    revalidated,
    top_level_effort,
    view,
)
from .request import typed_options as _typed_options

if TYPE_CHECKING:
    from .._processors import RequestLike
    from ..release import Release
    from ..syntax._blocks import SystemBlock
    from ..syntax._protocols import TurnSyntax

__all__ = ["ReleaseInputProcessor"]

#: How many default system texts (and option sets) a processor keeps (then it starts
#: afresh), and the longest options key kept.
_SYSTEM_TEXTS_KEPT = 32
_OPTION_KEY_LENGTH = 4096

_DATE = datetime.date

#: The Granite 3.x options (default and check by name): a release that declares exactly
#: these reads a typed options object (``DatedLayout.options_type``) by attribute (see
#: ``_reads_typed``).
_TYPED_OPTION_DECLARATIONS = {
    "thinking": (False, thinking_option_error),
    "controls": (None, CONTROLS.check),
}

#: A validated message's role, content and tool calls.
_TURN = attrgetter("role", "content", "tool_calls")

#: What a default system turn's text depends on: the date, whether there are tools and
#: documents, thinking, and whether the controls ask for citations and hallucinations.
_SystemKey = tuple[datetime.date, bool, bool, bool, bool, bool]

#: The roles every chat has (a message of another role is written through ``_turn``).
_ROLES = frozenset({"system", "user", "assistant", "tool"})
_NO_ROLES: frozenset[str] = frozenset()


#: The message keys past reasoning is read from, first non-null first (transformers).
_REASONING_KEYS = ("reasoning_content", "thinking", "reasoning")


def _jinja_text(value: Any) -> str:
    """How Jinja prints a value with ``{{ value }}``."""
    if isinstance(value, str):
        return value
    return str(value)


def _refusal(refused: str | tuple[str, str], field: str) -> InvalidRequestError:
    """The error of an option's refused value (an :class:`~granite_formatters.release.Option`
    check's answer: a message, or the path of the part at fault and a message)."""
    if isinstance(refused, tuple):
        path, refused = refused
        field = f"{field}.{path}"
    return InvalidRequestError(refused, field=field)


def _json(value: Any, field: str, indent: int | None = None) -> str:
    try:
        return tojson(value, indent)
    except (JSONNestingError, RecursionError):
        raise InvalidRequestError("is nested too deeply to render", field=field) from None
    except (TypeError, ValueError) as exc:
        raise InvalidRequestError(f"cannot be written as JSON ({exc})", field=field) from None


def _json_value(
    value: Any,
    field: str,
    policy: SpecialTokenPolicy,
    tokens: SpecialTokens,
    indent: int | None = None,
) -> str:
    text = _json(value, field, indent)
    if policy == "keep" or tokens.search(text) is None:
        return text
    if policy == "strip":
        return _json(remove_special_tokens_in_json(value, tokens, field), field, indent)
    found = find_special_token_in_json(value, tokens, field)
    where, token = found if found is not None else (field, tokens.search(text) or "")
    raise _special_token_error(token, where)


def _typed_text(message: Any, text: str, by_template: bool) -> str:
    """A validated message's text as :func:`join_parts` joins its parts: when the
    template joins them (``by_template``), the newlines of empty text parts before the
    first non-empty one are not printed."""
    if not by_template:
        return text
    skip = getattr(message, "_leading_empty_parts", 0)
    if skip and type(skip) is int and text.startswith("\n" * min(skip, len(text))):
        return text[skip:]
    return text


def _checked_day(today: Any) -> datetime.date:
    """``today`` when it is a date (the date of a dated system prompt)."""
    if not isinstance(today, datetime.date):
        raise InvalidRequestError(
            f"must be a datetime.date, not {type(today).__name__}", field="today"
        )
    return today


def _index(items: Sequence[Any], item: object, start: int) -> int:
    """The index of ``item`` itself (not an equal one) in ``items``, from ``start``."""
    return next(i for i in range(start, len(items)) if items[i] is item)


class _Headers(dict[str, str]):
    """The turn headers by role, each made when first read."""

    __slots__ = ("turns",)

    def __init__(self, turns: TurnSyntax) -> None:
        super().__init__((role, turns.header(role)) for role in ("system", "user", "assistant"))
        self.turns = turns

    def __missing__(self, role: str) -> str:
        header = self.turns.header(role)
        if len(self) < _HEADERS_KEPT and len(role) <= 64:
            self[role] = header
        return header

    def __reduce__(self) -> Any:
        return (_Headers, (self.turns,))


#: How many turn headers a processor keeps.
_HEADERS_KEPT = 64


class _Writer:
    """The :class:`~granite_formatters.syntax.HistoryWriter` of one assistant turn."""

    __slots__ = ("policy", "problems", "tokens")

    def __init__(self, tokens: SpecialTokens, policy: SpecialTokenPolicy, problems: Problems):
        self.tokens = tokens
        self.policy = policy
        self.problems = problems

    def text(self, value: str, field: str) -> str:
        # (text without the token set's sentinel has none of its tokens)
        if self.policy == "keep" or (type(value) is str and self.tokens.sentinel not in value):
            return value
        return _checked(value, field, self.policy, self.tokens)

    def json(self, value: Any, field: str) -> str:
        return _json_value(value, field, self.policy, self.tokens)

    def problem(self, message: str, field: str) -> None:
        self.problems.add(message, field)


def _history_calls(calls: Sequence[Any], field: str, problems: Problems) -> Iterator[HistoryCall]:
    """Each call of an assistant message unwrapped (checked as it is reached)."""
    for number, call in enumerate(calls):
        where = f"{field}.tool_calls[{number}]"
        if type(call) is not dict and not isinstance(call, Mapping):
            raise InvalidRequestError(
                "must be an object ({'function': {'name', 'arguments'}} or {'name', 'arguments'})",
                field=where,
            )
        function = call.get("function")
        if function:
            if type(function) is not dict and not isinstance(function, Mapping):
                raise InvalidRequestError("must be an object", field=f"{where}.function")
            call = function
            where += ".function"
        if "arguments" not in call:
            raise InvalidRequestError(
                "the arguments are missing; give a JSON string or an object "
                "(the chat template fails without them)",
                field=f"{where}.arguments",
            )
        name = call.get("name", "")
        reported = False
        if not isinstance(name, str) or not name:
            problems.add(
                f"a tool call needs a non-empty string name, not {quote(name)}.",
                f"{where}.name",
            )
            name = _jinja_text(name) if "name" in call else ""
            reported = True
        yield HistoryCall(name, call["arguments"], where, name_reported=reported)


class ReleaseInputProcessor(InputProcessor):
    """Renders chat requests as the prompts of one :class:`~granite_formatters.Release`."""

    release: Release

    def __init__(self, release: Release) -> None:
        self.release = release
        self._tokens = release.special_tokens
        record = frozenset(release.record_tokens)
        self._assistant_tokens = SpecialTokens(
            token for token in release.special_tokens if token not in record
        )
        # The template options' defaults, and whether the release reads the OpenAI
        # top-level reasoning_effort (both read per call).
        # (shared by the calls that set no option: never written to)
        self._defaults: Mapping[str, Any] = {
            option.name: option.default for option in release.options
        }
        self._reads_effort = release.option("reasoning_effort") is not None
        layout = release.layout
        dated = layout if isinstance(layout, DatedLayout) else None
        # (the layout as its own type: one of the two is None)
        self._dated = dated
        self._system_layout = layout if isinstance(layout, SystemBlocksLayout) else None
        self._controls = dated.controls if dated is not None else None
        self._writes_calls = dated.template_writes_calls if dated is not None else True
        self._record_tokens_lead = dated.record_tokens_lead if dated is not None else False
        self._joins_parts = release.template_joins_parts
        self._declared = {option.name: option for option in reversed(release.options)}
        # Whether the options are the Granite 3.x ones (thinking, controls), checked as
        # their syntax checks them: a typed options object is then read by attribute.
        self._reads_typed = (
            self._controls is not None
            and {option.name: (option.default, option.check) for option in release.options}
            == _TYPED_OPTION_DECLARATIONS
        )
        # Generation prompts with controls, by the controls' items (checked valid: exact
        # str keys, bool/str/null values, so equal items print alike).
        self._controlled: dict[tuple[tuple[str, Any], ...], str] = {}
        # The turn headers of the roles every request has (others are made when met).
        self._headers = _Headers(release.turns)
        # What every render reads of the release, resolved once.
        self._end = release.turns.end
        self._generation_prompt = self._headers["assistant"]
        self._refused = frozenset(dated.refused_roles if dated is not None else ())
        # The roles a 3.x message is written with as it is: no special token's sentinel,
        # not refused (any other role goes through _turn).
        self._plain_roles = frozenset(
            role
            for role in _ROLES - self._refused
            if not self._tokens.sentinel or self._tokens.sentinel not in role
        )
        self._documents = DocumentTurns(release, dated)
        self._tools_header = (
            release.turns.header(dated.tools_turn.role)
            if dated is not None and dated.tools_turn
            else ""
        )
        # Default system turns of a dated system prompt by date and flags (the controls
        # count through their citations and hallucinations keys).
        self._system_texts: dict[_SystemKey, str] = {}
        # The template options of recent chat_template_kwargs that raised no problem and
        # name no tools, by the kwargs' marshal bytes (equal bytes: the same data of the
        # same exact types, so the same options; kept options are read only), each with
        # the generation prompt of its controls (None: none, or a release without them).
        self._option_sets: dict[bytes, tuple[Mapping[str, Any], str | None]] = {}
        # The JSON lines of recently rendered tool and document lists (usually sent again
        # with every turn), keyed by the list's marshal bytes, the field and the policy.
        self._blocks = PlainDataMemo()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ReleaseInputProcessor):
            return NotImplemented
        return self.release == other.release

    def __hash__(self) -> int:
        return hash(self.release.name)

    @property
    def stop_strings(self) -> tuple[str, ...]:
        """The release's stop strings."""
        return self.release.stop_strings

    def transform(
        self,
        chat_completion: RequestLike,
        add_generation_prompt: bool = True,
        *,
        today: datetime.date | None = None,
        special_tokens: SpecialTokenPolicy | None = None,
        strict: bool = True,
    ) -> str:
        """Render ``chat_completion`` as the prompt string the model was trained on.

        The options are checked by the :class:`~granite_formatters.Formatter`;
        ``today`` dates a release's default system prompt (``None``: the clock is read at
        this call) and has no effect on releases whose prompts print no date.
        """
        policy: SpecialTokenPolicy = "error" if special_tokens is None else special_tokens
        problems = STRICT if strict else Problems(False)
        dated = self._dated
        if dated is not None:
            if today is None:
                today = dated.today()
            elif type(today) is not _DATE:
                today = _checked_day(today)
        raw: Mapping[str, Any] | None
        request: Any
        if type(chat_completion) is dict and (fields := plain_fields(chat_completion)):
            # (its messages and documents are checked as they are read: NotPlain; a dated
            # render reads the bare fields, others a PlainRequest)
            request = fields if dated else _new(PlainRequest, fields)
            raw = chat_completion
        elif type(chat_completion) in VALIDATED_TYPES:
            request, raw = chat_completion, None
        else:
            request, raw = view(chat_completion, problems, self.release.family)
        try:
            if dated:
                prompt = self._render_turns(
                    request,
                    raw,
                    add_generation_prompt,
                    policy,
                    problems,
                    today,  # type: ignore[arg-type]
                )
            else:
                prompt = self._render(request, raw, add_generation_prompt, policy, problems)
        except NotPlain:
            prompt, problems = self._validated(
                chat_completion, add_generation_prompt, policy, strict, today
            )
        except InvalidRequestError:
            plain_error = type(request) is PlainRequest or type(request) is tuple
            if not plain_error or plain_request(raw) is not None:  # type: ignore[arg-type]
                raise
            # (a plain request's error found before a later message or document turned
            # out not plain: validation speaks first, as for any request that is not plain)
            prompt, problems = self._validated(
                chat_completion, add_generation_prompt, policy, strict, today
            )
        except (TypeError, AttributeError):
            if raw is not None:
                raise
            # A typed request changed after validation (a field set to another type, a
            # plain dict appended to its messages): validated again, it renders or
            # raises the error naming the field.
            problems = STRICT if strict else Problems(False)
            request = revalidated(request)
            prompt = self._render_any(request, None, add_generation_prompt, policy, problems, today)
        if problems.items:
            warnings.warn(
                f"{self.release.name}: the prompt leaves out what the official chat "
                "template drops: " + "; ".join(problems.items),
                DroppedInputWarning,
                stacklevel=3,
            )
        return prompt

    # ------------------------------------------------------------------ rendering

    def _validated(
        self,
        chat_completion: RequestLike,
        add_generation_prompt: bool,
        policy: SpecialTokenPolicy,
        strict: bool,
        today: datetime.date | None,
    ) -> tuple[str, Problems]:
        """The prompt of a dict that is not plain after all, validated, and its problems."""
        problems = STRICT if strict else Problems(False)
        request, raw = view(chat_completion, problems, self.release.family)
        return (
            self._render_any(request, raw, add_generation_prompt, policy, problems, today),
            problems,
        )

    def _render_any(
        self,
        request: RequestView,
        raw: Mapping[str, Any] | None,
        add_generation_prompt: bool,
        policy: SpecialTokenPolicy,
        problems: Problems,
        today: datetime.date | None,
    ) -> str:
        if today is None or self._dated is None:
            return self._render(request, raw, add_generation_prompt, policy, problems)
        return self._render_turns(request, raw, add_generation_prompt, policy, problems, today)

    def _options(
        self, tools: Any, raw: Mapping[str, Any] | None, problems: Problems, kwargs: Any
    ) -> tuple[Any, str, Mapping[str, Any], str | None]:
        """The tools to list (``available_tools`` may replace them), the request field
        they come from, the template options, the release's defaults filled in, and the
        generation prompt with the options' controls when it is kept with them (else
        ``None``).

        A release with a ``reasoning_effort`` option also reads the OpenAI top-level
        ``reasoning_effort`` as vLLM's chat endpoint applies it: passed to the template
        unless ``chat_template_kwargs`` sets it, and turning ``enable_thinking`` off when
        it is ``"none"`` unless ``chat_template_kwargs`` sets that.
        """
        if kwargs is not None and type(kwargs) is not dict:
            # (a Granite3ChatCompletion's options object)
            kwargs = _typed_options(kwargs)
        if not kwargs and not self._reads_effort:
            return tools, "tools", self._defaults, None  # (read only: shared)
        data: bytes | None = None
        if type(kwargs) is dict and not self._reads_effort:
            # Options of the same exact data are the same (see _option_sets).
            try:
                data = marshal.dumps(kwargs)
            except ValueError:
                pass
            else:
                known = self._option_sets.get(data)
                if known is not None:
                    return tools, "tools", *known
                kwargs = marshal.loads(data)  # (a copy: kept options share nothing with the caller)
        release = self.release
        tools_field = "tools"
        options = dict(self._defaults)
        kwargs = kwargs or {}
        problems_before = len(problems.items)
        declared = self._declared
        for key, value in kwargs.items():
            option = declared.get(key)
            if option is not None:
                if option.check is not None:
                    refused = option.check(value)
                    if refused is not None:
                        raise _refusal(refused, f"chat_template_kwargs.{key}")
                if key == "available_tools":
                    if value:
                        if tools:
                            problems.add(
                                f"available_tools replaces tools in the {release.family} chat "
                                "template, so tools are not rendered; give one of them.",
                                "tools",
                            )
                        tools = value
                        tools_field = "chat_template_kwargs.available_tools"
                elif value is not None:
                    options[key] = value
            elif key == "documents" or not value:
                continue
            elif key in release.option_hints:
                problems.add(
                    f"{release.name} has no {key!r} option: its chat template does not "
                    f"read it ({release.option_hints[key]}).",
                    f"chat_template_kwargs.{key}",
                )
            else:
                problems.add(
                    f"the {release.family} chat template does not read the option {quote(key)}.",
                    f"chat_template_kwargs.{key}",
                )
        if self._reads_effort:
            effort = body_value(raw, "reasoning_effort")
            effort_option = release.option("reasoning_effort")
            if effort_option is not None and effort is not None and effort_option.check:
                refused = effort_option.check(effort)
                if refused is not None:
                    raise _refusal(refused, "reasoning_effort")
            top_level_effort(release, options, kwargs, effort)
        if (
            data is not None
            and tools_field == "tools"
            and len(problems.items) == problems_before
            and len(data) <= _OPTION_KEY_LENGTH
        ):
            controls = options.get("controls")
            prompt = (
                self._controlled_prompt(controls)
                if controls and self._controls is not None
                else None
            )
            if len(self._option_sets) >= _SYSTEM_TEXTS_KEPT:
                self._option_sets.clear()
            self._option_sets[data] = (options, prompt)
            return tools, tools_field, options, prompt
        return tools, tools_field, options, None

    def _render(
        self,
        request: RequestView,
        raw: Mapping[str, Any] | None,
        add_generation_prompt: bool,
        policy: SpecialTokenPolicy,
        problems: Problems,
    ) -> str:
        release = self.release
        layout = self._system_layout
        assert layout is not None  # (a release of the system-blocks layout)
        turns = release.turns
        end = turns.end
        headers = self._headers
        messages = request.messages
        rows: list[Any]
        if type(request) is PlainRequest:
            plain = True
            rows = plain_messages(messages, request.documents)  # (checked as read: NotPlain)
            raw_messages = None  # (a plain request has no content parts)
        else:
            plain = False
            rows = list(map(_TURN, messages))
            raw_messages = raw.get("messages") if raw is not None else None
        # Text without a token set's sentinel has none of its tokens (see SpecialTokens).
        sentinel = self._tokens.sentinel if policy != "keep" else None

        kwargs = request.chat_template_kwargs
        if kwargs is None and not self._reads_effort:
            tools, tools_field, options = request.tools, "tools", self._defaults
        else:
            tools, tools_field, options, _ = self._options(request.tools, raw, problems, kwargs)

        documents = request_documents(request, raw) if request.documents else None

        blocks: list[str] = []
        if tools:
            block = layout.tools_block
            if block is None:
                self._unrendered(tools_field, problems)
            else:
                blocks.append(self._lines(tools, tools_field, policy, block))
        if documents:
            block = layout.documents_block
            if block is None:
                self._unrendered("documents", problems)
            else:
                blocks.append(self._lines(documents, "documents", policy, block))

        out: list[str] = []
        first_is_system = rows[0][0] == "system"
        if first_is_system:
            system: Any = rows[0][1]
            if plain:
                pass  # (an exact str)
            elif raw_messages is not None:
                system = self._text(raw_messages, messages, 0, system)
            elif system is None:
                system = ""
            elif system and system[0] == "\n":
                system = _typed_text(messages[0], system, self._joins_parts)
            if sentinel is None or type(system) is not str or sentinel in system:
                system = _checked(system, "messages[0].content", policy, self._tokens)
            if blocks and (system or layout.empty_system_separated):
                system = "\n\n".join([system, *blocks])
            elif blocks:
                system = "\n\n".join(blocks)
        else:
            system = "\n\n".join(blocks)
        if system:
            out += (headers["system"], system, end)
        elif layout.default_system_message is not None:
            out += (headers["system"], layout.default_system_message, end)
        elif layout.always_system:
            out += (headers["system"], end)

        reasoning = release.reasoning
        results = turns.tool_results
        last_user = -1
        if reasoning is not None:
            for index, row in enumerate(rows):
                if row[0] == "user":
                    last_user = index
        count = len(rows)
        assistant_sentinel = self._assistant_tokens.sentinel if policy != "keep" else None
        for index, (role, text, calls) in enumerate(rows):
            if calls and role != "assistant":
                problems.add(
                    f"tool_calls on a {quote(role)} message are not rendered; only assistant "
                    "messages carry tool calls.",
                    f"messages[{index}].tool_calls",
                )
            if plain:
                pass  # (an exact str, not joined from parts)
            elif raw_messages is None:
                if text is None:
                    text = ""
                elif text and text[0] == "\n":
                    text = _typed_text(messages[index], text, self._joins_parts)
            else:
                text = self._text(raw_messages, messages, index, text)
            if role == "user" or (role == "system" and index > 0):
                if sentinel is None or type(text) is not str or sentinel in text:
                    text = _checked(text, f"messages[{index}].content", policy, self._tokens)
                if index == last_user and reasoning is not None:
                    text += reasoning.last_user_suffix(options)
                out += (headers[role], text, end)
            elif role == "assistant":
                if (
                    assistant_sentinel is None
                    or type(text) is not str
                    or assistant_sentinel in text
                ):
                    text = _checked(
                        text, f"messages[{index}].content", policy, self._assistant_tokens
                    )
                if reasoning is not None:
                    past = self._reasoning_of(raw, index, messages[index])
                    if past:
                        # (caller text too: it may not forge turns)
                        past = _checked(
                            past,
                            f"messages[{index}].reasoning_content",
                            policy,
                            self._assistant_tokens,
                        )
                    text = reasoning.history(
                        text,
                        past,
                        historical=index < last_user,
                        tool_calls=bool(calls),
                        options=options,
                    )
                if calls and release.tool_calls is not None:
                    writer = _Writer(self._assistant_tokens, policy, problems)
                    text = release.tool_calls.write(
                        text, _history_calls(calls, f"messages[{index}]", problems), writer
                    )
                out += (headers["assistant"], text, end)
            elif role == "tool":
                if index == 0 or rows[index - 1][0] != "tool":
                    first = index == 0 or (index == 1 and first_is_system)
                    if results.header_when_first or not first:
                        out.append(headers.get(results.role) or turns.header(results.role))
                if sentinel is None or type(text) is not str or sentinel in text:
                    text = _checked(text, f"messages[{index}].content", policy, self._tokens)
                out += (results.item_open, text, results.item_close)
                if index == count - 1 or rows[index + 1][0] != "tool":
                    out.append(end)
            elif role != "system" and layout.renders_other_roles:
                problems.add(
                    f"the {release.family} chat template renders a message with role "
                    f"{quote(role)} as a turn of that role, which the model was not trained on "
                    "(use system, user, assistant or tool).",
                    f"messages[{index}].role",
                )
                # (the role is caller text too: printed in the header, it may not forge turns)
                role = _checked(role, f"messages[{index}].role", policy, self._tokens)
                text = _checked(text, f"messages[{index}].content", policy, self._tokens)
                out += (turns.header(role), text, end)
            elif role != "system":
                problems.add(
                    f"the {release.family} chat template drops messages with role {quote(role)} "
                    "(it renders system, user, assistant and tool messages only).",
                    f"messages[{index}].role",
                )
        if add_generation_prompt:
            out.append(headers["assistant"])
            if reasoning is not None:
                out.append(reasoning.generation_prompt(options))
        return "".join(out)

    def _unrendered(self, field: str, problems: Problems) -> None:
        """The problem of a list the release has no system block for."""
        problems.add(f"the {self.release.name} chat template does not render {field}.", field)

    def _render_turns(
        self,
        request: Any,
        raw: Mapping[str, Any] | None,
        add_generation_prompt: bool,
        policy: SpecialTokenPolicy,
        problems: Problems,
        today: datetime.date,
    ) -> str:
        """The prompt of a release with a dated system prompt and tools and documents
        turns (Granite 3.x): the system turn (the caller's or the default), the tools
        turn, the documents turns, then every other message as a turn of its own role.

        ``request`` is a :class:`RequestView` or a plain dict's
        :data:`~granite_formatters._engine.request.PlainFields`."""
        release = self.release
        layout = self._dated
        assert layout is not None  # (a release of the dated layout)
        end = self._end
        headers = self._headers
        tokens = self._tokens
        plain = type(request) is tuple
        # (a plain request's fields, its messages and documents checked as they are read)
        documents: Any
        kwargs: Any
        if plain:
            messages, tools, documents, kwargs = request
            raw_messages = None
            first = messages[0]
            if type(first) is dict and len(first) == 2:
                try:  # (subscripts, faster than get())
                    first_role = first["role"]
                    first_text = first["content"]
                except KeyError:
                    raise NotPlain from None
                first_calls = None
                if type(first_role) is not str or type(first_text) is not str:
                    raise NotPlain
            else:
                first_role, first_text, first_calls = plain_turn(first)
        else:
            messages = request.messages
            tools = request.tools
            kwargs = request.chat_template_kwargs
            raw_messages = None if raw is None else raw.get("messages")
            documents = request.documents or None
            if documents is not None and raw is not None:
                documents = request_documents(request, raw)
            first_role = messages[0].role  # (its text and calls read if it is the system's)
        tools_field = "tools"
        controls: Any = None
        thinking: Any = False
        prompt = None
        if kwargs is not None and type(kwargs) is not dict:
            if self._reads_typed and type(kwargs) is layout.options_type():
                # A Granite3ChatCompletion's options (their defaults the release's) read
                # by attribute, as _options reads valid ones (else it raises the error).
                thinking = kwargs.thinking
                controls = kwargs.controls
                if (thinking is None or thinking is True or thinking is False) and (
                    controls is None
                    or (
                        type(controls) is dict
                        and (items := valid_control_items(controls)) is not None
                    )
                ):
                    kwargs = None
                    thinking = thinking is True
                    if controls and items:
                        prompt = self._controlled.get(items)
                else:
                    kwargs = _typed_options(kwargs)
            else:
                kwargs = _typed_options(kwargs)
        if kwargs or self._reads_effort:
            tools, tools_field, options, prompt = self._options(tools, raw, problems, kwargs)
            controls = options.get("controls")
            thinking = options.get("thinking") is True
        if policy == "strip" and type(first_role) is str:
            # As if the request had been sanitized first: "sys<|end_of_text|>tem" is a
            # system role.
            first_role = tokens.remove(first_role)
        custom_system = first_role == "system"
        if thinking or (controls and (custom_system or not documents)):
            # (nothing unhonoured otherwise)
            for field, why in layout.system_prompt.unhonoured(
                release.name,
                custom_system=custom_system,
                tools=bool(tools),
                documents=bool(documents),
                thinking=thinking,
                controls=controls,
            ):
                problems.add(why, field)

        # Text without the sentinel has no special token ("" with "keep": every text is
        # passed to _checked, which keeps it).
        sentinel = tokens.sentinel if policy != "keep" else ""
        role: Any
        text: Any
        if custom_system:
            if not plain:
                first_text = messages[0].content
                first_calls = messages[0].tool_calls
            if first_text is None:
                raise self._missing_content(0)
            text = self._text(raw_messages, messages, 0, first_text)
            # (a str subclass's own __contains__ could hide a token: checked in full)
            if type(text) is not str or sentinel in text:
                text = _checked(text, "messages[0].content", policy, tokens)
            out = [headers["system"], text, end]
            if first_calls:
                problems.add(
                    "tool_calls on a 'system' message are not rendered; only assistant "
                    "messages carry tool calls.",
                    "messages[0].tool_calls",
                )
            start = 1
        else:
            has_tools = bool(tools)
            has_documents = bool(documents)
            key = (
                today,
                has_tools,
                has_documents,
                thinking,
                has_documents and controls is not None and "citations" in controls,
                has_documents and controls is not None and "hallucinations" in controls,
            )
            turn = self._system_texts.get(key)
            if turn is None:
                turn = self._system_turn(key, controls)
            out = [turn]
            start = 0
        if tools:
            tools_turn = layout.tools_turn
            if tools_turn is None:
                self._unrendered("tools", problems)
            else:
                out += (
                    self._tools_header,
                    self._indented(tools, tools_field, policy, tools_turn.indent),
                    end,
                )
        if documents:
            documents_turns = layout.documents_turns
            if documents_turns is None:
                self._unrendered("documents", problems)
            else:
                self._documents.write(
                    out,
                    documents,
                    documents_turns,
                    policy,
                    problems,
                    plain=plain,
                    typed=raw is None,
                )

        roles = self._plain_roles
        if plain:
            after = start  # (where the next message is looked for, see below)
            try:  # (a dict of exactly role and content is read here, others by plain_turn)
                for message in messages[start:] if start else messages:
                    if type(message) is dict and len(message) == 2:
                        role = message["role"]
                        text = message["content"]
                        calls = None
                        if type(role) is not str or type(text) is not str:
                            raise NotPlain
                    else:
                        role, text, calls = plain_turn(message)
                    if calls or role not in roles or sentinel in text:
                        # (the index found only here, enumerate costing every message;
                        # the same message object met again takes this path again)
                        index = _index(messages, message, after)
                        after = index + 1
                        role, text = self._turn(
                            index, role, text, calls, None, None, policy, problems
                        )
                    out += (headers[role], text, end)
            except KeyError:
                raise NotPlain from None
        else:
            # (a text starting with a newline may be joined from parts: see _typed_text)
            joins = self._joins_parts
            if raw_messages is not None:
                roles = _NO_ROLES  # (a viewed dict's messages are all read by _turn)
            after = start
            for message in messages[start:] if start else messages:
                role = message.role
                text = message.content
                calls = message.tool_calls
                if (
                    type(text) is not str
                    or type(role) is not str
                    or calls
                    or role not in roles
                    or sentinel in text
                    or (joins and text and text[0] == "\n")
                ):
                    index = _index(messages, message, after)
                    after = index + 1
                    role, text = self._turn(
                        index, role, text, calls, messages, raw_messages, policy, problems
                    )
                out += (headers[role], text, end)
        if add_generation_prompt and len(messages) > start:
            if prompt is not None:
                out.append(prompt)
            elif not controls or layout.controls is None:
                out.append(self._generation_prompt)
            else:
                out.append(self._controlled_prompt(controls))
        return "".join(out)

    def _turn(
        self,
        index: int,
        role: Any,
        text: Any,
        calls: Sequence[Any] | None,
        messages: Sequence[Any] | None,
        raw_messages: Any,
        policy: SpecialTokenPolicy,
        problems: Problems,
    ) -> tuple[str, str]:
        """A message's role and text as its turn prints them, in the cases the render
        loop does not write as they are: a validated message's missing, joined or
        non-``str`` text (``messages`` given), a special token in its role or text, a role
        the release was not trained on, tool calls."""
        release = self.release
        tokens = self._tokens
        if messages is not None:
            if text is None:
                if not (calls and role == "assistant" and (self._writes_calls or problems.strict)):
                    raise self._missing_content(index, calls=bool(calls))
                text = ""
            elif raw_messages is not None:
                text = self._text(raw_messages, messages, index, text)
            elif text and text[0] == "\n":
                text = _typed_text(messages[index], text, self._joins_parts)
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
                f"{release.name} was not trained on the role {quote(role)}; the chat "
                "template prints it verbatim as an unknown role. Use 'system'.",
                f"messages[{index}].role",
            )
        if calls:
            text = self._turn_calls(role, text, calls, index, policy, problems)
        return role, text

    def _system_turn(self, key: _SystemKey, controls: Mapping[str, Any] | None) -> str:
        """The default system turn of a dated system prompt for ``key`` (the date, the
        tools, documents and thinking flags, and whether ``controls`` ask for citations and
        hallucinations, all its text depends on), kept in a small memo by ``key``."""
        today, tools, documents, thinking, _, _ = key
        assert self._dated is not None  # (the caller's condition)
        system_prompt = self._dated.system_prompt
        text = system_prompt.text(
            today, tools=tools, documents=documents, thinking=thinking, controls=controls
        )
        turn = self._headers["system"] + text + self.release.turns.end
        if type(today) is datetime.date:
            if len(self._system_texts) >= _SYSTEM_TEXTS_KEPT:
                self._system_texts.clear()
            self._system_texts[key] = turn
        return turn

    def _controlled_prompt(self, controls: Mapping[str, Any]) -> str:
        """The generation prompt with the (checked) controls after the assistant role."""
        items = tuple(controls.items())
        prompt = self._controlled.get(items)
        if prompt is None:
            assert self._controls is not None  # (the caller's condition)
            suffix = self._controls.role_suffix(controls)
            prompt = self.release.turns.header("assistant" + suffix)
            if len(self._controlled) >= _SYSTEM_TEXTS_KEPT:
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
        release = self.release
        writes_calls = self._writes_calls or problems.strict
        if role != "assistant":
            problems.add(
                f"tool_calls on a {quote(role)} message are not rendered; only "
                "assistant messages carry tool calls.",
                f"{where}.tool_calls",
            )
        elif not writes_calls:
            problems.add(
                f"the {release.name} chat template does not render tool_calls "
                f"({len(calls)} call(s) left out).",
                f"{where}.tool_calls",
            )
        elif release.tool_calls is not None:
            writer = _Writer(self._tokens, policy, problems)
            text = release.tool_calls.write(text, _history_calls(calls, where, problems), writer)
        return text

    def _missing_content(self, index: int, *, calls: bool = False) -> InvalidRequestError:
        """A message's missing content; ``calls``: the message has tool calls (which the
        template does not print either)."""
        hint = ""
        if calls:
            hint = (
                " The template prints only the content, not the tool_calls: give content "
                '"" with the calls (strict mode, the default, writes the calls), or put '
                "the text of the calls in content."
            )
        return InvalidRequestError(
            f"the content is missing (null); the {self.release.name} chat template renders "
            "only the content of each message and fails without it. Give a string "
            f'("" for an empty turn).{hint}',
            field=f"messages[{index}].content",
        )

    def _text(
        self, raw_messages: Any, messages: Sequence[Any], index: int, text: str | None
    ) -> str:
        """A message's text: its content parts joined, or its content ``text`` (``""``
        for none)."""
        if raw_messages is not None and isinstance(raw_messages[index], Mapping):
            value = raw_messages[index].get("content")
            if isinstance(value, list):
                return join_parts(value, by_template=self.release.template_joins_parts)
        if text is None:
            return ""
        if text and text[0] == "\n":
            return _typed_text(messages[index], text, self._joins_parts)
        return text

    def _check_assistant_lead(self, text: str, field: str) -> None:
        """Refuse a special token in a past assistant turn's text, except a record token
        at its start (after whitespace), where the model writes it."""
        stripped = text.lstrip()
        for token in self.release.record_tokens:
            if stripped.startswith(token):
                text = stripped[len(token) :]
                break
        _checked(text, field, "error", self._tokens)

    def _indented(self, items: Any, field: str, policy: SpecialTokenPolicy, indent: int) -> str:
        """``items`` as indented JSON, the policy applied (from the memo when the same
        list was rendered recently)."""
        return self._blocks.get(
            items,
            (field, policy, str(indent)),
            lambda value: _json_value(value, field, policy, self._tokens, indent),
        )

    # ------------------------------------------------------------------ pieces

    @staticmethod
    def _reasoning_of(raw: Mapping[str, Any] | None, index: int, message: Any) -> str | None:
        """The message's past reasoning: the first non-null of ``reasoning_content``,
        ``thinking`` and ``reasoning`` (as transformers reads it), from the caller's dict
        when there is one."""
        source: Any = message
        if raw is not None:
            raw_messages = raw.get("messages")
            if isinstance(raw_messages, list):
                item = raw_messages[index]
                if type(item) is dict or isinstance(item, Mapping):
                    source = item
        get = source.get if type(source) is dict or isinstance(source, Mapping) else None
        for key in _REASONING_KEYS:
            found = get(key) if get is not None else getattr(source, key, None)
            if found is not None:
                return found if isinstance(found, str) else None
        return None

    def _lines(
        self, items: Sequence[Any], field: str, policy: SpecialTokenPolicy, block: SystemBlock
    ) -> str:
        """The system block listing the items, from the memo when the same list was
        rendered recently."""
        return self._blocks.get(
            items,
            (field, policy),
            lambda value: block.write(self._json_lines(value, field, policy, block)),
        )

    def _json_lines(
        self, items: Sequence[Any], field: str, policy: SpecialTokenPolicy, block: SystemBlock
    ) -> str:
        tokens = self._tokens
        pick = block.item
        lines = []
        for index, item in enumerate(items):
            if pick is not None:
                item = pick(item)
                if item is None:
                    continue
            lines.append("\n" + _json_value(item, f"{field}[{index}]", policy, tokens))
        return "".join(lines)
