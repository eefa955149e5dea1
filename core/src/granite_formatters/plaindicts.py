"""Checks for the structural fast path of plain-dict requests, shared by every format.

A formatter renders most requests from plain dicts (a JSON body). Validating one into
the pydantic request models costs several times the rendering itself, so the bundled
input processors first look at the dict: when every key they read has exactly the
expected type (``type(x) is str``, not a subclass; no unknown key, no ``extra_body``)
they render straight from it, and anything else takes the full validated path, which
builds the same prompt or raises the same :class:`~granite_formatters.errors.InvalidRequestError`.
This module holds the checks that do not depend on the format; it imports neither
pydantic nor anything heavy, so the fast path never loads the request models.

A check answers only "plain and valid as far as I can see": ``False`` never means the
request is invalid, only that the full path must judge it.
"""

from __future__ import annotations

import marshal
import re
from collections.abc import Callable
from typing import Any, ClassVar, Generic, Protocol, TypeVar

__all__ = [
    "OPENAI_REQUEST_PARAMETERS",
    "REQUEST_FIELDS",
    "DocumentView",
    "MessageView",
    "PlainDataMemo",
    "PlainDocument",
    "PlainMessage",
    "PlainRequest",
    "are_plain_keys",
    "are_plain_tools",
    "has_plain_keys",
    "is_optional_str",
    "is_plain_tool",
    "plain_fields",
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


#: The request fields a formatter reads (``model`` and the OpenAI parameters are ignored).
REQUEST_FIELDS: frozenset[str] = frozenset(
    {"messages", "tools", "documents", "chat_template_kwargs"}
)


def is_optional_str(value: Any) -> bool:
    """``None`` or an exact ``str``."""
    return value is None or type(value) is str


def has_plain_keys(data: dict[str, Any]) -> bool:
    """Every top-level key is a request field or an ignored OpenAI/vLLM parameter (not
    ``extra_body``, whose contents validation moves), and ``model`` is a string or null."""
    for key in data:
        if key not in REQUEST_FIELDS and (
            key == "extra_body" or key not in OPENAI_REQUEST_PARAMETERS
        ):
            return False
    return is_optional_str(data.get("model"))


def is_plain_tool(tool: Any) -> bool:
    """A tool in one of the two shapes validation accepts, with exact types only:
    ``{"type": "function", "function": {"name": str, ...}}`` or ``{"name": str, ...}``,
    every key of the tool a ``str``."""
    if type(tool) is not dict:
        return False
    if "function" in tool:
        function = tool["function"]
        if not (
            tool.get("type", "function") == "function"
            and type(function) is dict
            and type(function.get("name")) is str
        ):
            return False
        known = 1 + ("type" in tool)  # (how many of the tool's keys are known strings)
    elif type(tool.get("name")) is str:
        known = 1
    else:
        return False
    return len(tool) == known or all(type(key) is str for key in tool)


def are_plain_tools(tools: Any) -> bool:
    """A request's ``tools``: absent (``None``) or a list of :func:`is_plain_tool` tools."""
    if tools is None:
        return True
    return type(tools) is list and all(map(is_plain_tool, tools))


class MessageView(Protocol):
    """What a renderer reads from a message (a ``ChatMessage`` or a :class:`PlainMessage`)."""

    @property
    def role(self) -> str: ...
    @property
    def content(self) -> str | None: ...
    @property
    def tool_calls(self) -> list[Any] | None: ...


class DocumentView(Protocol):
    """What a renderer reads from a document (a ``Document`` or a :class:`PlainDocument`)."""

    @property
    def text(self) -> str: ...
    @property
    def doc_id(self) -> str | int | None: ...


class PlainMessage:
    """A message read straight from a plain dict (see :func:`plain_fields`)."""

    __slots__ = ("content", "role", "tool_calls")

    def __init__(self, role: str, content: str, tool_calls: list[Any] | None) -> None:
        self.role = role
        self.content: str | None = content
        self.tool_calls = tool_calls


class PlainDocument:
    """A document read straight from a plain dict (see :func:`plain_fields`)."""

    __slots__ = ("doc_id", "text")

    def __init__(self, text: str, doc_id: str | int | None) -> None:
        self.text = text
        self.doc_id = doc_id


#: What a format reads from ``chat_template_kwargs`` (its own view of the options).
K = TypeVar("K")


class PlainRequest(Generic[K]):
    """A plain request dict read without validation: :func:`plain_fields` and the
    format's own view of ``chat_template_kwargs``."""

    __slots__ = ("chat_template_kwargs", "documents", "messages", "tools")

    def __init__(
        self,
        messages: list[PlainMessage],
        tools: list[dict[str, Any]] | None,
        documents: list[PlainDocument] | None,
        chat_template_kwargs: K,
    ) -> None:
        self.messages = messages
        self.tools = tools
        self.documents = documents
        self.chat_template_kwargs = chat_template_kwargs


_OPTIONAL_MESSAGE_STRINGS = ("tool_call_id", "name", "reasoning_content")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _is_plain_key(key: Any) -> bool:
    return type(key) is str and (key.isascii() or _SURROGATE.search(key) is None)


def are_plain_keys(data: dict[Any, Any]) -> bool:
    """Every key of a message or document dict is one validation keeps as it is: an
    exact ``str`` without lone surrogates (validation refuses other keys, and an extra
    key holding a lone surrogate, which is not valid text)."""
    return all(map(_is_plain_key, data))


def plain_fields(
    data: dict[str, Any],
) -> tuple[list[PlainMessage], list[dict[str, Any]] | None, list[PlainDocument] | None] | None:
    """The messages, tools and documents of a plain request dict, or ``None``.

    ``None`` unless the top-level keys are plain (:func:`has_plain_keys`) and ``messages``
    (a non-empty list), ``tools`` and ``documents`` hold exactly what the request model
    would accept unchanged: each message a dict with a ``str`` role and content (not
    content parts) and only :func:`are_plain_keys` keys, ``tool_calls`` a list of dicts,
    ``tool_call_id``/``name``/``reasoning_content`` strings or null; each tool
    :func:`is_plain_tool`; each document a dict of :func:`are_plain_keys` keys with a
    ``str`` text, a ``str``/``int`` (not ``bool``) or missing ``doc_id`` and a ``str`` or
    missing title. ``tools`` is the caller's list; the
    format checks ``chat_template_kwargs`` itself.
    """
    if not has_plain_keys(data):
        return None
    raw_messages = data.get("messages")
    if type(raw_messages) is not list or not raw_messages:
        return None
    messages: list[PlainMessage] = []
    for raw in raw_messages:
        if type(raw) is not dict:
            return None
        role = raw.get("role")
        content = raw.get("content")
        calls = raw.get("tool_calls")
        if type(role) is not str or type(content) is not str:
            return None
        if calls is not None and (
            type(calls) is not list or any(type(call) is not dict for call in calls)
        ):
            return None  # (objects such as the openai package's are read by validation)
        if len(raw) > 2:  # (two keys: exactly role and content)
            if not are_plain_keys(raw):
                return None  # validation refuses it ("Keys should be strings")
            for name in _OPTIONAL_MESSAGE_STRINGS:
                if name in raw and not is_optional_str(raw[name]):
                    return None
        messages.append(PlainMessage(role, content, calls))
    tools = data.get("tools")
    if not are_plain_tools(tools):
        return None
    documents: list[PlainDocument] | None = None
    raw_documents = data.get("documents")
    if raw_documents is not None:
        if type(raw_documents) is not list:
            return None
        documents = []
        for raw in raw_documents:
            if type(raw) is not dict:
                return None
            if not are_plain_keys(raw):
                return None
            text = raw.get("text")
            doc_id = raw.get("doc_id")
            if type(text) is not str or not is_optional_str(raw.get("title")):
                return None
            if doc_id is not None and type(doc_id) is not str and type(doc_id) is not int:
                return None
            documents.append(PlainDocument(text, doc_id))
    return messages, tools, documents


class PlainDataMemo:
    """Texts made from plain data (tool lists, document lists), cached by the data's bytes.

    A tool list is usually sent again with every turn of a conversation, and writing it
    as JSON costs more than the rest of the prompt. The key is ``marshal.dumps(value)``
    (with the ``context`` strings the text depends on, such as a special-token policy,
    given to :meth:`get`),
    written in C several times faster than JSON: two values with the same marshal bytes
    are the same structure of exact types (``True`` and ``1``, ``1`` and ``1.0`` marshal
    differently), so they make the same text and the key is exact (sharing can only make
    equal values miss, never collide). A value marshal refuses (another type, a ``str``
    subclass, deep nesting, a cycle) is made without the cache, as is one whose key is
    longer than :attr:`MAX_KEY_LENGTH`. ``make`` raising is not cached either. Keeps at
    most :attr:`MAX_ENTRIES` texts (then starts afresh); pickles with its entries.
    """

    __slots__ = ("_entries", "_make")

    MAX_ENTRIES: ClassVar[int] = 32
    MAX_KEY_LENGTH: ClassVar[int] = 1 << 18

    def __init__(self, make: Callable[[Any], str] | None = None) -> None:
        self._make = make
        self._entries: dict[tuple[bytes | str, tuple[str, ...]], str] = {}

    def key(self, value: Any) -> bytes | str | None:
        """The exact key of ``value``, or ``None`` to make its text without the cache."""
        try:
            return marshal.dumps(value)
        except ValueError:
            return None

    def __call__(self, value: Any) -> str:
        """The text ``make`` (given at construction) makes from ``value``."""
        assert self._make is not None, "PlainDataMemo() without make: call get()"
        return self.get(value, (), self._make)

    def get(self, value: Any, context: tuple[str, ...], make: Callable[[Any], str]) -> str:
        """The text ``make(value)``, cached under ``value`` and ``context``."""
        key = self.key(value)
        if key is None:
            return make(value)
        entry = (key, context)
        text = self._entries.get(entry)
        if text is None:
            text = make(value)
            if len(key) <= self.MAX_KEY_LENGTH:
                if len(self._entries) >= self.MAX_ENTRIES:
                    self._entries.clear()
                self._entries[entry] = text
        return text

    def __getstate__(self) -> dict[str, Any]:
        return {"_make": self._make, "_entries": dict(self._entries)}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._make = state["_make"]
        self._entries = state["_entries"]
