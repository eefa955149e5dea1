"""Building blocks of the Granite 3.x prompt format, in plain Python.

The official Hugging Face chat templates of Granite 3.1, 3.2 and 3.3 are the reference
for every string produced here; this module reproduces what transformers makes of them
without running Jinja:

- :func:`tojson` is transformers' ``tojson`` filter (``json.dumps`` with
  ``ensure_ascii=False``: non-ASCII text stays as it is and ``<``, ``>``, ``&``, ``'``
  are not escaped), with a faster writer for indented output.
- :func:`format_date` is ``strftime('%B %d, %Y')`` with English month names whatever the
  process locale; :func:`current_date` is the clock read when no date is given.
- :func:`turn` and :func:`generation_prompt` are the turn and assistant-header formats.
- :class:`SpecialTokens` finds and removes special tokens in caller text (one compiled
  alternation, linear time); :func:`sanitize` applies it to a whole request.

The point-release formatters are built from these pieces by
:class:`granite_formatters.granite3.input.Granite3InputProcessor`.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Iterable, Mapping
from json.encoder import encode_basestring
from typing import TYPE_CHECKING, Any

from ..errors import InvalidRequestError
from ..jsonwriter import MAX_JSON_NESTING, JSONNestingError, tojson
from ..special_tokens import (
    SpecialTokenPolicy,
    SpecialTokens,
    find_special_token_in_json,
    remove_special_tokens_in_json,
)
from ..types import coerce_request
from .types import Granite3ChatCompletion

if TYPE_CHECKING:
    from ..processors import RequestLike

__all__ = [
    "MAX_JSON_NESTING",
    "JSONNestingError",
    "CODE_CORPUS_TOKENS",
    "END_OF_ROLE",
    "END_OF_TEXT",
    "GRANITE3_SPECIAL_TOKENS",
    "MONTH_NAMES",
    "SANITIZE_PARTS",
    "START_OF_ROLE",
    "TOOL_CALL",
    "SpecialTokenPolicy",
    "SpecialTokens",
    "current_date",
    "find_special_token_in_json",
    "format_date",
    "generation_prompt",
    "sanitize",
    "remove_special_tokens_in_json",
    "tojson",
    "turn",
]

START_OF_ROLE = "<|start_of_role|>"
END_OF_ROLE = "<|end_of_role|>"
END_OF_TEXT = "<|end_of_text|>"
TOOL_CALL = "<|tool_call|>"

#: English month names, as ``%B`` prints them under the C locale.
MONTH_NAMES = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)

#: The request parts :func:`sanitize` can clean.
SANITIZE_PARTS = ("messages", "tools", "documents")


# --------------------------------------------------------------------------- dates


def current_date() -> datetime.date:
    """Today's date in local time: the clock a formatter reads when no date is given.

    Read at every call (never cached). Tests replace this function to move the clock.
    """
    return datetime.date.today()


def format_date(day: datetime.date) -> str:
    """``day`` as the templates print it: ``strftime('%B %d, %Y')``, e.g. ``April 06, 2025``.

    The month name is English whatever the process locale; the day is zero-padded.
    """
    return MONTH_NAMES[day.month - 1] + _DAY_NUMBERS[day.day] + str(day.year)


_DAY_NUMBERS = tuple(f" {number:02d}, " for number in range(32))


# --------------------------------------------------------------------------- turns


def turn(role: str, content: str) -> str:
    """One conversation turn: ``<|start_of_role|>role<|end_of_role|>content<|end_of_text|>\\n``."""
    return START_OF_ROLE + role + END_OF_ROLE + content + END_OF_TEXT + "\n"


_ASSISTANT_HEADER = START_OF_ROLE + "assistant"
_COMPACT = json.JSONEncoder(ensure_ascii=False)


def generation_prompt(controls: Mapping[str, Any] | None = None) -> str:
    """The assistant header that asks the model to answer.

    A non-empty ``controls`` dict is printed after the role, verbatim and in the
    caller's key order: ``<|start_of_role|>assistant {"citations": true}<|end_of_role|>``.
    """
    if controls:
        return _ASSISTANT_HEADER + " " + _flat_object_json(controls) + END_OF_ROLE
    return _ASSISTANT_HEADER + END_OF_ROLE


def _flat_object_json(mapping: Mapping[str, Any]) -> str:
    """``tojson(mapping)``, faster for a small dict of strings, booleans and nulls (controls)."""
    items: list[str] = []
    for key, value in mapping.items():
        if type(key) is not str:
            return _COMPACT.encode(mapping)
        if value is True:
            text = "true"
        elif value is False:
            text = "false"
        elif value is None:
            text = "null"
        elif type(value) is str:
            text = encode_basestring(value)
        else:
            return _COMPACT.encode(mapping)
        items.append(encode_basestring(key) + ": " + text)
    return "{" + ", ".join(items) + "}"


#: The 18 tokens the Granite 3.x tokenizers inherit from the code model (fill-in-the-middle,
#: repository, issue, notebook and commit markers). None opens a turn, but caller text
#: containing one reaches the model as a control token.
CODE_CORPUS_TOKENS = (
    "<fim_prefix>",
    "<fim_middle>",
    "<fim_suffix>",
    "<fim_pad>",
    "<filename>",
    "<gh_stars>",
    "<issue_start>",
    "<issue_comment>",
    "<issue_closed>",
    "<jupyter_start>",
    "<jupyter_text>",
    "<jupyter_code>",
    "<jupyter_output>",
    "<empty_output>",
    "<commit_before>",
    "<commit_msg>",
    "<commit_after>",
    "<reponame>",
)

#: Every special token of the Granite 3.2 tokenizer (22), shared by every Granite 3.x
#: release: the four turn and tool-call tokens first, then :data:`CODE_CORPUS_TOKENS`.
#: Source: ``ALL_SPECIAL_TOKENS`` of ibm-granite/granite-common (docs/security.md).
GRANITE3_SPECIAL_TOKENS = SpecialTokens(
    (START_OF_ROLE, END_OF_ROLE, END_OF_TEXT, TOOL_CALL, *CODE_CORPUS_TOKENS)
)


# --------------------------------------------------------------------------- sanitize


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
                f"unknown part {part!r}; use 'all' or any of 'messages', 'tools', 'documents'",
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
