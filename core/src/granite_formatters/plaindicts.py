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

from typing import Any

__all__ = [
    "OPENAI_REQUEST_PARAMETERS",
    "REQUEST_FIELDS",
    "is_optional_str",
    "is_plain_tool",
    "has_plain_keys",
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
    if type(tool) is not dict or any(type(key) is not str for key in tool):
        return False
    if "function" in tool:
        function = tool["function"]
        return (
            tool.get("type", "function") == "function"
            and type(function) is dict
            and type(function.get("name")) is str
        )
    return type(tool.get("name")) is str
