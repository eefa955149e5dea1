"""Removing special tokens from the caller-supplied text of a Granite 3 request."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from .._errors import InvalidRequestError, quote
from .._special_tokens import SpecialTokens, remove_special_tokens_in_json
from .._types import coerce_request
from ._tokens import GRANITE3_SPECIAL_TOKENS
from ._types import Granite3ChatCompletion

if TYPE_CHECKING:
    from .._processors import RequestLike

__all__ = ["SANITIZE_PARTS", "sanitize"]

#: The request parts :func:`sanitize` can clean.
SANITIZE_PARTS = ("messages", "tools", "documents")


def _sanitize_parts(parts: str | Iterable[str]) -> frozenset[str]:
    items = [parts] if isinstance(parts, str) else parts
    try:
        chosen = list(items)
    except TypeError:
        raise InvalidRequestError(
            f"parts must be 'all' or a list of 'messages', 'tools', 'documents', "
            f"not {type(parts).__name__}",
            field="parts",
        ) from None
    selected: set[str] = set()
    for part in chosen:
        if part == "all":
            selected.update(SANITIZE_PARTS)
        elif isinstance(part, str) and part in SANITIZE_PARTS:
            selected.add(part)
        else:
            raise InvalidRequestError(
                f"unknown part {quote(part)}; use 'all' or any of 'messages', 'tools', 'documents'",
                field="parts",
            )
    return frozenset(selected)


def sanitize(
    chat_completion: RequestLike,
    parts: str | Iterable[str] = "all",
    *,
    special_tokens: SpecialTokens = GRANITE3_SPECIAL_TOKENS,
) -> Granite3ChatCompletion:
    """A copy of a request with special tokens removed from caller-supplied text.

    ``parts`` is ``"all"`` or any of ``"messages"`` (each message's role and content),
    ``"tools"`` (every key and string inside the tool definitions, at any depth) and
    ``"documents"`` (text, string ``doc_id`` and ``title``). Text between tokens is
    kept. The input is not modified; the result is a new :class:`Granite3ChatCompletion`
    (of the input's class when a typed request is given).
    """
    selected = _sanitize_parts(parts)
    request = coerce_request(chat_completion, Granite3ChatCompletion)
    updates: dict[str, Any] = {}
    if "messages" in selected:
        updates["messages"] = [
            message.model_copy(
                update={
                    "role": special_tokens.remove(message.role),
                    "content": None
                    if message.content is None
                    else special_tokens.remove(message.content),
                },
                deep=True,
            )
            for message in request.messages
        ]
    if "tools" in selected and request.tools is not None:
        try:
            updates["tools"] = remove_special_tokens_in_json(request.tools, special_tokens, "tools")
        except RecursionError:
            raise InvalidRequestError(
                "the tool definitions are nested too deeply (or contain themselves)",
                field="tools",
            ) from None
    if "documents" in selected and request.documents is not None:
        documents = []
        for document in request.documents:
            changes: dict[str, Any] = {"text": special_tokens.remove(document.text)}
            if isinstance(document.doc_id, str):
                changes["doc_id"] = special_tokens.remove(document.doc_id)
            if document.title is not None:
                changes["title"] = special_tokens.remove(document.title)
            documents.append(document.model_copy(update=changes, deep=True))
        updates["documents"] = documents
    return request.model_copy(update=updates, deep=True)
