"""The request and response types that users send and receive (pydantic v2).

A request can be given to a formatter as one of these typed objects, as a plain dict,
or as a JSON string, in the shape of an OpenAI chat-completions body as vLLM accepts
it: ``messages``, ``tools`` (OpenAI ``{"type": "function", "function": {...}}`` or
flat ``{name, description, parameters}``), ``documents`` and ``chat_template_kwargs``
at the top level or nested under ``extra_body`` (the OpenAI Python client's form).

Tool definitions are kept exactly as given (plain dicts, key order and all), because
the chat templates print them verbatim.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal, TypeVar, Union, cast

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    StrictInt,
    StrictStr,
    ValidationError,
    field_validator,
    model_validator,
)

from ._errors import InvalidRequestError, quote
from ._jsonwriter import tojson
from ._plaindicts import OPENAI_REQUEST_PARAMETERS

__all__ = [
    "AssistantMessage",
    "ChatCompletion",
    "ChatMessage",
    "Document",
    "ToolCall",
    "ToolCallIds",
    "coerce_request",
]

_REQUEST_FIELDS = frozenset({"messages", "tools", "documents", "chat_template_kwargs"})
_EXTRA_BODY_FIELDS = frozenset({"documents", "chat_template_kwargs"})


class _FieldError(ValueError):
    """A validator's error that knows where in the validated value it is.

    ``path`` is relative to the location pydantic reports (``"[2]"``, ``"extra_body.x"``);
    :func:`_describe_validation_error` joins the two into the error's ``field``.
    """

    def __init__(self, message: str, path: str = "") -> None:
        super().__init__(message)
        self.path = path


def _field_name(key: object) -> str:
    """A request key as it appears in an error's ``field``: short, never megabytes."""
    if isinstance(key, str) and len(key) <= 80 and key.isprintable():
        return key
    return quote(key)


def _as_plain_data(value: Any) -> Any:
    """An OpenAI-shaped object as plain data, without importing ``openai``.

    Pydantic models (the ``openai`` package's response types, or any object with a
    callable ``model_dump``) become dicts without their ``None`` entries, the form a
    chat-completions body has; other mappings (``TypedDict`` params are plain dicts)
    become dicts. Anything else is returned unchanged for the validators to judge.
    """
    if isinstance(value, BaseModel) or (
        not isinstance(value, (Mapping, str, bytes, list, tuple))
        and callable(getattr(value, "model_dump", None))
    ):
        try:
            dumped = value.model_dump()
        except Exception as exc:  # noqa: BLE001 - a foreign object failing is bad input
            raise _FieldError(
                f"could not read the {type(value).__name__} object through its model_dump(): "
                f"{type(exc).__name__}: {quote(str(exc))}"
            ) from None
        if isinstance(dumped, Mapping):
            return {k: v for k, v in dumped.items() if v is not None}
        return dumped
    if isinstance(value, Mapping) and not isinstance(value, dict):
        return dict(value)
    return value


def _join_text_parts(parts: list[Any]) -> str:
    """Join OpenAI content parts the way vLLM does for text-only chat templates."""
    texts: list[str] = []
    for i, raw in enumerate(parts):
        part = _as_plain_data(raw)
        if isinstance(part, str):
            texts.append(part)
            continue
        if not isinstance(part, Mapping):
            raise _FieldError(
                f"content part {i} must be an object like {{'type': 'text', 'text': '...'}}, "
                f"not {type(part).__name__}",
                f"[{i}]",
            )
        kind = part.get("type")
        if kind != "text" or not isinstance(part.get("text"), str):
            raise _FieldError(
                f"content part {i} has type {quote(kind)}; only text parts "
                "({'type': 'text', 'text': '...'}) can be rendered into a Granite prompt",
                f"[{i}]",
            )
        texts.append(part["text"])
    return "\n".join(texts)


class ChatMessage(BaseModel):
    """One message of a conversation.

    ``role`` is printed verbatim by the Granite templates, so any role is accepted.
    ``content`` may be a string or a list of OpenAI text parts (joined with newlines,
    as vLLM joins them). Other OpenAI message fields are kept but not rendered.

    Anything with the shape of an OpenAI message is accepted: a plain dict, an
    ``openai`` ``TypedDict`` param, or a pydantic model such as the ``openai``
    package's ``ChatCompletionMessage`` (``response.choices[0].message``), which is
    read through its ``model_dump()`` (``None`` fields dropped). ``openai`` is never
    imported.
    """

    model_config = ConfigDict(extra="allow", frozen=False)

    role: StrictStr
    content: StrictStr | None = None
    tool_calls: list[Any] | None = None
    tool_call_id: str | None = None
    name: str | None = None
    reasoning_content: str | None = None
    #: How many empty text parts began ``content`` when it was given as parts (their
    #: newlines open the joined text; a template that skips them reads past them).
    _leading_empty_parts: int = PrivateAttr(default=0)

    @model_validator(mode="wrap")
    @classmethod
    def _from_openai_object(cls, value: Any, handler: Any) -> Any:
        # One validator per message (a Python call each): OpenAI objects are read as
        # plain data, then content given as parts has its leading empty parts counted.
        if isinstance(value, ChatMessage):
            return handler(value)
        value = _as_plain_data(value)
        message = handler(value)
        parts = value.get("content") if isinstance(value, Mapping) else None
        if isinstance(parts, list) and isinstance(message, ChatMessage):
            count = 0
            for part in parts:
                if not (isinstance(part, Mapping) and part.get("text") == ""):
                    break
                count += 1
            message._leading_empty_parts = count
        return message

    @field_validator("tool_calls", mode="before")
    @classmethod
    def _plain_tool_calls(cls, value: Any) -> Any:
        if isinstance(value, (list, tuple)):
            return [_as_plain_data(call) for call in value]
        return value

    @field_validator("content", mode="before")
    @classmethod
    def _join_parts(cls, value: Any) -> Any:
        if isinstance(value, list):
            return _join_text_parts(value)
        return value


class Document(BaseModel):
    """A document for retrieval-augmented generation.

    ``doc_id`` may be a string or an integer (printed as the template prints it);
    ``title`` and any other keys are kept but the Granite 3 templates do not render them.
    """

    model_config = ConfigDict(extra="allow")

    text: StrictStr
    doc_id: Union[StrictStr, StrictInt, None] = None  # noqa: UP007 - pydantic smart union
    title: str | None = None

    @field_validator("doc_id", mode="before")
    @classmethod
    def _check_doc_id(cls, value: Any) -> Any:
        if value is None or isinstance(value, str) or type(value) is int:
            return value
        raise _FieldError(
            f"a document id must be a string or an integer, not {type(value).__name__} "
            f"(got {quote(value)})"
        )


def _tool_data(tool: Any, index: int) -> Any:
    """A tool as the OpenAI Python client sends it: a pydantic model (the ``openai``
    package's types) as its fields set, dumped as JSON data; anything else as
    :func:`_as_plain_data` reads it."""
    if isinstance(tool, BaseModel):
        try:
            return tool.model_dump(mode="json", exclude_unset=True)
        except Exception as exc:  # noqa: BLE001 - a foreign model failing is bad input
            raise _FieldError(
                f"could not read the {type(tool).__name__} object through its model_dump(): "
                f"{type(exc).__name__}: {quote(str(exc))}",
                f"[{index}]",
            ) from None
    try:
        return _as_plain_data(tool)
    except _FieldError as exc:
        raise _FieldError(str(exc), f"[{index}]") from None


def _check_tool(tool: Any, index: int) -> None:
    where = f"[{index}]"
    if not isinstance(tool, Mapping):
        raise _FieldError(f"a tool must be an object, got {type(tool).__name__}", where)
    if "function" in tool and tool.get("type", "function") == "function":
        function = tool["function"]
        if not isinstance(function, Mapping) or not isinstance(function.get("name"), str):
            raise _FieldError("must be an object with a string 'name'", where + ".function")
        return
    if not isinstance(tool.get("name"), str):
        raise _FieldError(
            "a tool needs a string 'name' (flat form {name, description, parameters}) "
            "or the OpenAI form {'type': 'function', 'function': {'name': ...}}",
            where,
        )


class ChatCompletion(BaseModel):
    """A chat request, in the shape of an OpenAI chat-completions body as vLLM accepts it.

    ``tools`` are kept exactly as given. ``chat_template_kwargs`` is free-form here;
    each formatter validates the options it understands. Known OpenAI and vLLM
    parameters (``model``, ``temperature``, ``stream``, ...) are accepted and ignored;
    any other unknown top-level key is an error.
    """

    model_config = ConfigDict(extra="forbid")

    messages: list[ChatMessage] = Field(min_length=1)
    tools: list[dict[str, Any]] | None = None
    documents: list[Document] | None = None
    chat_template_kwargs: dict[str, Any] | None = None
    model: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _normalise_body(cls, data: Any) -> Any:
        if not isinstance(data, Mapping):
            return data
        for key in data:
            if not isinstance(key, str):
                raise _FieldError(
                    f"request keys must be strings; got the {type(key).__name__} key {quote(key)}",
                    _field_name(key),
                )
        body = {k: v for k, v in data.items() if k in _REQUEST_FIELDS or k == "model"}
        extra_body = data.get("extra_body")
        if extra_body is not None:
            if not isinstance(extra_body, Mapping):
                raise _FieldError("extra_body must be an object", "extra_body")
            for key, value in extra_body.items():
                if not isinstance(key, str):
                    raise _FieldError(
                        f"request keys must be strings; got the {type(key).__name__} key "
                        f"{quote(key)}",
                        "extra_body." + _field_name(key),
                    )
                if key in _EXTRA_BODY_FIELDS:
                    if body.get(key) is not None:
                        raise _FieldError(
                            f"{key!r} is given both at the top level and in extra_body; "
                            "give it in one place only",
                            "extra_body." + key,
                        )
                    body[key] = value
                elif key not in OPENAI_REQUEST_PARAMETERS:
                    raise _FieldError(_unknown_key_message(key), "extra_body." + _field_name(key))
        kwargs = body.get("chat_template_kwargs")
        if isinstance(kwargs, Mapping) and "documents" in kwargs:
            if body.get("documents") is not None:
                raise _FieldError(
                    "documents are given both in chat_template_kwargs and as a request "
                    "field; give them in one place only",
                    "chat_template_kwargs.documents",
                )
            kwargs = dict(kwargs)
            body["documents"] = kwargs.pop("documents")
            body["chat_template_kwargs"] = kwargs
        for key in data:
            if key in _REQUEST_FIELDS or key in ("model", "extra_body"):
                continue
            if key not in OPENAI_REQUEST_PARAMETERS:
                raise _FieldError(_unknown_key_message(key), _field_name(key))
        return body

    @classmethod
    def from_chat_completion(cls, request: ChatCompletion) -> ChatCompletion:
        """Convert another :class:`ChatCompletion` (for example the plain type) to ``cls``.

        Subclasses that only narrow ``chat_template_kwargs`` override this to reuse the
        already validated fields instead of validating the whole request again.
        """
        data = {name: getattr(request, name) for name in ChatCompletion.model_fields}
        return cls.model_validate(data)

    @field_validator("tools", mode="before")
    @classmethod
    def _plain_tools(cls, tools: Any) -> Any:
        if isinstance(tools, (list, tuple)):
            return [_tool_data(tool, index) for index, tool in enumerate(tools)]
        return tools

    @field_validator("tools")
    @classmethod
    def _check_tools(cls, tools: list[dict[str, Any]] | None) -> list[dict[str, Any]] | None:
        if tools is not None:
            for i, tool in enumerate(tools):
                _check_tool(tool, i)
        return tools


def _unknown_key_message(key: str) -> str:
    hint = ""
    if key in ("thinking", "controls"):
        hint = " Put template options under 'chat_template_kwargs'."
    return (
        f"unknown request field {quote(key)}: it is neither a granite-formatters field "
        f"(messages, tools, documents, chat_template_kwargs, extra_body) nor a known "
        f"OpenAI/vLLM parameter.{hint}"
    )


# Response-side models build their validators on first use (``defer_build``), so a
# process that only formats prompts does not pay for them at import.
_RESPONSE_CONFIG = ConfigDict(defer_build=True)


class ToolCallIds:
    """Makes the ids of the tool calls one parser finds (when the model gave none).

    ``call_`` + 16 random hex digits drawn once per instance + an 8-digit counter: unique
    across parsers, so the same call in two turns of a conversation gets two ids, while
    the n-th id of one parser differs from the others only in its counter. O(1) per id;
    the random part is drawn on first use, so a parse without tool calls costs nothing.
    """

    __slots__ = ("_made", "_prefix")

    def __init__(self) -> None:
        self._prefix = ""
        self._made = 0

    def __call__(self) -> str:
        """The next id."""
        if not self._prefix:
            import secrets

            self._prefix = secrets.token_hex(8)
        made = self._made
        self._made = made + 1
        return f"call_{self._prefix}{made & 0xFFFFFFFF:08x}"


class ToolCall(BaseModel):
    """A tool call parsed from model output."""

    model_config = _RESPONSE_CONFIG

    id: str
    name: str
    arguments: Any = None

    def to_openai(self) -> dict[str, Any]:
        """The OpenAI form: ``{"id", "type": "function", "function": {"name", "arguments"}}``.

        ``arguments`` is a JSON string, as in the OpenAI API.
        """
        arguments = self.arguments if self.arguments is not None else {}
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": tojson(arguments)},
        }


class AssistantMessage(BaseModel):
    """A structured assistant message, as an output processor returns it.

    ``raw_content`` is the model's text as received (decoded; always set by the bundled
    parsers); ``notes`` lists what the parser could not interpret (it never raises
    instead). ``stop_reason`` is what the caller passed (``close(stop_reason=...)``, or
    ``transform(..., stop_reason=...)`` of the bundled processors): the stop string or
    token the backend matched, as vLLM reports it; the text cannot show it, so it is
    ``None`` otherwise.
    """

    model_config = _RESPONSE_CONFIG

    role: Literal["assistant"] = "assistant"
    content: str = ""
    reasoning_content: str | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)
    raw_content: str | None = None
    notes: list[str] = Field(default_factory=list)
    stop_reason: str | None = None

    def to_openai(self) -> dict[str, Any]:
        """The OpenAI chat message dict (tool calls in OpenAI form, reasoning kept).

        The reasoning is given twice, as ``reasoning_content`` (vLLM's reasoning
        parsers, DeepSeek) and as ``reasoning`` (the name newer servers use). The dict
        validates as the ``openai`` package's ``ChatCompletionMessage`` and can be
        appended to a request's ``messages`` as it is.
        """
        message: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.reasoning_content is not None:
            message["reasoning_content"] = self.reasoning_content
            message["reasoning"] = self.reasoning_content
        if self.tool_calls:
            message["tool_calls"] = [call.to_openai() for call in self.tool_calls]
        return message


RequestT = TypeVar("RequestT", bound=ChatCompletion)


def _describe_validation_error(error: ValidationError) -> InvalidRequestError:
    """Turn a pydantic ``ValidationError`` into an :class:`InvalidRequestError`.

    The message names the first offending field (``messages[1].content``) and says
    what is wrong; the other problems are counted.
    """
    problems = error.errors(include_url=False)
    first = problems[0]
    kind = first.get("type")
    field = _loc_to_field(first.get("loc", ()))
    cause = first.get("ctx", {}).get("error") if kind == "value_error" else None
    if isinstance(cause, BaseException):
        message = str(cause)
        if isinstance(cause, _FieldError) and cause.path:
            path = cause.path
            field = field + path if path.startswith("[") or not field else f"{field}.{path}"
        elif isinstance(cause, InvalidRequestError) and cause.field:
            field = f"{field}.{cause.field}" if field else cause.field
            message = str(cause)[len(cause.field) + 2 :]
    elif kind == "missing":
        message = "this field is required"
    elif kind == "extra_forbidden":
        message = "unknown field; check its spelling"
    else:
        message = str(first.get("msg", "invalid value"))
        value = first.get("input")
        if value is None or isinstance(value, (str, int, float)):
            message += f" (got {quote(value)})"
    if len(problems) > 1:
        message += f" (and {len(problems) - 1} more problem(s) in the request)"
    return InvalidRequestError(message, field=field or None)


def _loc_to_field(loc: Any) -> str:
    """``("messages", 1, "content")`` → ``messages[1].content`` (keys cut short)."""
    parts: list[str] = []
    for item in loc:
        if isinstance(item, int):
            parts.append(f"[{item}]")
        else:
            parts.append(("." if parts else "") + _field_name(item))
    return "".join(parts)


def coerce_request(request: Any, cls: type[RequestT]) -> RequestT:
    """Return ``request`` as an instance of ``cls``.

    An instance of ``cls`` is returned as it is (no round trip). A dict or JSON
    string is validated; another :class:`ChatCompletion` is re-validated field by
    field. Any problem raises :class:`InvalidRequestError` naming the field.
    """
    if isinstance(request, cls):
        return request
    try:
        if isinstance(request, ChatCompletion):
            return cast(RequestT, cls.from_chat_completion(request))
        if isinstance(request, (str, bytes, bytearray)):
            try:
                decoded = json.loads(request)
            except ValueError as exc:
                raise InvalidRequestError(
                    f"the request is not valid JSON ({exc}); pass a dict, a JSON object "
                    "string or a ChatCompletion",
                ) from None
            request = decoded
        if not isinstance(request, Mapping):
            raise InvalidRequestError(
                f"a request must be a ChatCompletion, a dict or a JSON object string, "
                f"not {type(request).__name__}"
            )
        return cls.model_validate(request)
    except ValidationError as exc:
        raise _describe_validation_error(exc) from None
    except RecursionError:
        raise InvalidRequestError("the request is nested too deeply to process") from None
