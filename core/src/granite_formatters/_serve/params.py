"""The generation options of an OpenAI chat request: validated, then forwarded, translated or
refused per backend (the prompt is the formatter's).

:data:`FIELDS` is the whole policy: one row per OpenAI / vLLM request field, saying what
each backend type gets for it. ``docs/serving.md`` prints it and the tests are generated
from it, so no field is accepted and then dropped.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from typing import Any, Literal

import attrs
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .._errors import InvalidRequestError, quote

__all__ = [
    "Action",
    "FIELDS",
    "KINDS",
    "FieldRule",
    "GenerationParams",
    "Rule",
    "StreamOptions",
    "backend_fields",
    "chat_request",
    "check_fields",
    "fields_table",
    "kind_rules",
    "place",
    "read_params",
]

#: The backend types, in the table's column order.
KINDS = ("openai", "llamacpp", "ollama")

Action = Literal["forward", "translate", "refuse", "serve"]


@attrs.frozen
class Rule:
    """What one backend type is sent for a request field.

    ``forward``: the value as it is, under ``name``; ``translate``: ``convert(value)`` under
    ``name``; ``refuse``: a 400 naming the field, unless the value is one of ``accepts``
    (what happens anyway, so nothing needs sending); ``serve``: the server itself acts on
    the field (``note`` says how). A ``name`` of ``options.X`` is Ollama's ``options``
    object.
    """

    action: Action
    name: str = ""
    convert: Callable[[Any], Any] | None = None
    note: str = ""
    accepts: tuple[Any, ...] = ()


@attrs.frozen
class FieldRule:
    """One row of the table: a valid example value, and the rule of each backend type."""

    example: Any
    openai: Rule
    llamacpp: Rule
    ollama: Rule

    def rule(self, kind: str) -> Rule:
        rule: Rule = getattr(self, kind)
        return rule


def _same(name: str) -> FieldRule:
    """A sampling option all three take under one name (Ollama in ``options``)."""
    return FieldRule(
        None, Rule("forward", name), Rule("forward", name), Rule("forward", f"options.{name}")
    )


def _vllm_only(example: Any, accepts: tuple[Any, ...] = ()) -> FieldRule:
    """A vLLM extension: forwarded to an OpenAI-style backend, refused elsewhere."""
    refuse = Rule("refuse", accepts=accepts)
    return FieldRule(example, Rule("forward"), refuse, refuse)


def _refused(example: Any, accepts: tuple[Any, ...] = ()) -> FieldRule:
    refuse = Rule("refuse", accepts=accepts)
    return FieldRule(example, refuse, refuse, refuse)


def _served(example: Any, note: str) -> FieldRule:
    rule = Rule("serve", note=note)
    return FieldRule(example, rule, rule, rule)


def _json_schema_of(response_format: Mapping[str, Any]) -> Any:
    """A ``response_format`` as one JSON schema (``{}``: any JSON value); ``None`` for text."""
    kind = response_format.get("type")
    if kind == "json_object":
        return {}
    if kind == "json_schema":
        return (response_format.get("json_schema") or {}).get("schema", {})
    return None


def _ollama_format(response_format: Mapping[str, Any]) -> Any:
    schema = _json_schema_of(response_format)
    return "json" if schema == {} else schema


def _llamacpp_logit_bias(bias: Mapping[str, float]) -> list[list[Any]]:
    return [[int(token) if token.isdigit() else token, value] for token, value in bias.items()]


_SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}}
_RESPONSE_FORMAT = {"type": "json_schema", "json_schema": {"name": "city", "schema": _SCHEMA}}

_LLAMACPP_FORMAT = "the schema (`{}` for `json_object`; `text`: nothing sent)"
_OLLAMA_FORMAT = 'the schema (`"json"` for `json_object`; `text`: nothing sent)'

#: Every OpenAI / vLLM chat-completions request field but ``model`` and the formatter's own
#: (``messages``, ``tools``, ``documents``, ``chat_template_kwargs``).
FIELDS: dict[str, FieldRule] = {
    "stream": _served(True, "answered as Server-Sent Events; the backend is always streamed"),
    "stream_options": _served(
        {"include_usage": True}, "`include_usage`: a last chunk with the usage; other keys: 400"
    ),
    "n": _served(1, "1 only (else 400)"),
    "tool_choice": _served(
        "none",
        '`"auto"`: the default; `"none"`: the prompt is rendered without the tools; '
        '`"required"` or a named function: 400 (a raw completion cannot be forced)',
    ),
    "parallel_tool_calls": _served(
        True, "`true` (the default: every call the model writes is returned); `false`: 400"
    ),
    "max_tokens": FieldRule(
        7,
        Rule("forward", "max_tokens"),
        Rule("forward", "n_predict"),
        Rule("forward", "options.num_predict"),
    ),
    "max_completion_tokens": FieldRule(
        7,
        Rule("forward", "max_tokens"),
        Rule("forward", "n_predict"),
        Rule("forward", "options.num_predict"),
    ),
    "stop": FieldRule(
        ["END"], Rule("forward", "stop"), Rule("forward", "stop"), Rule("forward", "options.stop")
    ),
    "temperature": _same("temperature"),
    "top_p": _same("top_p"),
    "seed": _same("seed"),
    "presence_penalty": _same("presence_penalty"),
    "frequency_penalty": _same("frequency_penalty"),
    "top_k": _same("top_k"),
    "min_p": _same("min_p"),
    "repetition_penalty": FieldRule(
        1.1,
        Rule("forward", "repetition_penalty"),
        Rule("forward", "repeat_penalty"),
        Rule("forward", "options.repeat_penalty"),
    ),
    "logit_bias": FieldRule(
        {"42": -100},
        Rule("forward", "logit_bias"),
        Rule("translate", "logit_bias", _llamacpp_logit_bias, "`[[token_id, bias], ...]`"),
        Rule("refuse"),
    ),
    "logprobs": FieldRule(
        True,
        Rule(
            "translate",
            "logprobs",
            note="the `top_logprobs` number (at least 1); returned in chat form",
        ),
        Rule(
            "translate",
            "n_probs",
            note="the `top_logprobs` number (at least 1); returned in chat form",
        ),
        Rule("refuse", accepts=(False,)),
    ),
    "top_logprobs": FieldRule(
        2,
        Rule("translate", "logprobs", note="its number"),
        Rule("translate", "n_probs", note="its number"),
        Rule("refuse", accepts=(0,)),
    ),
    "response_format": FieldRule(
        _RESPONSE_FORMAT,
        Rule("forward", "response_format"),
        Rule("translate", "json_schema", _json_schema_of, _LLAMACPP_FORMAT),
        Rule("translate", "format", _ollama_format, _OLLAMA_FORMAT),
    ),
    "guided_json": FieldRule(
        _SCHEMA,
        Rule("forward", "guided_json"),
        Rule("forward", "json_schema"),
        Rule("forward", "format"),
    ),
    "ignore_eos": FieldRule(
        True,
        Rule("forward", "ignore_eos"),
        Rule("forward", "ignore_eos"),
        Rule("refuse", accepts=(False,)),
    ),
    "user": _vllm_only("user-1234"),
    "min_tokens": _vllm_only(3, accepts=(0,)),
    "stop_token_ids": _vllm_only([0]),
    "include_stop_str_in_output": _vllm_only(True, accepts=(False,)),
    "guided_regex": _vllm_only("[a-z]+"),
    "guided_choice": _vllm_only(["yes", "no"]),
    "guided_grammar": _vllm_only('root ::= "yes" | "no"'),
    "guided_decoding_backend": _vllm_only("xgrammar"),
    "guided_whitespace_pattern": _vllm_only(" "),
    "structured_outputs": _vllm_only({"regex": "[a-z]+"}),
    "bad_words": _vllm_only(["darn"]),
    "allowed_token_ids": _vllm_only([1, 2, 3]),
    "length_penalty": _vllm_only(1.0),
    "priority": _vllm_only(1),
    "request_id": _vllm_only("req-1"),
    "cache_salt": _vllm_only("salt"),
    "continue_final_message": _refused(True, accepts=(False,)),
    "add_generation_prompt": _refused(False, accepts=(True,)),
    "echo": _refused(True, accepts=(False,)),
    "skip_special_tokens": _refused(True, accepts=(False,)),
    "spaces_between_special_tokens": _refused(True, accepts=(False,)),
    "add_special_tokens": _refused(True),
    "chat_template": _refused("{{ messages }}"),
    "truncate_prompt_tokens": _refused(100),
    "use_beam_search": _refused(True, accepts=(False,)),
    "best_of": _refused(2, accepts=(1,)),
    "prompt_logprobs": _refused(1),
    "logits_processors": _refused(["x"]),
    "return_tokens_as_token_ids": _refused(True, accepts=(False,)),
    "return_token_ids": _refused(True, accepts=(False,)),
    "mm_processor_kwargs": _refused({"a": 1}),
    "kv_transfer_params": _refused({"a": 1}),
    "vllm_xargs": _refused({"a": 1}),
    "thinking_token_budget": _refused(100),
    "functions": _refused([{"name": "f", "parameters": {}}]),
    "function_call": _refused("auto"),
    "metadata": _refused({"a": "b"}),
    "store": _refused(True, accepts=(False,)),
    "service_tier": _refused("flex", accepts=("auto",)),
    "modalities": _refused(["audio"], accepts=(["text"],)),
    "audio": _refused({"voice": "alloy", "format": "mp3"}),
    "prediction": _refused({"type": "content", "content": "x"}),
    "reasoning_effort": _served(
        "low",
        "rendered into the prompt as the release reads it (see the `reasoning_effort` "
        "table); 400 for a release without it",
    ),
    "web_search_options": _refused({}),
    "safety_identifier": _refused("u1"),
    "prompt_cache_key": _refused("k1"),
    "verbosity": _refused("low"),
    "extra_headers": _refused({"a": "b"}),
    "extra_query": _refused({"a": "b"}),
    "timeout": _refused(10),
}

_EXAMPLES = {"temperature": 0.5, "top_p": 0.9, "seed": 7, "presence_penalty": 0.5,
             "frequency_penalty": 0.5, "top_k": 40, "min_p": 0.05}  # fmt: skip
FIELDS.update(
    {k: attrs.evolve(v, example=_EXAMPLES[k]) for k, v in FIELDS.items() if k in _EXAMPLES}
)


class StreamOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    include_usage: bool = False


_FINITE = ConfigDict(extra="ignore", strict=True, allow_inf_nan=False)


class GenerationParams(BaseModel):
    """The request's non-prompt fields, typed as the OpenAI API (and vLLM) define them;
    the rest of the body goes to the formatter."""

    model_config = _FINITE

    model: str = Field(min_length=1)
    stream: bool | None = False
    stream_options: StreamOptions | None = None
    temperature: float | None = Field(default=None, ge=0)
    top_p: float | None = Field(default=None, ge=0, le=1)
    max_tokens: int | None = Field(default=None, ge=1)
    max_completion_tokens: int | None = Field(default=None, ge=1)
    stop: str | list[str] | None = None
    seed: int | None = None
    n: int | None = Field(default=None, ge=1, le=1)
    logprobs: bool | None = None
    top_logprobs: int | None = Field(default=None, ge=0, le=20)
    presence_penalty: float | None = Field(default=None, ge=-2, le=2)
    frequency_penalty: float | None = Field(default=None, ge=-2, le=2)
    top_k: int | None = None
    min_p: float | None = Field(default=None, ge=0, le=1)
    repetition_penalty: float | None = Field(default=None, gt=0)
    logit_bias: dict[str, float] | None = None
    response_format: dict[str, Any] | None = None
    guided_json: dict[str, Any] | str | None = None
    ignore_eos: bool | None = None
    user: str | None = None
    min_tokens: int | None = Field(default=None, ge=0)
    tool_choice: str | dict[str, Any] | None = None
    parallel_tool_calls: bool | None = None

    @property
    def token_limit(self) -> int | None:
        return self.max_completion_tokens if self.max_completion_tokens else self.max_tokens

    @property
    def stop_list(self) -> list[str]:
        if self.stop is None:
            return []
        return [self.stop] if isinstance(self.stop, str) else list(self.stop)

    @property
    def include_usage(self) -> bool:
        return bool(self.stream_options and self.stream_options.include_usage)


def place(out: dict[str, Any], name: str, value: Any) -> None:
    """Set ``out[name]``, or ``out["options"][X]`` for a ``name`` of ``options.X``."""
    if name.startswith("options."):
        out.setdefault("options", {})[name[len("options.") :]] = value
    else:
        out[name] = value


@functools.cache
def kind_rules(kind: str) -> dict[str, Rule]:
    """Each field's rule for backend type ``kind`` (the column of :data:`FIELDS`, read
    once per type: every request reads it)."""
    return {name: row.rule(kind) for name, row in FIELDS.items()}


#: The fields :func:`backend_fields` places itself (the stop strings and token limit).
_PLACED = frozenset({"stop", "max_tokens", "max_completion_tokens"})


def backend_fields(
    kind: str,
    body: Mapping[str, Any],
    params: GenerationParams,
    stops: tuple[str, ...],
    preserve: tuple[str, ...] = (),
) -> dict[str, Any]:
    """What backend ``kind`` is sent for the request's fields (its token limit, stop strings
    and sampling options, under its names); ``options.X`` entries are gathered in
    ``options``. The token limit is left to the caller when the request sets none.
    ``preserve``: special tokens the answer may hold, which llama.cpp is asked to print
    (``preserved_tokens``; it prints control tokens otherwise only with ``--special``)."""
    rules = kind_rules(kind)
    out: dict[str, Any] = {}
    if kind == "llamacpp" and preserve:
        out["preserved_tokens"] = list(preserve)
    stop = [*stops]
    if params.stop is not None:
        stop += [s for s in params.stop_list if s not in stops]
    place(out, rules["stop"].name, stop)
    limit = params.token_limit
    if limit is not None:
        place(out, rules["max_tokens"].name, limit)
    for key, value in body.items():
        rule = rules.get(key)
        if rule is None or value is None or key in _PLACED:
            continue
        if rule.action == "forward":
            place(out, rule.name or key, getattr(params, key, value))
        elif rule.action == "translate" and rule.convert is not None:
            converted = rule.convert(getattr(params, key, value))
            if converted is not None:
                place(out, rule.name, converted)
    if params.logprobs:  # at least 1: llama.cpp sends no probabilities at all for 0
        # (the server cuts the alternatives to the number the client asked for)
        out["logprobs" if kind == "openai" else "n_probs"] = max(params.top_logprobs or 0, 1)
    return out


def _cell(field: str, rule: Rule) -> str:
    if rule.action == "forward":
        return f"`{rule.name or field}`"
    if rule.action == "translate":
        return f"`{rule.name}`: {rule.note}" if rule.note else f"`{rule.name}`"
    if rule.action == "serve":
        return rule.note
    accepted = ", ".join(f"`{json.dumps(value)}`" for value in rule.accepts)
    return f"400 (but {accepted}: the default)" if accepted else "400"


def fields_table() -> str:
    """:data:`FIELDS` as the Markdown table of ``docs/serving.md``."""
    rows = ["| field | openai | llamacpp | ollama |", "|---|---|---|---|"]
    for name, row in FIELDS.items():
        cells = [_cell(name, row.rule(kind)) for kind in KINDS]
        if row.openai.action == "serve":
            cells = [cells[0], "same", "same"]
        rows.append(f"| `{name}` | " + " | ".join(cells) + " |")
    return "\n".join(rows) + "\n"


def _refuse(field: str, message: str) -> InvalidRequestError:
    return InvalidRequestError(message, field=field)


def check_fields(kind: str, body: Mapping[str, Any], params: GenerationParams) -> None:
    """Refuse, with a 400 naming it, every field the backend type cannot honour."""
    rules = kind_rules(kind)
    for key, value in body.items():
        rule = rules.get(key)
        if rule is None or value is None:
            continue
        if rule.action == "refuse" and not any(
            value == ok and type(value) is type(ok) for ok in rule.accepts
        ):
            raise _refuse(key, f"{key} = {quote(value)} is not supported with the {kind} backend")
    choice = params.tool_choice
    if choice is not None and choice not in ("auto", "none"):
        raise _refuse(
            "tool_choice",
            f"tool_choice {quote(choice)} is not supported: a raw completion cannot be forced "
            'to call a tool (use "auto" or "none")',
        )
    if params.parallel_tool_calls is False:
        raise _refuse(
            "parallel_tool_calls",
            "parallel_tool_calls = false is not supported: every tool call the model writes "
            "is returned",
        )
    if params.response_format is not None:
        kind_of = params.response_format.get("type")
        if kind_of not in ("text", "json_object", "json_schema"):
            raise _refuse(
                "response_format.type",
                'response_format.type must be "text", "json_object" or "json_schema", '
                f"not {quote(kind_of)}",
            )


def chat_request(body: Mapping[str, Any]) -> dict[str, Any]:
    """The request the formatter renders: ``developer`` messages are system messages
    (OpenAI's rule for models without a developer role); ``tool_choice: "none"`` hides the
    tools."""
    request = dict(body)
    messages = request.get("messages")
    if isinstance(messages, list) and any(
        isinstance(m, dict) and m.get("role") == "developer" for m in messages
    ):
        request["messages"] = [
            {**m, "role": "system"} if isinstance(m, dict) and m.get("role") == "developer" else m
            for m in messages
        ]
    if request.get("tool_choice") == "none":
        request.pop("tools", None)
    return request


def _union_tag(part: Any) -> bool:
    """Whether a pydantic error location part names a union member, not a field."""
    text = str(part)
    return (
        text in ("str", "int", "float", "bool")
        or text.startswith(("list[", "dict[", "function-"))
        or text[:1].isupper()
    )


def read_params(body: dict[str, Any], kind: str = "openai") -> GenerationParams:
    """Validate the generation options for backend type ``kind``; an
    :class:`InvalidRequestError` names the field."""
    try:
        params = GenerationParams.model_validate(body)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        loc = first.get("loc", ())
        parts = [str(part) for part in loc if not _union_tag(part)]
        field = ".".join(parts)
        if first.get("type") == "missing":
            message = "this field is required"
        elif loc and loc[0] == "n":
            message = "only n=1 is supported"
        else:
            message = str(first.get("msg", "invalid value"))
        raise InvalidRequestError(message, field=field or None) from None
    check_fields(kind, body, params)
    return params
