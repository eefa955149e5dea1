"""Test support for the transformers differential (tests/response_templates): our parser's and
transformers' readings of one output, reduced to what both can say (content, reasoning,
tool calls). Imports transformers: import it only where transformers is installed."""

from __future__ import annotations

import json
from typing import Any

from transformers.utils.chat_parsing import ResponseParser, parse_response

from granite_formatters import get_formatter

from support.response_corpus import OutputCase

Reading = dict[str, Any]


def _tools(case: OutputCase) -> Any:
    return case.tools


def _calls(calls: list[tuple[str, Any]]) -> list[list[Any]]:
    return [[name, json.loads(json.dumps(arguments))] for name, arguments in calls]


def ours(model: str, case: OutputCase) -> Reading:
    message = get_formatter(model).parse(case.output, case.request)
    return {
        "content": message.content.strip(),
        "reasoning": (message.reasoning_content or "").strip() or None,
        "tool_calls": _calls([(call.name, call.arguments) for call in message.tool_calls]),
    }


def _reading(parsed: dict[str, Any]) -> Reading:
    calls = parsed.get("tool_calls") or []
    return {
        "content": (parsed.get("content") or "").strip(),
        "reasoning": (parsed.get("reasoning_content") or "").strip() or None,
        "tool_calls": _calls([(c["function"]["name"], c["function"]["arguments"]) for c in calls]),
    }


def theirs(template: dict[str, Any], case: OutputCase) -> Reading | str:
    """transformers' reading, or ``"error: ..."`` when it raises."""
    try:
        parsed = parse_response(case.output, template, prefix=case.prefix, tools=_tools(case))
    except (ValueError, KeyError) as exc:
        return f"error: {type(exc).__name__}"
    return _reading(parsed)


def theirs_streamed(
    template: dict[str, Any], case: OutputCase, chunks: list[str] | None = None
) -> Any:
    """transformers' streaming parser fed ``chunks`` (default: one character at a time):
    its message."""
    try:
        parser = ResponseParser(template, prefix=case.prefix, tools=_tools(case))
        for chunk in case.output if chunks is None else chunks:
            parser.feed(chunk)
        message, _ = parser.finalize()
    except (ValueError, KeyError) as exc:
        return f"error: {type(exc).__name__}"
    return message


def theirs_raw(template: dict[str, Any], case: OutputCase) -> Any:
    try:
        return parse_response(case.output, template, prefix=case.prefix, tools=_tools(case))
    except (ValueError, KeyError) as exc:
        return f"error: {type(exc).__name__}"
