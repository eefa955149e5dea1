"""Checks for the structural fast path of plain-dict requests, shared by every format.

A formatter renders most requests from plain dicts (a JSON body). Validating one into
the pydantic request models costs several times the rendering itself, so the renderer
first looks at the dict: when every key it reads has exactly the expected type
(``type(x) is str``, not a subclass; no unknown key, no ``extra_body``) it renders
straight from it, and anything else takes the full validated path, which
builds the same prompt or raises the same :class:`~granite_formatters._errors.InvalidRequestError`.
This module holds the checks that do not depend on the format; it imports neither
pydantic nor anything heavy, so the fast path never loads the request models.

A check answers only "plain and valid as far as I can see": ``False`` never means the
request is invalid, only that the full path must judge it.
"""

from __future__ import annotations

import marshal
from collections.abc import Callable
from typing import Any, ClassVar

from ._surrogates import has_lone_surrogate

__all__ = [
    "OPENAI_REQUEST_PARAMETERS",
    "REQUEST_FIELDS",
    "PlainDataMemo",
    "are_plain_keys",
    "are_plain_tools",
    "is_plain_tool",
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


def _is_plain_key(key: Any) -> bool:
    return type(key) is str and not has_lone_surrogate(key)


def are_plain_keys(data: dict[Any, Any]) -> bool:
    """Every key of a message or document dict is one validation keeps as it is: an
    exact ``str`` without lone surrogates (validation refuses other keys, and an extra
    key holding a lone surrogate, which is not valid text)."""
    return all(map(_is_plain_key, data))


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
