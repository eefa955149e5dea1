"""The request view: a plain dict or a validated request behind the same reads.

A plain dict whose every read key has exactly the expected type is read as it is
(without importing pydantic); anything else is validated into a ``ChatCompletion``,
which renders the same or raises the error. This is the renderer's only fast path.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import InvalidRequestError, quote
from ..plaindicts import MessageView, PlainRequest, plain_fields

if TYPE_CHECKING:
    from ..processors import RequestLike
    from ..release import Release

__all__ = [
    "Problems",
    "RequestView",
    "body_value",
    "document_data",
    "join_parts",
    "output_options",
    "raw_documents",
    "revalidated",
    "top_level_effort",
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


class RequestView(Protocol):
    """What the renderer reads: a validated ``ChatCompletion`` or a ``PlainRequest``."""

    @property
    def messages(self) -> Sequence[MessageView]: ...
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
        if isinstance(extra, Mapping):
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


def document_data(document: Any) -> dict[str, Any]:
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


def _plain_request(data: dict[str, Any]) -> PlainRequest[dict[str, Any] | None] | None:
    """The request of a plain dict that validation would accept unchanged, or ``None``.

    ``chat_template_kwargs`` is free-form (the renderer judges each key against the
    release's options), so it needs only be a dict of ``str`` keys without
    ``documents`` (which validation moves).
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


def view(
    chat_completion: RequestLike, problems: Problems, family: str
) -> tuple[RequestView, Mapping[str, Any] | None]:
    """The request to render, and the caller's raw mapping when there is one.

    Content parts other than text are dropped (a problem each, worded for ``family``).
    """
    if type(chat_completion) is dict:
        plain = _plain_request(chat_completion)
        if plain is not None:
            return plain, chat_completion
    from ..types import ChatCompletion, coerce_request

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
    return coerce_request(data, ChatCompletion), data


def revalidated(request: Any) -> RequestView:
    """A typed request validated again from its data (it was changed after validation)."""
    from ..types import ChatCompletion, coerce_request

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


def output_options(release: Release, request: object) -> dict[str, Any]:
    """The release's template options as ``request`` sets them, for reading output:
    defaults for anything absent, null or refused (a parser never raises)."""
    options = {option.name: option.default for option in release.options}
    if request is None:
        return options
    if isinstance(request, Mapping):
        kwargs = request.get("chat_template_kwargs")
        effort = body_value(request, "reasoning_effort")
    else:
        kwargs = getattr(request, "chat_template_kwargs", None)
        effort = getattr(request, "reasoning_effort", None)
    kwargs = kwargs if isinstance(kwargs, Mapping) else {}
    for option in release.options:
        value = kwargs.get(option.name)
        if value is not None and (option.check is None or option.check(value) is None):
            options[option.name] = value
    effort_option = release.option("reasoning_effort")
    if effort_option is not None and (
        effort_option.check is None or effort_option.check(effort) is None
    ):
        top_level_effort(release, options, kwargs, effort)
    return options
