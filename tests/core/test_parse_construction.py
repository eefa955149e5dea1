"""What building a parser costs: the work a request's answer may not need is not done.

Serve builds a parser for every request (a batch parse builds one too), so the request
work done there is paid per request: the tool-schema map of a release whose calls are
typed by the tools' schemas is built when the first block ends (an answer without calls
never needs it), and a plain dict request that reads no citations is told so without
validating the whole request as a Granite 3 request.
"""

from __future__ import annotations

from typing import Any

import pytest

from granite_formatters import get_formatter
from granite_formatters.granite3._types import Granite3ChatCompletion
from granite_formatters.syntax import _xml_functions
from granite_formatters.syntax._citations.reader import citation_request, reads_citations

from support.releases import release

# (the requests are parsed by the bundled Granite 3.3 and 4.2 plugins)
pytest.importorskip("granite_formatters_granite33")
pytest.importorskip("granite_formatters_granite42")

_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Weather.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                "required": ["city"],
            },
        },
    }
]
_MESSAGES = [{"role": "user", "content": "Weather in Boston for 3 days?"}]
_CALL = (
    "<tool_call>\n<function=get_weather>\n<parameter=city>\nBoston\n</parameter>\n"
    "<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>"
)


@pytest.fixture
def schema_maps(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The tool-schema maps the 4.2 syntax builds (recorded as they are made)."""
    built: list[object] = []

    class Counted(_xml_functions.ToolSchemas):
        def __init__(self, tools: Any) -> None:
            built.append(tools)
            super().__init__(tools)

    monkeypatch.setattr(_xml_functions, "ToolSchemas", Counted)
    return built


def test_an_answer_without_calls_builds_no_schema_map(schema_maps: list[object]) -> None:
    formatter = get_formatter(release("4.2").model)
    request = {"messages": _MESSAGES, "tools": _TOOLS}
    message = formatter.parse("Let me think.\n</think>\n\nIt is sunny.", request)
    assert message.content == "It is sunny."
    parser = formatter.stream_parser(request)
    parser.feed("Sunny.")
    parser.close()
    assert schema_maps == []


def test_the_schema_map_is_built_once_when_the_first_block_ends(
    schema_maps: list[object],
) -> None:
    formatter = get_formatter(release("4.2").model)
    request = {"messages": _MESSAGES, "tools": _TOOLS}
    message = formatter.parse(f"Plan.\n</think>\n\n{_CALL}\n{_CALL}", request)
    assert [call.arguments for call in message.tool_calls] == [
        {"city": "Boston", "days": 3}
    ] * 2  # (typed by the schema: the map was used)
    assert len(schema_maps) == 1


# A plain dict request, valid or not, with or without documents and citation controls.
_DOCUMENTS = [{"doc_id": 1, "text": "Boston is in Massachusetts."}]
_REQUESTS: list[dict[str, Any]] = [
    {"messages": _MESSAGES},
    {"messages": _MESSAGES, "tools": _TOOLS},
    {"messages": _MESSAGES, "documents": []},
    {"messages": _MESSAGES, "documents": _DOCUMENTS},
    {"messages": _MESSAGES, "chat_template_kwargs": {"thinking": True}},
    {"messages": _MESSAGES, "chat_template_kwargs": {"controls": {"length": "short"}}},
    {"messages": _MESSAGES, "chat_template_kwargs": {"controls": {"citations": True}}},
    {"messages": _MESSAGES, "chat_template_kwargs": {"controls": {"hallucinations": True}}},
    {"messages": _MESSAGES, "chat_template_kwargs": {"controls": "citations"}},
    {"messages": _MESSAGES, "chat_template_kwargs": {"thinking": "maybe"}},
    {"messages": [{"role": "user", "content": 5}]},
    {"messages": [{"role": "nobody", "content": "Hi"}]},
]


@pytest.mark.parametrize("request_data", _REQUESTS)
def test_a_plain_request_reads_citations_as_the_validated_request_says(
    request_data: dict[str, Any],
) -> None:
    cite = get_formatter(release("3.3").model).output_processor.release.citations  # type: ignore[attr-defined]
    validated = citation_request(request_data, Granite3ChatCompletion)
    reader = cite.reader(_Sink(), [], request_data)
    assert (reader is not None) == reads_citations(validated)


def test_a_plain_request_without_citations_is_not_validated(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refused(*args: object, **kwargs: object) -> object:
        raise AssertionError("validated")

    formatter = get_formatter(release("3.3").model)
    monkeypatch.setattr(Granite3ChatCompletion, "model_validate", refused)
    for request in ({"messages": _MESSAGES}, {"messages": _MESSAGES, "tools": _TOOLS}):
        message = formatter.parse("It is sunny.", request)
        assert message.content == "It is sunny."
        assert message.citations == []  # type: ignore[attr-defined]
    with pytest.raises(AssertionError, match="validated"):  # (one with documents is)
        formatter.parse("It is sunny.", {"messages": _MESSAGES, "documents": _DOCUMENTS})


class _Sink:
    """A text sink that keeps nothing (the reader's content end)."""

    def write(self, text: str) -> None:
        pass

    def end(self) -> None:
        pass
