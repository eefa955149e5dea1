"""The one renderer: a request view and a :class:`~granite_formatters.Release` in, the
prompt out, byte for byte what the release's official template prints."""

from __future__ import annotations

import datetime
import marshal
import warnings
from collections.abc import Iterator, Mapping, Sequence
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
from ..syntax._protocols import HistoryCall
from .checks import _checked, _special_token_error
from .documents import DocumentTurns
from .request import (
    STRICT,
    VALIDATED_TYPES,
    NotPlain,
    Problems,
    body_value,
    join_parts,
    plain_fields,
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
    from ..syntax._protocols import LayoutWriter, OptionSet, TurnContext, TurnSyntax

__all__ = ["ROLES", "ReleaseInputProcessor"]

#: How many option sets a processor keeps (then it starts afresh), and the longest
#: options key kept.
_OPTION_SETS_KEPT = 32
_OPTION_KEY_LENGTH = 4096
#: The marshal format of an options key: version 2 writes no back-references, so equal
#: options give equal bytes whoever else holds them (from version 3, an object another
#: reference holds is flagged, and the same options would miss).
_OPTION_KEY_VERSION = 2

#: The roles every chat has.
ROLES = frozenset({"system", "user", "assistant", "tool"})


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
        self._sentinel = release.special_tokens.sentinel
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
        # (as an option set: see _option_sets)
        self._default_set: OptionSet = (self._defaults, None, {})
        self._reads_effort = release.option("reasoning_effort") is not None
        self._joins_parts = release.template_joins_parts
        self._declared = {option.name: option for option in reversed(release.options)}
        # The turn headers of the roles every request has (others are made when met).
        self._headers = _Headers(release.turns)
        # What every render reads of the release, resolved once.
        self._end = release.turns.end
        self._generation_prompt = self._headers["assistant"]
        # The release's layout, bound to this processor: what the render loop asks.
        self._layout: LayoutWriter = release.layout.writer(self)
        # The turn header of each role whose messages the loop writes as they are (an
        # exact dict: the loop's subscript is the fastest).
        self._verbatim = {role: self._headers[role] for role in self._layout.verbatim_roles}
        # The documents turn(s) of a layout that has them (see DocumentTurns).
        self._documents = DocumentTurns(release, self._layout.documents_turns)
        # The option sets of recent chat_template_kwargs that raised no problem and name
        # no tools, by the kwargs' marshal bytes (_OPTION_KEY_VERSION; equal bytes: the
        # same data of the same exact types, so the same options; kept options are read
        # only), each with the generation prompt of its controls (None: none, or a release
        # without them) and the layout's plans for it.
        self._option_sets: dict[bytes, OptionSet] = {}
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
        raw: Mapping[str, Any] | None
        request: Any
        if type(chat_completion) is dict and (fields := plain_fields(chat_completion)):
            # (its messages and documents are checked as they are read: NotPlain)
            request, raw = fields, chat_completion
        elif type(chat_completion) in VALIDATED_TYPES:
            request, raw = chat_completion, None
        else:
            request, raw = view(chat_completion, problems, self.release.family)
        try:
            prompt = self._render(request, raw, add_generation_prompt, policy, problems, today)
        except NotPlain:
            prompt, problems = self._validated(
                chat_completion, add_generation_prompt, policy, strict, today
            )
        except InvalidRequestError:
            if type(request) is not tuple or plain_request(raw) is not None:  # type: ignore[arg-type]
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
            prompt = self._render(request, None, add_generation_prompt, policy, problems, today)
        if problems.items:
            warnings.warn(problems.warning(self.release.name), DroppedInputWarning, stacklevel=3)
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
            self._render(request, raw, add_generation_prompt, policy, problems, today),
            problems,
        )

    def _render(
        self,
        request: Any,
        raw: Mapping[str, Any] | None,
        add_generation_prompt: bool,
        policy: SpecialTokenPolicy,
        problems: Problems,
        today: datetime.date | None,
    ) -> str:
        """The prompt, in one pass over the request: the layout writes the system turn and
        what comes before the messages (its ``head``), then each message is written as a
        turn of its role when the layout takes it as it is, else by the layout (its
        ``turn``), then the generation prompt the layout gave.

        ``request`` is a :class:`RequestView` or a plain dict's
        :data:`~granite_formatters._engine.request.PlainFields` (its messages and
        documents checked as they are read: :class:`NotPlain`)."""
        layout = self._layout
        plain = type(request) is tuple
        kwargs: Any
        if plain:
            messages, tools, documents, kwargs = request
            raw_messages = None  # (a plain request has no content parts)
        else:
            messages = request.messages
            tools = request.tools
            documents = request.documents
            kwargs = request.chat_template_kwargs
            raw_messages = None if raw is None else raw.get("messages")
        tools_field = "tools"
        option_set: OptionSet | None
        if not (kwargs or self._reads_effort):
            option_set = self._default_set
        elif type(kwargs) is dict:
            try:  # (options of the same data: see _options)
                option_set = self._option_sets.get(marshal.dumps(kwargs, _OPTION_KEY_VERSION))
            except ValueError:  # (not marshalled: judged by _options)
                option_set = None
        elif kwargs is not None and layout.reads_typed:
            # (a typed options object the layout reads by attribute, when valid)
            option_set = layout.typed_options(kwargs)
        else:
            option_set = None
        if option_set is None:
            tools, tools_field, option_set = self._options(tools, raw, problems, kwargs)
        out, start, last_user, marked, generation = layout.head(
            request,
            plain,
            messages,
            tools,
            tools_field,
            documents,
            option_set,
            raw,
            raw_messages,
            policy,
            problems,
            today,
        )
        context: TurnContext | None = None  # (made for the first message given to the layout)
        end = self._end
        verbatim = self._verbatim
        # (the message the layout writes itself, whatever it holds: see Head)
        last = messages[marked] if marked >= 0 else None
        # Text without the sentinel has no special token ("" with "keep": every text is
        # given to the layout, which keeps it).
        sentinel = self._sentinel if policy != "keep" else ""
        role: Any
        text: Any
        after = start  # (where the next message is looked for, see below)
        if plain:
            try:  # (a dict of exactly role and content is read here, others by plain_turn)
                for message in messages[start:] if start else messages:
                    if type(message) is dict and len(message) == 2:
                        role = message["role"]
                        text = message["content"]
                        if type(role) is not str or type(text) is not str:
                            raise NotPlain
                        if role in verbatim and sentinel not in text and message is not last:
                            # (three appends: cheaper than extending by a tuple)
                            out.append(verbatim[role])
                            out.append(text)
                            out.append(end)
                            continue
                        calls = None
                    else:
                        role, text, calls = plain_turn(message)
                    if calls or role not in verbatim or sentinel in text or message is last:
                        # (the index found only here, enumerate costing every message;
                        # the same message object met again takes this path again)
                        index = (
                            after
                            if messages[after] is message
                            else _index(messages, message, after)
                        )
                        after = index + 1
                        if context is None:
                            context = (
                                messages,
                                raw,
                                None,
                                True,
                                policy,
                                problems,
                                option_set[0],
                                last_user,
                                start,
                            )
                        layout.turn(out, index, role, text, calls, context)
                    else:
                        out.append(verbatim[role])
                        out.append(text)
                        out.append(end)
            except KeyError:
                raise NotPlain from None
        else:
            # (a text starting with a newline may be joined from parts: see _typed_text)
            joins = self._joins_parts
            if raw_messages is not None:
                verbatim = {}  # (a viewed dict's messages all go to the layout)
            for message in messages[start:] if start else messages:
                role = message.role
                text = message.content
                calls = message.tool_calls
                if (
                    type(text) is not str
                    or type(role) is not str
                    or calls
                    or role not in verbatim
                    or sentinel in text
                    or message is last
                    or (joins and text and text[0] == "\n")
                ):
                    index = (
                        after if messages[after] is message else _index(messages, message, after)
                    )
                    after = index + 1
                    if context is None:
                        context = (
                            messages,
                            raw,
                            raw_messages,
                            False,
                            policy,
                            problems,
                            option_set[0],
                            last_user,
                            start,
                        )
                    layout.turn(out, index, role, text, calls, context)
                else:
                    out.append(verbatim[role])
                    out.append(text)
                    out.append(end)
        if add_generation_prompt:
            out.append(generation)
        return "".join(out)

    def _options(
        self, tools: Any, raw: Mapping[str, Any] | None, problems: Problems, kwargs: Any
    ) -> tuple[Any, str, OptionSet]:
        """The tools to list (``available_tools`` may replace them), the request field
        they come from, and the template options (the release's defaults filled in) as
        an :data:`OptionSet`: kept (with the generation prompt of their controls) when
        they raised no problem and replace no tools.

        A release with a ``reasoning_effort`` option also reads the OpenAI top-level
        ``reasoning_effort`` as vLLM's chat endpoint applies it: passed to the template
        unless ``chat_template_kwargs`` sets it, and turning ``enable_thinking`` off when
        it is ``"none"`` unless ``chat_template_kwargs`` sets that.
        """
        if kwargs is not None and type(kwargs) is not dict:
            # (a Granite3ChatCompletion's options object, checked by name)
            kwargs = _typed_options(kwargs)
        if not kwargs and (not self._reads_effort or body_value(raw, "reasoning_effort") is None):
            return tools, "tools", self._default_set  # (read only: shared)
        data: bytes | None = None
        if type(kwargs) is dict and not self._reads_effort:
            # Options of the same exact data are the same (see _option_sets).
            try:
                data = marshal.dumps(kwargs, _OPTION_KEY_VERSION)
            except ValueError:
                pass
            else:
                known = self._option_sets.get(data)
                if known is not None:
                    return tools, "tools", known
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
            option_set: OptionSet = (options, self._layout.options_prompt(options), {})
            if len(self._option_sets) >= _OPTION_SETS_KEPT:
                self._option_sets.clear()
            self._option_sets[data] = option_set
            return tools, tools_field, option_set
        return tools, tools_field, (options, None, {})  # (planned for this call only)

    def _unrendered(self, field: str, problems: Problems) -> None:
        """The problem of a list the release has no system block for."""
        problems.add(f"the {self.release.name} chat template does not render {field}.", field)

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
