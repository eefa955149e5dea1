"""The request view: a plain dict or a validated request behind the same reads.

A plain dict whose every read key has exactly the expected type is read as it is
(without importing pydantic); anything else is validated into a ``ChatCompletion``,
which renders the same or raises the error. This is the renderer's only fast path.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from .._errors import InvalidRequestError, quote
from .._plaindicts import (
    OPENAI_REQUEST_PARAMETERS,
    REQUEST_FIELDS,
    are_plain_keys,
    are_plain_tools,
)

if TYPE_CHECKING:
    from .._processors import RequestLike
    from .._types import ChatCompletion
    from ..release import Release

__all__ = [
    "STRICT",
    "VALIDATED_TYPES",
    "NotPlain",
    "PlainRequest",
    "Problems",
    "RequestView",
    "Turn",
    "are_plain_documents",
    "body_flag",
    "body_value",
    "document_data",
    "documents_data",
    "join_parts",
    "is_plain_document",
    "plain_fields",
    "plain_head",
    "plain_messages",
    "plain_request",
    "plain_turn",
    "raw_documents",
    "request_body",
    "revalidated",
    "top_level_effort",
    "typed_options",
    "view",
]


class Problems:
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

    def add_each(self, message: str, fields: tuple[str, ...]) -> None:
        """:meth:`add` ``message`` for each of ``fields`` (at least one), in order: the
        items made once for the same message and fields."""
        if self.strict:
            self.add(message, fields[0])
        key = (message, fields)
        items = _ITEMS.get(key)
        if items is None:
            items = tuple(f"{field}: {message}" for field in fields)
            if len(_ITEMS) >= _KEPT:
                _ITEMS.clear()
            _ITEMS[key] = items
        self.items += items

    def warning(self, name: str) -> str:
        """The message of the warning about the problems, for release ``name``: made once
        for the same few problems (a short message is kept, its hash with it)."""
        items = self.items
        key = (name, *items) if len(items) <= _KEPT else None
        message = _MESSAGES.get(key) if key is not None else None
        if message is None:
            message = (
                f"{name}: the prompt leaves out what the official chat template drops: "
                + "; ".join(items)
            )
            if key is not None and len(message) <= _MESSAGE_LENGTH:
                if len(_MESSAGES) >= _KEPT:
                    _MESSAGES.clear()
                _MESSAGES[key] = message
        return message


#: How many sets of problems' items and warning messages are kept (then they start
#: afresh), the most problems a kept message holds, and its longest (a caller's long
#: option name is not kept).
_KEPT = 32
_MESSAGE_LENGTH = 16384
_ITEMS: dict[tuple[str, tuple[str, ...]], tuple[str, ...]] = {}
_MESSAGES: dict[tuple[str, ...], str] = {}


#: Problems of a strict render: raised at once, never kept, so one object serves all.
STRICT = Problems(True)

#: A message as the renderer reads it: role, content (``None``: missing), tool calls.
Turn = tuple[str, "str | None", "list[Any] | None"]


class RequestView(Protocol):
    """What the renderer reads: a validated ``ChatCompletion`` or a :class:`PlainRequest`
    (a plain request's messages read and checked by the renderer)."""

    @property
    def messages(self) -> Sequence[Any]: ...
    @property
    def tools(self) -> list[dict[str, Any]] | None: ...
    @property
    def documents(self) -> Sequence[Any] | None: ...
    @property
    def chat_template_kwargs(self) -> dict[str, Any] | None: ...


def body_value(raw: Mapping[str, Any] | None, key: str) -> Any:
    """A key vLLM's chat endpoint reads from the request body (top level, then
    ``extra_body``), or ``None`` when it is absent or null."""
    if raw is None:
        return None
    value = raw.get(key)
    if value is None:
        extra = raw.get("extra_body")
        if extra is not None and isinstance(extra, Mapping):
            value = extra.get(key)
    return value


def join_parts(parts: Sequence[Any], *, by_template: bool = True) -> str:
    """The text parts joined with newlines: as the Granite 4.0/4.1 templates join them
    (an empty text adds no newline at the start), or with ``by_template`` false as a
    server joins them for a template that reads only strings (vLLM's "string" content
    format: every text part, newline-separated)."""
    if not by_template:
        return "\n".join(
            part["text"]
            for part in parts
            if isinstance(part, Mapping) and part.get("type") == "text"
        )
    text = ""
    for part in parts:
        if isinstance(part, Mapping) and part.get("type") == "text":
            if text != "":
                text += "\n"
            text += part["text"]
    return text


def raw_documents(raw: Mapping[str, Any]) -> Any:
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


#: The types a document's dump returns as they are (``bool`` is not ``int`` here).
_DUMPED_AS_IS = frozenset({str, int, type(None)})


def document_data(document: Any) -> dict[str, Any]:
    """``document.model_dump(exclude_unset=True)`` of a validated ``Document``: its own
    field dict (not a copy: read only) when its fields are all it has, all set, and each
    an exact ``str``, ``int`` or null (what a dump returns as it is); its set fields when
    some are unset; otherwise the dump itself."""
    fields: dict[str, Any] = document.__dict__
    if not document.__pydantic_extra__:
        fields_set = document.__pydantic_fields_set__
        if len(fields_set) != len(fields):
            fields = {name: value for name, value in fields.items() if name in fields_set}
        if _DUMPED_AS_IS.issuperset(map(type, fields.values())):
            return fields
    # (no serializer warnings: a field changed to another type after validation is
    # refused by the renderer, naming it)
    dumped: dict[str, Any] = document.model_dump(exclude_unset=True, warnings=False)
    return dumped


def documents_data(documents: Sequence[Any]) -> list[dict[str, Any]]:
    """:func:`document_data` of each validated document."""
    return list(map(document_data, documents))


class PlainRequest(NamedTuple):
    """A plain request dict read without validation (see :func:`plain_head`): the
    caller's messages, tools, documents and ``chat_template_kwargs`` as they are."""

    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] | None
    documents: list[dict[str, Any]] | None
    chat_template_kwargs: dict[str, Any] | None


#: The message keys besides role, content and tool_calls that validation reads as text.
_OPTIONAL_MESSAGE_STRINGS = ("tool_call_id", "name", "reasoning_content")
#: The message keys read (exact ``str`` literals: plain keys without a check).
_MESSAGE_KEYS = frozenset({"role", "content", "tool_calls", *_OPTIONAL_MESSAGE_STRINGS})
#: The document keys read (exact ``str`` literals: plain keys without a check).
_DOCUMENT_KEYS = frozenset({"text", "doc_id", "title"})
#: The types of a plain document's ``doc_id`` (not ``bool``) and title (missing: null).
_ID_TYPES = frozenset({str, int, type(None)})
_TITLE_TYPES = frozenset({str, type(None)})
#: The top-level keys of a plain request: the fields read and the ignored OpenAI/vLLM
#: parameters (not ``extra_body``, whose contents validation moves).
_PLAIN_KEYS = REQUEST_FIELDS | (OPENAI_REQUEST_PARAMETERS - {"extra_body"})
#: ``tuple.__new__``: a :class:`PlainRequest` made without a Python-level frame.
_new = tuple.__new__

#: A plain request's fields as a bare tuple (see :func:`plain_fields`): messages, tools,
#: documents, ``chat_template_kwargs``.
PlainFields = tuple[list[Any], "list[Any] | None", "list[Any] | None", "dict[str, Any] | None"]


class NotPlain(Exception):
    """A plain request's message or document is not plain after all: the request is
    validated (raised by whoever reads them from a :func:`plain_head` request)."""


def plain_turn(message: Any) -> Turn:
    """A plain message's :data:`Turn`: a dict with a ``str`` role and content (not
    content parts) and only plain keys, ``tool_calls`` a list of dicts,
    ``tool_call_id``/``name``/``reasoning_content`` strings or null; :class:`NotPlain`
    for any other (a missing role or content is left to validation too)."""
    if type(message) is not dict:
        raise NotPlain
    try:  # (subscripts, faster than get())
        role = message["role"]
        content = message["content"]
    except KeyError:
        raise NotPlain from None
    if type(role) is not str or type(content) is not str:
        raise NotPlain
    if len(message) == 2:  # (exactly role and content)
        return role, content, None
    calls = message.get("tool_calls")
    if calls is not None:
        if type(calls) is not list:
            raise NotPlain
        for call in calls:
            if type(call) is not dict:
                raise NotPlain  # (objects such as the openai package's: validation reads them)
    if not _MESSAGE_KEYS.issuperset(message) and not are_plain_keys(message):
        raise NotPlain  # validation refuses it ("Keys should be strings")
    for name in _OPTIONAL_MESSAGE_STRINGS:
        value = message.get(name)
        if value is not None and type(value) is not str:
            raise NotPlain
    return role, content, calls


def plain_messages(messages: Iterable[Any], documents: list[Any] | None = None) -> list[Turn]:
    """The :data:`Turn` of each plain message (:func:`plain_turn`); :class:`NotPlain`
    for any other, or for a document that is not plain (:func:`is_plain_document`)."""
    turns = list(map(plain_turn, messages))
    if documents is not None and not are_plain_documents(documents):
        raise NotPlain
    return turns


def is_plain_document(document: Any) -> bool:
    """A document dict of plain keys with a ``str`` text, a ``str``/``int`` (not
    ``bool``) or missing ``doc_id`` and a ``str`` or missing title."""
    return (
        type(document) is dict
        and (_DOCUMENT_KEYS.issuperset(document) or are_plain_keys(document))
        and type(document.get("text")) is str
        and type(document.get("doc_id")) in _ID_TYPES
        and type(document.get("title")) in _TITLE_TYPES
    )


def are_plain_documents(documents: Iterable[Any]) -> bool:
    """Every document :func:`is_plain_document` (the usual one, of the three keys read,
    checked here without a call)."""
    for document in documents:
        if not (
            type(document) is dict
            and _DOCUMENT_KEYS.issuperset(document)
            and type(document.get("text")) is str
            and type(document.get("doc_id")) in _ID_TYPES
            and type(document.get("title")) in _TITLE_TYPES
        ) and not is_plain_document(document):
            return False
    return True


def plain_head(data: dict[str, Any]) -> PlainRequest | None:
    """The :class:`PlainRequest` of :func:`plain_fields`, or ``None``."""
    fields = plain_fields(data)
    return None if fields is None else _new(PlainRequest, fields)


def plain_fields(data: dict[str, Any]) -> PlainFields | None:
    """The fields of a plain dict whose top level validation would accept unchanged
    (a bare tuple, cheaper to make than a :class:`PlainRequest`: the 3.x render reads
    it as it is), or ``None``; its messages and documents are checked by whoever reads them
    (the renderer, with :func:`plain_messages` or itself), which raises :class:`NotPlain`
    for one that is not plain (:func:`plain_request` checks them all).

    ``None`` unless every top-level key is a request field or an ignored OpenAI/vLLM
    parameter (not ``extra_body``, whose contents validation moves), ``model`` a string
    or null, ``messages`` a non-empty list, ``documents`` a list or null, each tool plain
    (:func:`~granite_formatters._plaindicts.is_plain_tool`). ``chat_template_kwargs`` is
    free-form (the renderer judges each key against the release's options), so it needs
    only be a dict of ``str`` keys without ``documents`` (which validation moves).
    """
    messages = data.get("messages")
    if type(messages) is not list or not messages:
        return None
    if len(data) == 1:  # (only the messages)
        return (messages, None, None, None)
    if not _PLAIN_KEYS.issuperset(data):
        return None
    model = data.get("model")
    if model is not None and type(model) is not str:
        return None
    tools = data.get("tools")
    if tools is not None and not are_plain_tools(tools):
        return None
    documents = data.get("documents")
    if documents is not None and type(documents) is not list:
        return None
    options = data.get("chat_template_kwargs")
    if options is not None:
        if type(options) is not dict or "documents" in options:
            return None
        for key in options:
            if type(key) is not str:
                return None
    return (messages, tools, documents, options)


def plain_request(data: dict[str, Any]) -> PlainRequest | None:
    """The request of a plain dict that validation would accept unchanged, its messages
    and documents checked (:func:`plain_head`, :func:`plain_messages`), or ``None``."""
    head = plain_head(data)
    if head is None:
        return None
    try:
        plain_messages(head.messages, head.documents)
    except NotPlain:
        return None
    return head


#: ``ChatCompletion`` and ``coerce_request``, imported on the first request that is not a
#: plain dict (pydantic is not imported for plain dicts; an import statement costs ~1 µs).
_VALIDATION: tuple[type[ChatCompletion], Callable[[Any, type[ChatCompletion]], Any]] | None = None


#: The ``ChatCompletion`` classes :func:`view` has met (their requests are used as they are).
VALIDATED_TYPES: set[type] = set()


def view(
    chat_completion: RequestLike, problems: Problems, family: str
) -> tuple[RequestView, Mapping[str, Any] | None]:
    """The request to render, and the caller's raw mapping when there is one: a
    validated request (a plain dict that :func:`plain_request` reads is read by it
    first, by the caller).

    Content parts other than text are dropped (a problem each, worded for ``family``).
    """
    global _VALIDATION
    if _VALIDATION is None:
        from .._types import ChatCompletion, coerce_request

        _VALIDATION = (ChatCompletion, coerce_request)
    completion_type, coerce = _VALIDATION
    if type(chat_completion) is completion_type or isinstance(chat_completion, completion_type):
        if len(VALIDATED_TYPES) < 64:
            VALIDATED_TYPES.add(type(chat_completion))
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
        return coerce(data, completion_type), None
    messages = data.get("messages")
    if (
        messages is not None
        and not isinstance(messages, (list, str, bytes, bytearray, Mapping))
        and isinstance(messages, Iterable)
    ):
        # A generator or other iterable of messages: read once, as a list.
        try:
            messages = list(messages)
        except RecursionError:
            raise InvalidRequestError("is nested too deeply to process", field="messages") from None
        data = {**data, "messages": messages}
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
                            f"a content part {what} is dropped by the {family} chat "
                            "template, which renders only {'type': 'text'} parts.",
                            f"messages[{index}].content[{number}]",
                        )
                        changed = True
                message = {**message, "content": kept}
            cleaned.append(message)
        if changed:
            data = {**data, "messages": cleaned}
    return coerce(data, completion_type), data


def revalidated(request: Any) -> RequestView:
    """A typed request validated again from its data (it was changed after validation)."""
    from .._types import ChatCompletion, coerce_request

    data = request.model_dump(exclude_unset=True, warnings=False)
    validated: RequestView = coerce_request(data, ChatCompletion)
    return validated


def top_level_effort(
    release: Release, options: dict[str, Any], kwargs: Mapping[str, Any], effort: Any
) -> None:
    """Apply the OpenAI top-level ``reasoning_effort`` to ``options`` as vLLM's chat
    endpoint does, for a release with a ``reasoning_effort`` option: passed to the
    template unless ``kwargs`` (``chat_template_kwargs``) sets it, and ``enable_thinking``
    turned off by ``"none"`` unless ``kwargs`` sets that. ``effort`` is already checked."""
    if effort is None or release.option("reasoning_effort") is None:
        return
    if kwargs.get("reasoning_effort") is None:
        options["reasoning_effort"] = effort
    if release.option("enable_thinking") is not None and kwargs.get("enable_thinking") is None:
        options["enable_thinking"] = effort != "none"


def typed_options(options: Any) -> Any:
    """The options a typed ``chat_template_kwargs`` object (``Granite3Kwargs``) was given:
    its fields set and its extra keys, read without dumping it (``{}`` for none); anything
    else that is not a mapping as it is."""
    fields_set = getattr(options, "__pydantic_fields_set__", None)
    if fields_set is None:
        return options
    given = {}
    for name in fields_set:  # (a loop: a comprehension is a call before Python 3.12)
        given[name] = getattr(options, name)
    extra = options.__pydantic_extra__
    return {**given, **extra} if extra else given


def request_body(request: object) -> Mapping[str, Any] | None:
    """The caller's request body, where vLLM's flags and OpenAI parameters are read: a
    mapping as it is, a JSON object given as a string or as bytes decoded; ``None`` for a
    typed request (it keeps no OpenAI parameters) or text that is not a JSON object."""
    if isinstance(request, Mapping):
        return request
    if isinstance(request, (str, bytes, bytearray)):
        try:
            data = json.loads(request)
        except (ValueError, RecursionError):
            return None  # (whoever reads the request itself reports it)
        return data if isinstance(data, Mapping) else None
    return None


def body_flag(body: Mapping[str, Any] | None, key: str, default: bool, *, strict: bool) -> bool:
    """``body[key]`` (else ``body["extra_body"][key]``) when given and not null, as vLLM's
    chat endpoint reads ``add_generation_prompt`` and ``continue_final_message``; else
    ``default``. A value that is not a bool raises the error naming ``key`` (``strict``)
    or counts as not given."""
    value = body_value(body, key)
    if value is None:
        return default
    if type(value) is not bool:
        if not strict:
            return default
        raise InvalidRequestError(f"must be True or False, not {quote(value)}", field=key)
    return value
