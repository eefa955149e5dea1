"""Test support: a corpus of model outputs per release, each with the prompt it follows.

For the differential of the exported response templates (tests/transformers): every
output is parsed by our formatter and by transformers' ``parse_response`` with the
prompt as ``prefix``. Three sources:

- ``golden``: the assistant turns the official template wrote into each golden prompt
  (what the model wrote earlier in that conversation), each after that case's own
  generation prompt, when the turn begins with what the generation prompt already holds
  (4.2's ``<think>\\n``; nothing for the other releases);
- ``peer``: other projects' published outputs (``json_block_samples``);
- ``hostile``: shapes a declarative template is likely to get wrong (truncated calls,
  literal markup in values, nullable and typed parameters, prose around calls).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from granite_formatters.testing import GoldenCase

from support.golden import release_cases
from support.json_block_samples import AGENT_CPP_SAMPLE, LLAMA_CPP_SAMPLE, VLLM_SAMPLE
from support.releases import Release


@dataclass(frozen=True)
class OutputCase:
    """One output to parse: ``name`` is stable (``golden:<case>:<turn>``,
    ``hostile:<shape>@<case>``), ``prefix`` the prompt it follows, ``request`` the
    request that rendered it."""

    name: str
    prefix: str
    output: str
    request: dict[str, Any]

    @property
    def tools(self) -> list[dict[str, Any]] | None:
        tools = self.request.get("tools")
        return tools if isinstance(tools, list) else None


_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Weather of a city.",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "days": {"type": "integer"},
                    "unit": {"type": ["string", "null"]},
                    "detail": {"type": "boolean"},
                    "where": {"type": "object"},
                },
                "required": ["city"],
            },
        },
    }
]

_REQUEST: dict[str, Any] = {"messages": [{"role": "user", "content": "Weather in Paris?"}]}
_TOOL_REQUEST: dict[str, Any] = {**_REQUEST, "tools": _TOOLS}


def _xml_call(*params: tuple[str, str], name: str = "get_weather") -> str:
    body = "".join(f"<parameter={key}>\n{value}\n</parameter>\n" for key, value in params)
    return f"<tool_call>\n<function={name}>\n{body}</function>\n</tool_call>"


def _json_block(arguments: str, name: str = "get_weather") -> str:
    return f'<tool_call>\n{{"name": "{name}", "arguments": {arguments}}}\n</tool_call>'


def _json_list(arguments: str, name: str = "get_weather") -> str:
    return f'<|tool_call|>[{{"name": "{name}", "arguments": {arguments}}}]'


_XML_HOSTILE = {
    "call": _xml_call(("city", "Paris")),
    "typed_values": _xml_call(("city", "Paris"), ("days", "3"), ("detail", "true")),
    "prose_then_call": "Let me check.\n\n" + _xml_call(("city", "Paris")),
    "two_calls": _xml_call(("city", "Paris")) + "\n" + _xml_call(("city", "Rome")),
    "truncated_call": "<tool_call>\n<function=get_weather>\n<parameter=city>\nPar",
    "truncated_after_value": "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n"
    "</parameter>\n",
    "markup_in_value": _xml_call(("city", "a </parameter> b")),
    "nullable_null": _xml_call(("city", "Paris"), ("unit", "null")),
    "integer_as_json_string": _xml_call(("city", "Paris"), ("days", '"3"')),
    "integer_not_a_number": _xml_call(("city", "Paris"), ("days", "three")),
    "spaces_around_value": _xml_call(("city", "  Paris  ")),
    "unknown_tool": _xml_call(("x", "1"), name="no_such_tool"),
    "text_after_call": _xml_call(("city", "Paris")) + "\nDone.",
    "plain": "It is sunny in Paris.",
    "stray_close": "Sunny.</tool_call>",
}

_JSON_HOSTILE = {
    "call": _json_block('{"city": "Paris"}'),
    "typed_values": _json_block('{"city": "Paris", "days": 3, "detail": true}'),
    "prose_then_call": "Let me check.\n\n" + _json_block('{"city": "Paris"}'),
    "two_calls": _json_block('{"city": "Paris"}') + "\n" + _json_block('{"city": "Rome"}'),
    "truncated_call": '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Par',
    "truncated_after_json": '<tool_call>\n{"name": "get_weather", "arguments": {"city": "P"}}',
    "markup_in_value": _json_block('{"city": "a </tool_call> b"}'),
    "nullable_null": _json_block('{"city": "Paris", "unit": null}'),
    "integer_as_json_string": _json_block('{"city": "Paris", "days": "3"}'),
    "arguments_as_string": _json_block('"{\\"city\\": \\"Paris\\"}"'),
    "not_json": "<tool_call>\nget_weather(city=Paris)\n</tool_call>",
    "unknown_tool": _json_block('{"x": 1}', name="no_such_tool"),
    "text_after_call": _json_block('{"city": "Paris"}') + "\nDone.",
    "plain": "It is sunny in Paris.",
    "stray_close": "Sunny.</tool_call>",
}

_LIST_HOSTILE = {
    "call": _json_list('{"city": "Paris"}'),
    "typed_values": _json_list('{"city": "Paris", "days": 3, "detail": true}'),
    "prose_then_call": "Let me check.\n\n" + _json_list('{"city": "Paris"}'),
    "two_calls_one_list": '<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Paris"}}, '
    '{"name": "get_weather", "arguments": {"city": "Rome"}}]',
    "truncated_call": '<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Par',
    "markup_in_value": _json_list('{"city": "a <|end_of_text|> b"}'),
    "nullable_null": _json_list('{"city": "Paris", "unit": null}'),
    "integer_as_json_string": _json_list('{"city": "Paris", "days": "3"}'),
    "bare_list": '[{"name": "get_weather", "arguments": {"city": "Paris"}}]',
    "tool_call_tags": '<tool_call>[{"name": "get_weather", "arguments": {"city": "Paris"}}]'
    "</tool_call>",
    "not_json": "<|tool_call|>get_weather(city=Paris)",
    "text_after_call": _json_list('{"city": "Paris"}') + "\nDone.",
    "plain": "It is sunny in Paris.",
}

_REASONING_HOSTILE = {
    "opened-think": {
        "think_then_answer": "I should answer.\n</think>\nSunny.",
        "think_then_call": "Need the tool.\n</think>\n" + _xml_call(("city", "Paris")),
        "think_unclosed": "Still thinking about Par",
        "think_markup_in_thought": "Maybe <tool_call> is needed.\n</think>\nSunny.",
    },
    "think-response-tags": {
        "think_then_answer": "<think>I should answer.</think><response>Sunny.</response>",
        "think_unclosed": "<think>Still thinking",
        "answer_in_response_tags": "<response>Sunny.</response>",
        "stray_end": "Sunny.</think> Yes.",
    },
    "thought-phrases": {
        "think_then_answer": "Here is my thought process:\nI should answer.\n\n"
        "Here is my response:\nSunny.",
        "think_unclosed": "Here is my thought process:\nStill thinking",
        "phrase_mid_answer": "Sunny. Here is my thought process: none.",
    },
}


def _tail_after_anchor(prefix: str, header: str) -> str | None:
    at = prefix.rfind(header)
    return None if at < 0 else prefix[at + len(header) :]


def _assistant_bodies(prompt: str, header: str, end: str) -> list[str]:
    """The assistant turns written into ``prompt`` (the last, the generation prompt, left
    out)."""
    bodies = []
    for part in prompt.split(header)[1:]:
        if end in part:
            bodies.append(part.split(end, 1)[0])
    return bodies


def _golden_cases(release: Release, header: str, end: str) -> list[OutputCase]:
    out = []
    for case in release_cases(release):
        if not _usable(case):
            continue
        tail = _tail_after_anchor(case.prompt, header)
        if tail is None or end in tail:
            continue
        for turn, body in enumerate(_assistant_bodies(case.prompt, header, end)):
            if body.startswith(tail):
                out.append(
                    OutputCase(
                        f"golden:{case.name}:{turn}", case.prompt, body[len(tail) :], case.request
                    )
                )
    return out


def _usable(case: GoldenCase) -> bool:
    return case.add_generation_prompt and case.strict and case.special_tokens is None


def corpus(release: Release, header: str, end: str, render: Any) -> list[OutputCase]:
    """Every output of ``release``'s corpus. ``header`` is its assistant turn header,
    ``end`` its turn end marker, ``render(request)`` its prompt for a request."""
    cases = _golden_cases(release, header, end)
    syntax = release.tool_call_syntax
    hostile = {
        "xml-tool-calls": _XML_HOSTILE,
        "json-tool-call-blocks": _JSON_HOSTILE,
        "json-list-tool-calls": _LIST_HOSTILE,
    }[syntax]
    tool_request = _TOOL_REQUEST
    if release.reasoning_syntax == "opened-think":
        # Thinking off: the prompt closes the reasoning, so the output is the answer.
        tool_request = {**_TOOL_REQUEST, "chat_template_kwargs": {"enable_thinking": False}}
    tool_prompt = render(tool_request)
    plain_prompt = render(_REQUEST)
    for shape, output in hostile.items():
        cases.append(OutputCase(f"hostile:{shape}", tool_prompt, output, tool_request))
    for shape, output in _REASONING_HOSTILE.get(release.reasoning_syntax or "", {}).items():
        if syntax != "xml-tool-calls":
            output = output.replace(_xml_call(("city", "Paris")), "")
        request = _REQUEST
        if release.has("controls"):
            request = {**_REQUEST, "chat_template_kwargs": {"thinking": True}}
        cases.append(OutputCase(f"hostile:{shape}", render(request), output, request))
    cases.append(OutputCase("hostile:plain_no_tools", plain_prompt, "It is sunny.", _REQUEST))
    if syntax == "json-tool-call-blocks":
        for name, sample in (
            ("llama.cpp", LLAMA_CPP_SAMPLE),
            ("vllm", VLLM_SAMPLE),
            ("agent-cpp", AGENT_CPP_SAMPLE),
        ):
            cases.append(OutputCase(f"peer:{name}", tool_prompt, sample, tool_request))
    if release.has("controls"):
        # Thinking off: the model was not asked for reasoning; a phrase is its answer's.
        off = {**_REQUEST, "chat_template_kwargs": {"thinking": False}}
        output = next(iter(_REASONING_HOSTILE[release.reasoning_syntax or ""].values()))
        cases.append(OutputCase("hostile:reasoning_when_thinking_off", render(off), output, off))
    return cases
