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
    StrictInt,
    StrictStr,
    ValidationError,
    field_validator,
    model_validator,
)

from .errors import InvalidRequestError

__all__ = [
    "AssistantMessage",
    "ChatCompletion",
    "ChatMessage",
    "Document",
    "OPENAI_REQUEST_PARAMETERS",
    "ToolCall",
    "coerce_request",
]

#: Top-level request keys that belong to the OpenAI / vLLM chat-completions API and do
#: not affect the prompt. They are accepted and ignored, so a request body written for
#: a server can be passed to a formatter unchanged.
OPENAI_REQUEST_PARAMETERS: frozenset[str] = frozenset(
    {
        # OpenAI
        "model",
        "temperature",
        "top_p",
        "max_tokens",
        "max_completion_tokens",
        "n",
        "stream",
        "stream_options",
        "stop",
        "presence_penalty",
        "frequency_penalty",
        "logit_bias",
        "logprobs",
        "top_logprobs",
        "user",
        "seed",
        "response_format",
        "tool_choice",
        "parallel_tool_calls",
        "functions",
        "function_call",
        "metadata",
        "store",
        "service_tier",
        "modalities",
        "audio",
        "prediction",
        "reasoning_effort",
        "web_search_options",
        "safety_identifier",
        "prompt_cache_key",
        "verbosity",
        # OpenAI Python client transport options
        "extra_headers",
        "extra_query",
        "timeout",
        # vLLM sampling and serving extensions
        "top_k",
        "min_p",
        "repetition_penalty",
        "length_penalty",
        "min_tokens",
        "stop_token_ids",
        "include_stop_str_in_output",
        "ignore_eos",
        "use_beam_search",
        "best_of",
        "skip_special_tokens",
        "spaces_between_special_tokens",
        "add_generation_prompt",
        "continue_final_message",
        "add_special_tokens",
        "echo",
        "guided_json",
        "guided_regex",
        "guided_choice",
        "guided_grammar",
        "guided_decoding_backend",
        "guided_whitespace_pattern",
        "structured_outputs",
        "prompt_logprobs",
        "allowed_token_ids",
        "bad_words",
        "logits_processors",
        "return_tokens_as_token_ids",
        "truncate_prompt_tokens",
        "priority",
        "request_id",
        "chat_template",
        "mm_processor_kwargs",
        "cache_salt",
        "kv_transfer_params",
        "vllm_xargs",
        "return_token_ids",
        "thinking_token_budget",
    }
)

_REQUEST_FIELDS = frozenset({"messages", "tools", "documents", "chat_template_kwargs"})
_EXTRA_BODY_FIELDS = frozenset({"documents", "chat_template_kwargs"})


def _join_text_parts(parts: list[Any]) -> str:
    """Join OpenAI content parts the way vLLM does for text-only chat templates."""
    texts: list[str] = []
    for i, part in enumerate(parts):
        if isinstance(part, str):
            texts.append(part)
            continue
        if not isinstance(part, Mapping):
            raise ValueError(
                f"content part {i} must be an object like {{'type': 'text', 'text': '...'}}"
            )
        kind = part.get("type")
        if kind != "text" or not isinstance(part.get("text"), str):
            raise ValueError(
                f"content part {i} has type {kind!r}; only text parts "
                "({'type': 'text', 'text': '...'}) can be rendered into a Granite prompt"
            )
        texts.append(part["text"])
    return "\n".join(texts)


class ChatMessage(BaseModel):
    """One message of a conversation.

    ``role`` is printed verbatim by the Granite templates, so any role is accepted.
    ``content`` may be a string or a list of OpenAI text parts (joined with newlines,
    as vLLM joins them). Other OpenAI message fields are kept but not rendered.
    """

    model_config = ConfigDict(extra="allow", frozen=False)

    role: StrictStr
    content: StrictStr | None = None
    tool_calls: list[Any] | None = None
    tool_call_id: str | None = None
    name: str | None = None
    reasoning_content: str | None = None

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


def _check_tool(tool: Any, index: int) -> None:
    where = f"tools[{index}]"
    if not isinstance(tool, Mapping):
        raise ValueError(f"{where} must be an object, got {type(tool).__name__}")
    if "function" in tool and tool.get("type", "function") == "function":
        function = tool["function"]
        if not isinstance(function, Mapping) or not isinstance(function.get("name"), str):
            raise ValueError(f"{where}.function must be an object with a string 'name'")
        return
    if not isinstance(tool.get("name"), str):
        raise ValueError(
            f"{where} needs a string 'name' (flat form {{name, description, parameters}}) "
            "or the OpenAI form {'type': 'function', 'function': {'name': ...}}"
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
        body = {k: v for k, v in data.items() if k in _REQUEST_FIELDS or k == "model"}
        extra_body = data.get("extra_body")
        if extra_body is not None:
            if not isinstance(extra_body, Mapping):
                raise ValueError("extra_body must be an object")
            for key, value in extra_body.items():
                if key in _EXTRA_BODY_FIELDS:
                    if body.get(key) is not None:
                        raise ValueError(
                            f"{key!r} is given both at the top level and in extra_body; "
                            "give it in one place only"
                        )
                    body[key] = value
                elif key not in OPENAI_REQUEST_PARAMETERS:
                    raise ValueError(_unknown_key_message(f"extra_body.{key}"))
        kwargs = body.get("chat_template_kwargs")
        if isinstance(kwargs, Mapping) and "documents" in kwargs:
            if body.get("documents") is not None:
                raise ValueError(
                    "documents are given both in chat_template_kwargs and as a request "
                    "field; give them in one place only"
                )
            kwargs = dict(kwargs)
            body["documents"] = kwargs.pop("documents")
            body["chat_template_kwargs"] = kwargs
        for key in data:
            if key in _REQUEST_FIELDS or key in ("model", "extra_body"):
                continue
            if key not in OPENAI_REQUEST_PARAMETERS:
                raise ValueError(_unknown_key_message(key))
        return body

    @classmethod
    def from_chat_completion(cls, request: ChatCompletion) -> ChatCompletion:
        """Convert another :class:`ChatCompletion` (for example the plain type) to ``cls``.

        Subclasses that only narrow ``chat_template_kwargs`` override this to reuse the
        already validated fields instead of validating the whole request again.
        """
        data = {name: getattr(request, name) for name in ChatCompletion.model_fields}
        return cls.model_validate(data)

    @field_validator("tools")
    @classmethod
    def _check_tools(cls, tools: list[dict[str, Any]] | None) -> list[dict[str, Any]] | None:
        if tools is not None:
            for i, tool in enumerate(tools):
                _check_tool(tool, i)
        return tools


def _unknown_key_message(key: str) -> str:
    hint = ""
    if key.rsplit(".", 1)[-1] in ("thinking", "controls"):
        hint = " Put template options under 'chat_template_kwargs'."
    return (
        f"unknown request field {key!r}: it is neither a granite-formatters field "
        f"(messages, tools, documents, chat_template_kwargs, extra_body) nor a known "
        f"OpenAI/vLLM parameter.{hint}"
    )


# Response-side models build their validators on first use (``defer_build``), so a
# process that only formats prompts does not pay for them at import.
_RESPONSE_CONFIG = ConfigDict(defer_build=True)


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
            "function": {"name": self.name, "arguments": json.dumps(arguments, ensure_ascii=False)},
        }


class AssistantMessage(BaseModel):
    """A structured assistant message, as an output processor returns it.

    ``raw_content`` keeps the model's original text whenever anything was parsed out of
    it; ``notes`` lists what the parser could not interpret (it never raises instead).
    """

    model_config = _RESPONSE_CONFIG

    role: Literal["assistant"] = "assistant"
    content: str = ""
    reasoning_content: str | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)
    raw_content: str | None = None
    notes: list[str] = Field(default_factory=list)

    def to_openai(self) -> dict[str, Any]:
        """The OpenAI chat message dict (tool calls in OpenAI form, reasoning kept)."""
        message: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.reasoning_content is not None:
            message["reasoning_content"] = self.reasoning_content
        if self.tool_calls:
            message["tool_calls"] = [call.to_openai() for call in self.tool_calls]
        return message


RequestT = TypeVar("RequestT", bound=ChatCompletion)


def describe_validation_error(error: ValidationError) -> InvalidRequestError:
    """Turn a pydantic ``ValidationError`` into an :class:`InvalidRequestError`.

    The message names the first offending field (``messages[1].content``) and says
    what is wrong; the other problems are counted.
    """
    problems = error.errors(include_url=False)
    first = problems[0]
    parts: list[str] = []
    for item in first.get("loc", ()):
        if isinstance(item, int):
            parts.append(f"[{item}]")
        else:
            if item in ("function-after[_check_tools(), nullable[list[dict[str,any]]]]",):
                continue
            parts.append(("." if parts else "") + str(item))
    field = "".join(parts) or None
    message = str(first.get("msg", "invalid value"))
    if message.startswith("Value error, "):
        message = message[len("Value error, ") :]
    if first.get("type") == "missing":
        message = "this field is required"
    elif first.get("type") == "extra_forbidden":
        message = "unknown field; check its spelling"
    if len(problems) > 1:
        message += f" (and {len(problems) - 1} more problem(s) in the request)"
    return InvalidRequestError(message, field=field)


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
        raise describe_validation_error(exc) from None
    except RecursionError:
        raise InvalidRequestError("the request is nested too deeply to process") from None
