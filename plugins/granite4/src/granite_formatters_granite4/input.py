"""The Granite 4.0 / 4.1 input processor: one class, the format given as data.

Reference: the official chat templates ``granite-4.0.jinja`` (current 4.0 revision,
with a default system message) and ``granite-4.1.jinja`` (the 4.1 models; the same
text without the default system message). What they print:

* one system turn first: the caller's ``messages[0]`` system content, then
  ``"\\n\\n"`` + a tools block and/or ``"\\n\\n"`` + a documents block (one compact
  JSON line per tool or document, the caller's object as it is). When that text is
  empty, 4.0 prints its default system message and 4.1 prints no system turn;
* ``user`` and later ``system`` messages as turns; content parts: the text parts
  joined with ``"\\n"`` (an empty text before the first non-empty one adds nothing);
* ``assistant`` turns with each tool call as a ``<tool_call>`` block (arguments given
  as a string are copied verbatim, others written as JSON);
* a run of ``tool`` messages as one ``user`` turn of ``<tool_response>`` blocks;
* the generation prompt whenever asked, whatever the last message is.

Other roles, non-text content parts, tool calls on non-assistant messages and template
options the template does not read (Granite 3's ``thinking`` and ``controls``) are
dropped by the template without a word: strict mode (the default) raises
:class:`InvalidRequestError` naming the field, ``strict=False`` renders what the
template renders and issues one :class:`DroppedInputWarning`.
"""

from __future__ import annotations

import datetime
import json
import warnings
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

import attrs

from granite_formatters.errors import DroppedInputWarning, InvalidRequestError, quote
from granite_formatters.jsonwriter import JSONNestingError, tojson
from granite_formatters.plaindicts import MessageView, PlainDataMemo, PlainRequest, plain_fields
from granite_formatters.processors import InputProcessor
from granite_formatters.special_tokens import (
    SPECIAL_TOKEN_POLICIES,
    SpecialTokenPolicy,
    SpecialTokens,
    find_special_token_in_json,
    remove_special_tokens_in_json,
)

if TYPE_CHECKING:
    from granite_formatters.processors import RequestLike

__all__ = [
    "GRANITE40_PROMPT_FORMAT",
    "GRANITE41_PROMPT_FORMAT",
    "GRANITE4_DEFAULT_SYSTEM_MESSAGE",
    "GRANITE4_MODEL_RECORD_TOKENS",
    "GRANITE4_SPECIAL_TOKENS",
    "Granite4InputProcessor",
    "Granite4PromptFormat",
    "Granite40InputProcessor",
    "Granite41InputProcessor",
]

START_OF_ROLE = "<|start_of_role|>"
END_OF_ROLE = "<|end_of_role|>"
END_OF_TEXT = "<|end_of_text|>"
TOOL_CALL_OPEN = "<tool_call>"
TOOL_CALL_CLOSE = "</tool_call>"

#: Every added token of the Granite 4 tokenizer (ids 100256-100283; see
#: docs/granite4.md). A tokenizer maps each of them to its own id wherever it appears in
#: the text, whether or not it is flagged special, so each can forge structure.
GRANITE4_SPECIAL_TOKENS = SpecialTokens(
    (
        START_OF_ROLE,
        END_OF_ROLE,
        END_OF_TEXT,
        "<|pad|>",
        "<|unk|>",
        "<|unused_1|>",
        "<|start_of_plugin|>",
        "<|end_of_plugin|>",
        "<|fim_prefix|>",
        "<|fim_middle|>",
        "<|fim_suffix|>",
        "<|fim_pad|>",
        "<|filename|>",
        "<|reponame|>",
        TOOL_CALL_OPEN,
        TOOL_CALL_CLOSE,
        "<tool_response>",
        "</tool_response>",
        "<tools>",
        "</tools>",
        "<documents>",
        "</documents>",
        "<think>",
        "</think>",
        "<think_on>",
        "<think_off>",
        "<schema>",
        "</schema>",
    )
)

#: The tokens the model itself writes into an assistant turn to call tools: a past
#: assistant turn that contains them is the model's record, not an injection.
GRANITE4_MODEL_RECORD_TOKENS = (TOOL_CALL_OPEN, TOOL_CALL_CLOSE)

_ASSISTANT_TOKENS = SpecialTokens(
    token for token in GRANITE4_SPECIAL_TOKENS if token not in GRANITE4_MODEL_RECORD_TOKENS
)

GRANITE4_DEFAULT_SYSTEM_MESSAGE = (
    "You are a helpful assistant. Please ensure responses are professional, accurate, and safe."
)

_TOOLS_PREFIX = (
    "You are a helpful assistant with access to the following tools. You may call one or "
    "more tools to assist with the user query.\n\nYou are provided with function signatures "
    "within <tools></tools> XML tags:\n<tools>"
)
_TOOLS_SUFFIX = (
    "\n</tools>\n\nFor each tool call, return a json object with function name and arguments "
    'within <tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, '
    '"arguments": <args-json-object>}\n</tool_call>. If a tool does not exist in the provided '
    "list of tools, notify the user that you do not have the ability to fulfill the request."
)
_DOCUMENTS_PREFIX = (
    "You are a helpful assistant with access to the following documents. You may use one or "
    "more documents to assist with the user query.\n\nYou are given a list of documents "
    "within <documents></documents> XML tags:\n<documents>"
)
_DOCUMENTS_SUFFIX = (
    "\n</documents>\n\nWrite the response to the user's input by strictly aligning with the "
    "facts in the provided documents. If the information needed to answer the question is "
    "not available in the documents, inform the user that the question cannot be answered "
    "based on the available data."
)

_PRINTED_ROLES = frozenset({"system", "user", "assistant", "tool"})
_GRANITE3_OPTIONS = frozenset({"thinking", "controls", "enable_thinking"})
_JSON_BREAKING = frozenset('"\\') | {chr(code) for code in range(0x20)}


@attrs.frozen
class Granite4PromptFormat:
    """What distinguishes one Granite 4 point release's prompt: data, not code."""

    #: ``"Granite 4.0"``, used in messages.
    release: str
    #: Printed as the system turn when the system text is empty; ``None``: no system turn.
    default_system_message: str | None
    special_tokens: SpecialTokens = GRANITE4_SPECIAL_TOKENS


#: Granite 4.0 (current template revision): an empty system text prints the default.
GRANITE40_PROMPT_FORMAT = Granite4PromptFormat("Granite 4.0", GRANITE4_DEFAULT_SYSTEM_MESSAGE)
#: Granite 4.1: an empty system text prints no system turn.
GRANITE41_PROMPT_FORMAT = Granite4PromptFormat("Granite 4.1", None)


class _Problems:
    """Things the template would drop: raised at once (strict) or collected (compat)."""

    __slots__ = ("items", "strict")

    def __init__(self, strict: bool) -> None:
        self.strict = strict
        self.items: list[str] = []

    def add(self, message: str, field: str) -> None:
        if self.strict:
            raise InvalidRequestError(
                message + " Pass strict=False to render what the official template renders.",
                field=field,
            )
        self.items.append(f"{field}: {message}")


def _join_parts(parts: Sequence[Any]) -> str:
    """The template's join of the text parts (an empty text adds no newline at the start)."""
    text = ""
    for part in parts:
        if isinstance(part, Mapping) and part.get("type") == "text":
            if text != "":
                text += "\n"
            text += part["text"]
    return text


def _jinja_text(value: Any) -> str:
    """How Jinja prints a value with ``{{ value }}``."""
    if isinstance(value, str):
        return value
    return str(value)


def _special_token_error(token: str, field: str) -> InvalidRequestError:
    return InvalidRequestError(
        f"contains the special token {token!r}. Special tokens in caller text can forge turns "
        "or tool calls of the prompt (see docs/security.md). Remove it, or pass "
        "special_tokens='strip' to delete special tokens, or special_tokens='keep' to render "
        "the text verbatim (only for trusted text).",
        field=field,
    )


def _raw_documents(raw: Mapping[str, Any]) -> Any:
    """The caller's own document list (key order kept), wherever the request put it."""
    found = raw.get("documents")
    if found is None:
        extra = raw.get("extra_body")
        if isinstance(extra, Mapping):
            found = extra.get("documents")
    if found is None:
        kwargs = raw.get("chat_template_kwargs")
        if isinstance(kwargs, Mapping):
            found = kwargs.get("documents")
    return found


def _document_data(document: Any) -> dict[str, Any]:
    """``document.model_dump(exclude_unset=True)`` of a validated ``Document``, read
    straight from its fields when they are all it has and each is an exact ``str``,
    ``int`` or null (what a dump returns as it is); otherwise the dump itself."""
    if not document.model_extra:
        fields = vars(document)
        fields_set = document.model_fields_set
        if len(fields_set) == len(fields):
            data = dict(fields)
        else:
            data = {name: value for name, value in fields.items() if name in fields_set}
        for value in data.values():
            if value is not None and type(value) is not str and type(value) is not int:
                break
        else:
            return data
    dumped: dict[str, Any] = document.model_dump(exclude_unset=True)
    return dumped


class _RequestView(Protocol):
    """What the renderer reads: a validated ``ChatCompletion`` or a ``PlainRequest``."""

    @property
    def messages(self) -> Sequence[MessageView]: ...
    @property
    def tools(self) -> list[dict[str, Any]] | None: ...
    @property
    def documents(self) -> Sequence[Any] | None: ...
    @property
    def chat_template_kwargs(self) -> dict[str, Any] | None: ...


def _plain_request(data: dict[str, Any]) -> PlainRequest[dict[str, Any] | None] | None:
    """The request of a plain dict that validation would accept unchanged, or ``None``.

    The fields are those of :func:`~granite_formatters.plaindicts.plain_fields`;
    ``chat_template_kwargs`` is free-form in Granite 4 (the renderer judges each key), so
    it needs only be a dict of ``str`` keys without ``documents`` (which validation moves).
    Anything else takes the validated path, which renders the same or raises the error.
    """
    fields = plain_fields(data)
    if fields is None:
        return None
    options = data.get("chat_template_kwargs")
    if options is not None:
        if type(options) is not dict or "documents" in options:
            return None
        for key in options:
            if type(key) is not str:
                return None
    messages, tools, documents = fields
    return PlainRequest(messages, tools, documents, options)


class Granite4InputProcessor(InputProcessor):
    """Renders chat requests as Granite 4 prompts; :attr:`prompt_format` picks the release."""

    prompt_format: ClassVar[Granite4PromptFormat]

    def __init__(self, prompt_format: Granite4PromptFormat | None = None) -> None:
        if prompt_format is not None:
            self.prompt_format = prompt_format  # type: ignore[misc]
        elif not isinstance(getattr(type(self), "prompt_format", None), Granite4PromptFormat):
            raise TypeError(f"{type(self).__name__} needs a Granite4PromptFormat")
        # The JSON lines of recently rendered tool and document lists (usually sent again
        # with every turn), keyed by the list's marshal bytes, the field and the policy.
        self._blocks = PlainDataMemo()

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

        ``today`` is accepted and has no effect: Granite 4 prompts print no date.
        ``special_tokens``: ``"error"`` (default), ``"strip"`` or ``"keep"``.
        ``strict=False`` renders exactly what the official template renders and issues
        one :class:`DroppedInputWarning` naming what it leaves out.
        """
        del today  # Granite 4 prompts print no date.
        if special_tokens is None:
            special_tokens = "error"
        elif special_tokens not in SPECIAL_TOKEN_POLICIES:
            raise InvalidRequestError(
                f"must be 'error', 'strip' or 'keep', not {quote(special_tokens)}",
                field="special_tokens",
            )
        problems = _Problems(strict)
        request, raw = self._request(chat_completion, problems)
        prompt = self._render(request, raw, add_generation_prompt, special_tokens, problems)
        if problems.items:
            warnings.warn(
                f"{self.prompt_format.release}: the prompt leaves out what the official chat "
                "template drops: " + "; ".join(problems.items),
                DroppedInputWarning,
                stacklevel=3,
            )
        return prompt

    # ------------------------------------------------------------------ request

    def _request(
        self, chat_completion: RequestLike, problems: _Problems
    ) -> tuple[_RequestView, Mapping[str, Any] | None]:
        """The validated request, and the caller's raw mapping when there is one.

        A plain dict of exactly the expected types is read without validation (and
        without importing pydantic); anything else takes the validated path.
        """
        if type(chat_completion) is dict:
            plain = _plain_request(chat_completion)
            if plain is not None:
                return plain, chat_completion
        from granite_formatters.types import ChatCompletion, coerce_request

        if isinstance(chat_completion, ChatCompletion):
            return chat_completion, None
        data: Any = chat_completion
        if isinstance(data, (str, bytes, bytearray)):
            try:
                data = json.loads(data)
            except RecursionError:
                raise InvalidRequestError("the request is nested too deeply to process") from None
            except ValueError as exc:
                raise InvalidRequestError(
                    f"the request is not valid JSON ({exc}); pass a dict, a JSON object "
                    "string or a ChatCompletion"
                ) from None
        if not isinstance(data, Mapping):
            return coerce_request(data, ChatCompletion), None
        messages = data.get("messages")
        if isinstance(messages, list):
            cleaned: list[Any] = []
            changed = False
            for index, message in enumerate(messages):
                content = message.get("content") if isinstance(message, Mapping) else None
                if isinstance(content, list):
                    kept = []
                    for number, part in enumerate(content):
                        if isinstance(part, Mapping) and part.get("type") == "text":
                            kept.append(part)
                        else:
                            kind = part.get("type") if isinstance(part, Mapping) else None
                            what = f"of type {quote(kind)}" if kind is not None else "not typed"
                            problems.add(
                                f"a content part {what} is dropped by the Granite 4 chat "
                                "template, which renders only {'type': 'text'} parts.",
                                f"messages[{index}].content[{number}]",
                            )
                            changed = True
                    message = {**message, "content": kept}
                cleaned.append(message)
            if changed:
                data = {**data, "messages": cleaned}
        return coerce_request(data, ChatCompletion), data

    # ------------------------------------------------------------------ rendering

    def _render(
        self,
        request: _RequestView,
        raw: Mapping[str, Any] | None,
        add_generation_prompt: bool,
        policy: SpecialTokenPolicy,
        problems: _Problems,
    ) -> str:
        fmt = self.prompt_format
        messages = request.messages
        # The caller's messages, read for content parts (a plain request has none).
        raw_messages = (
            raw.get("messages")
            if raw is not None and not isinstance(request, PlainRequest)
            else None
        )

        def content_of(index: int) -> str:
            if raw_messages is not None and isinstance(raw_messages[index], Mapping):
                value = raw_messages[index].get("content")
                if isinstance(value, list):
                    return _join_parts(value)
            text = messages[index].content
            return "" if text is None else text

        tools: Any = request.tools
        kwargs = request.chat_template_kwargs or {}
        for key, value in kwargs.items():
            if key == "available_tools":
                if value is not None and not isinstance(value, list):
                    raise InvalidRequestError(
                        "must be a list of tools", field="chat_template_kwargs.available_tools"
                    )
                if value:
                    if tools:
                        problems.add(
                            "available_tools replaces tools in the Granite 4 chat template, "
                            "so tools are not rendered; give one of them.",
                            "tools",
                        )
                    tools = value
            elif key == "documents" or not value:
                continue
            elif key in _GRANITE3_OPTIONS:
                problems.add(
                    f"Granite 4 has no {key!r} option: its chat template does not read it "
                    "(thinking, controls, citations and hallucinations are Granite 3 options).",
                    f"chat_template_kwargs.{key}",
                )
            else:
                problems.add(
                    f"the Granite 4 chat template does not read the option {quote(key)}.",
                    f"chat_template_kwargs.{key}",
                )

        documents: Any = None
        if request.documents:
            documents = _raw_documents(raw) if raw is not None else None
            if not isinstance(documents, list) or len(documents) != len(request.documents):
                documents = [_document_data(doc) for doc in request.documents]

        blocks: list[str] = []
        if tools:
            blocks.append(_TOOLS_PREFIX + self._lines(tools, "tools", policy) + _TOOLS_SUFFIX)
        if documents:
            blocks.append(
                _DOCUMENTS_PREFIX + self._lines(documents, "documents", policy) + _DOCUMENTS_SUFFIX
            )

        out: list[str] = []
        first_is_system = messages[0].role == "system"
        if first_is_system:
            system = self._text(content_of(0), "messages[0].content", policy)
            system = "\n\n".join([system, *blocks]) if blocks else system
        else:
            system = "\n\n".join(blocks)
        if system:
            out += (START_OF_ROLE, "system", END_OF_ROLE, system, END_OF_TEXT, "\n")
        elif fmt.default_system_message is not None:
            out += (
                START_OF_ROLE,
                "system",
                END_OF_ROLE,
                fmt.default_system_message,
                END_OF_TEXT,
                "\n",
            )

        count = len(messages)
        # Text without a token set's sentinel has none of its tokens (see SpecialTokens).
        sentinel = fmt.special_tokens.sentinel if policy != "keep" else None
        assistant_sentinel = _ASSISTANT_TOKENS.sentinel if policy != "keep" else None
        for index, message in enumerate(messages):
            role = message.role
            calls = message.tool_calls
            if calls and role != "assistant":
                problems.add(
                    f"tool_calls on a {quote(role)} message are not rendered; only assistant "
                    "messages carry tool calls.",
                    f"messages[{index}].tool_calls",
                )
            if raw_messages is None:
                text = message.content
                if text is None:
                    text = ""
            else:
                text = content_of(index)
            if role == "user" or (role == "system" and index > 0):
                if sentinel is None or type(text) is not str or sentinel in text:
                    text = self._text(text, f"messages[{index}].content", policy)
                out += (START_OF_ROLE, role, END_OF_ROLE, text, END_OF_TEXT, "\n")
            elif role == "assistant":
                if (
                    assistant_sentinel is None
                    or type(text) is not str
                    or assistant_sentinel in text
                ):
                    text = self._text(text, f"messages[{index}].content", policy, assistant=True)
                out += (START_OF_ROLE, "assistant", END_OF_ROLE, text)
                if calls:
                    self._tool_calls(out, calls, text, f"messages[{index}]", policy, problems)
                out += (END_OF_TEXT, "\n")
            elif role == "tool":
                if index == 0 or messages[index - 1].role != "tool":
                    out += (START_OF_ROLE, "user", END_OF_ROLE)
                text = self._text(text, f"messages[{index}].content", policy)
                out += ("\n<tool_response>\n", text, "\n</tool_response>")
                if index == count - 1 or messages[index + 1].role != "tool":
                    out += (END_OF_TEXT, "\n")
            elif role != "system":
                problems.add(
                    f"the Granite 4 chat template drops messages with role {quote(role)} "
                    "(it renders system, user, assistant and tool messages only).",
                    f"messages[{index}].role",
                )
        if add_generation_prompt:
            out += (START_OF_ROLE, "assistant", END_OF_ROLE)
        return "".join(out)

    # ------------------------------------------------------------------ pieces

    def _text(
        self, text: str, field: str, policy: SpecialTokenPolicy, *, assistant: bool = False
    ) -> str:
        if policy == "keep":
            return text
        tokens = _ASSISTANT_TOKENS if assistant else self.prompt_format.special_tokens
        if policy == "strip":
            return tokens.remove(text)
        token = tokens.search(text)
        if token is not None:
            raise _special_token_error(token, field)
        return text

    def _json(self, value: Any, field: str) -> str:
        try:
            return tojson(value)
        except (JSONNestingError, RecursionError):
            raise InvalidRequestError("is nested too deeply to render", field=field) from None
        except (TypeError, ValueError) as exc:
            raise InvalidRequestError(f"cannot be written as JSON ({exc})", field=field) from None

    def _json_value(
        self,
        value: Any,
        field: str,
        policy: SpecialTokenPolicy,
        tokens: SpecialTokens,
    ) -> str:
        text = self._json(value, field)
        if policy == "keep" or tokens.search(text) is None:
            return text
        if policy == "strip":
            return self._json(remove_special_tokens_in_json(value, tokens, field), field)
        found = find_special_token_in_json(value, tokens, field)
        where, token = found if found is not None else (field, tokens.search(text) or "")
        raise _special_token_error(token, where)

    def _lines(self, items: Sequence[Any], field: str, policy: SpecialTokenPolicy) -> str:
        """:meth:`_json_lines`, from the memo when the same list was rendered recently."""
        return self._blocks.get(
            items, (field, policy), lambda value: self._json_lines(value, field, policy)
        )

    def _json_lines(self, items: Sequence[Any], field: str, policy: SpecialTokenPolicy) -> str:
        tokens = self.prompt_format.special_tokens
        return "".join(
            "\n" + self._json_value(item, f"{field}[{index}]", policy, tokens)
            for index, item in enumerate(items)
        )

    def _tool_calls(
        self,
        out: list[str],
        calls: Sequence[Any],
        content: str,
        field: str,
        policy: SpecialTokenPolicy,
        problems: _Problems,
    ) -> None:
        for number, call in enumerate(calls):
            where = f"{field}.tool_calls[{number}]"
            if not isinstance(call, Mapping):
                raise InvalidRequestError(
                    "must be an object ({'function': {'name', 'arguments'}} or {'name', "
                    "'arguments'})",
                    field=where,
                )
            function = call.get("function")
            if function:
                if not isinstance(function, Mapping):
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
            if not isinstance(name, str) or not name:
                problems.add(
                    f"a tool call needs a non-empty string name, not {quote(name)}.",
                    f"{where}.name",
                )
                name = _jinja_text(name) if "name" in call else ""
            elif not _JSON_BREAKING.isdisjoint(name):
                problems.add(
                    f"the name {quote(name)} contains a quote, backslash or control character, "
                    "which the template prints unescaped into the call's JSON.",
                    f"{where}.name",
                )
            name = self._text(name, f"{where}.name", policy, assistant=True)
            arguments = call["arguments"]
            if isinstance(arguments, str):
                args_text = self._text(arguments, f"{where}.arguments", policy, assistant=True)
            else:
                args_text = self._json_value(
                    arguments, f"{where}.arguments", policy, _ASSISTANT_TOKENS
                )
            if number or content:
                out.append("\n")
            out += (
                '<tool_call>\n{"name": "',
                name,
                '", "arguments": ',
                args_text,
                "}\n</tool_call>",
            )


class Granite40InputProcessor(Granite4InputProcessor):
    """Granite 4.0 prompts (an empty system text prints the default system message)."""

    prompt_format = GRANITE40_PROMPT_FORMAT


class Granite41InputProcessor(Granite4InputProcessor):
    """Granite 4.1 prompts (an empty system text prints no system turn)."""

    prompt_format = GRANITE41_PROMPT_FORMAT
