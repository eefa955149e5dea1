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

from ..plaindicts import DocumentView, MessageView, PlainRequest, plain_fields
from ._controls import controls_problem


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


class PlainKwargs:
    __slots__ = ("controls", "thinking")

    def __init__(self, thinking: bool, controls: dict[str, Any] | None) -> None:
        self.thinking = thinking
        self.controls = controls


_NO_OPTIONS = PlainKwargs(False, None)


def plain_request(data: dict[str, Any]) -> PlainRequest[PlainKwargs] | None:
    """A :class:`PlainRequest` for a plain, valid request dict, or ``None``."""
    fields = plain_fields(data)
    if fields is None:
        return None
    messages, tools, documents = fields
    if documents and any(raw.get("doc_id", "") is None for raw in data["documents"]):
        return None  # an explicit null id ("None" in a 3.3 prompt; a view holds no null)
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
