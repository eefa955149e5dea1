"""What the Granite 3 renderer reads from a request, and a fast path for plain dicts.

The renderer reads a few attributes of a request (:class:`RequestView`); a validated
:class:`~granite_formatters.granite3.types.Granite3ChatCompletion` has them, and so does
the light :class:`PlainRequest` that :func:`plain_request` builds straight from a plain
dict whose every known key has exactly the expected type. Anything unusual (another
type, an unknown key, ``extra_body``, content parts, a value validation would refuse)
gives ``None``: the caller then takes the full validated path, so errors and every
corner of validation stay exactly as they are.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from ..plaindicts import has_plain_keys, is_optional_str, is_plain_tool
from ._controls import controls_problem


class MessageView(Protocol):
    @property
    def role(self) -> str: ...
    @property
    def content(self) -> str | None: ...
    @property
    def tool_calls(self) -> list[Any] | None: ...


class DocumentView(Protocol):
    @property
    def text(self) -> str: ...
    @property
    def doc_id(self) -> str | int | None: ...


class KwargsView(Protocol):
    @property
    def thinking(self) -> bool: ...
    @property
    def controls(self) -> dict[str, Any] | None: ...


class RequestView(Protocol):
    @property
    def messages(self) -> Sequence[MessageView]: ...
    @property
    def tools(self) -> list[dict[str, Any]] | None: ...
    @property
    def documents(self) -> Sequence[DocumentView] | None: ...
    @property
    def chat_template_kwargs(self) -> KwargsView: ...


class PlainMessage:
    __slots__ = ("content", "role", "tool_calls")

    def __init__(self, role: str, content: str, tool_calls: list[Any] | None) -> None:
        self.role = role
        self.content: str | None = content
        self.tool_calls = tool_calls


class PlainDocument:
    __slots__ = ("doc_id", "text")

    def __init__(self, text: str, doc_id: str | int | None) -> None:
        self.text = text
        self.doc_id = doc_id


class PlainKwargs:
    __slots__ = ("controls", "thinking")

    def __init__(self, thinking: bool, controls: dict[str, Any] | None) -> None:
        self.thinking = thinking
        self.controls = controls


class PlainRequest:
    __slots__ = ("chat_template_kwargs", "documents", "messages", "tools")

    def __init__(
        self,
        messages: list[PlainMessage],
        tools: list[dict[str, Any]] | None,
        documents: list[PlainDocument] | None,
        chat_template_kwargs: PlainKwargs,
    ) -> None:
        self.messages = messages
        self.tools = tools
        self.documents = documents
        self.chat_template_kwargs = chat_template_kwargs


_OPTIONAL_MESSAGE_STRINGS = ("tool_call_id", "name", "reasoning_content")
_NO_OPTIONS = PlainKwargs(False, None)


def plain_request(data: dict[str, Any]) -> PlainRequest | None:
    """A :class:`PlainRequest` for a plain, valid request dict, or ``None``."""
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
        for name in _OPTIONAL_MESSAGE_STRINGS:
            if name in raw and not is_optional_str(raw[name]):
                return None
        messages.append(PlainMessage(role, content, calls))
    tools = data.get("tools")
    if tools is not None:
        if type(tools) is not list:
            return None
        for tool in tools:
            if not is_plain_tool(tool):
                return None
    documents: list[PlainDocument] | None = None
    raw_documents = data.get("documents")
    if raw_documents is not None:
        if type(raw_documents) is not list:
            return None
        documents = []
        for raw in raw_documents:
            if type(raw) is not dict or any(type(key) is not str for key in raw):
                return None
            text = raw.get("text")
            doc_id = raw.get("doc_id")
            if type(text) is not str or not is_optional_str(raw.get("title")):
                return None
            if doc_id is not None and type(doc_id) is not str and type(doc_id) is not int:
                return None
            documents.append(PlainDocument(text, doc_id))
    options = data.get("chat_template_kwargs")
    kwargs = _NO_OPTIONS
    if options is not None:
        if type(options) is not dict or not options.keys() <= {"thinking", "controls"}:
            return None
        thinking = options.get("thinking", False)
        controls = options.get("controls")
        if type(thinking) is not bool:
            return None
        if controls is not None and (type(controls) is not dict or controls_problem(controls)):
            return None
        kwargs = PlainKwargs(thinking, controls)
    return PlainRequest(messages, tools, documents, kwargs)


__all__ = [
    "DocumentView",
    "KwargsView",
    "MessageView",
    "PlainRequest",
    "RequestView",
    "plain_request",
]
