"""Request coercion and validation, and the response types."""

from __future__ import annotations

import json

import pytest

from granite_formatters._errors import FormatterError, InvalidRequestError
from granite_formatters._types import AssistantMessage, ChatCompletion, ToolCall, coerce_request
from granite_formatters.granite3._types import Granite3ChatCompletion, Granite3Controls

USER = [{"role": "user", "content": "Hi"}]


def test_typed_request_is_passed_through_without_a_round_trip() -> None:
    request = Granite3ChatCompletion.model_validate({"messages": USER})
    assert coerce_request(request, Granite3ChatCompletion) is request


def test_dict_json_and_plain_chat_completion_are_accepted() -> None:
    body = {"messages": USER, "chat_template_kwargs": {"thinking": True}}
    from_dict = coerce_request(body, Granite3ChatCompletion)
    from_json = coerce_request(json.dumps(body), Granite3ChatCompletion)
    from_plain = coerce_request(ChatCompletion.model_validate(body), Granite3ChatCompletion)
    for request in (from_dict, from_json, from_plain):
        assert request.thinking() is True
        assert request.messages[0].content == "Hi"


def test_tools_are_kept_exactly_as_given() -> None:
    tool = {
        "type": "function",
        "function": {"parameters": {"z": 1, "a": 2}, "name": "météo"},
        "x-extra": True,
    }
    request = coerce_request(json.dumps({"messages": USER, "tools": [tool]}), ChatCompletion)
    assert request.tools == [tool]
    assert list(request.tools[0]["function"]) == ["parameters", "name"]


def test_extra_body_and_known_openai_parameters() -> None:
    body = {
        "model": "granite-3.2-8b-instruct",
        "temperature": 0.2,
        "stream": True,
        "max_tokens": 10,
        "messages": USER,
        "extra_body": {
            "documents": [{"text": "d", "doc_id": 7}],
            "chat_template_kwargs": {"controls": {"length": "short", "citations": False}},
            "skip_special_tokens": False,
        },
    }
    request = coerce_request(body, Granite3ChatCompletion)
    assert request.documents is not None and request.documents[0].doc_id == 7
    assert request.chat_template_kwargs.controls == {"length": "short", "citations": False}
    assert list(request.chat_template_kwargs.controls) == ["length", "citations"]
    assert request.controls() == Granite3Controls(length="short", citations=False)


def test_documents_inside_chat_template_kwargs_are_moved() -> None:
    request = coerce_request(
        {
            "messages": USER,
            "chat_template_kwargs": {"documents": [{"text": "t"}], "thinking": False},
        },
        Granite3ChatCompletion,
    )
    assert request.documents is not None and request.documents[0].text == "t"


def test_content_parts_are_joined_with_newlines() -> None:
    request = coerce_request(
        {
            "messages": [
                {
                    "role": "user",
                    "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
                }
            ]
        },
        ChatCompletion,
    )
    assert request.messages[0].content == "a\nb"


@pytest.mark.parametrize(
    ("body", "field", "text"),
    [
        ({"messages": []}, "messages", "at least 1 item"),
        ({}, "messages", "this field is required"),
        ({"messages": USER, "documnets": []}, "documnets", "unknown request field 'documnets'"),
        (
            {"messages": USER, "thinking": True},
            "thinking",
            "Put template options under 'chat_template_kwargs'",
        ),
        (
            {"messages": USER, "chat_template_kwargs": {"thinkng": True}},
            "chat_template_kwargs.thinkng",
            "unknown field",
        ),
        (
            {"messages": USER, "chat_template_kwargs": {"thinking": "yes"}},
            "chat_template_kwargs.thinking",
            "valid boolean",
        ),
        (
            {"messages": USER, "chat_template_kwargs": {"controls": {"length": "medium"}}},
            "chat_template_kwargs.controls.length",
            "Input should be 'short' or 'long' (got 'medium')",
        ),
        (
            {"messages": USER, "chat_template_kwargs": {"controls": {"citation": True}}},
            "chat_template_kwargs.controls.citation",
            "unknown field",
        ),
        ({"messages": [{"role": "user", "content": 3}]}, "messages[0].content", "valid string"),
        ({"messages": [{"content": "x"}]}, "messages[0].role", "required"),
        (
            {"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {}}]}]},
            "messages[0].content[0]",
            "only text parts",
        ),
        (
            {"messages": USER, "documents": [{"text": "t", "doc_id": 1.5}]},
            "documents[0].doc_id",
            "a document id must be a string or an integer, not float (got 1.5)",
        ),
        ({"messages": USER, "documents": [{"doc_id": "1"}]}, "documents[0].text", "required"),
        (
            {"messages": USER, "tools": [{"description": "no name"}]},
            "tools[0]",
            "needs a string 'name'",
        ),
        (
            {"messages": USER, "tools": [{"type": "function", "function": {}}]},
            "tools[0].function",
            "must be an object with a string 'name'",
        ),
        (
            {"messages": USER, "documents": [], "extra_body": {"documents": []}},
            "extra_body.documents",
            "both at the top level and in extra_body",
        ),
        (
            {"messages": USER, "extra_body": {"bogus": 1}},
            "extra_body.bogus",
            "unknown request field 'bogus'",
        ),
    ],
)
def test_bad_requests_name_the_field(body: dict[str, object], field: str | None, text: str) -> None:
    with pytest.raises(InvalidRequestError) as info:
        coerce_request(body, Granite3ChatCompletion)
    error = info.value
    assert isinstance(error, ValueError) and isinstance(error, FormatterError)
    assert error.field == field
    assert str(error).startswith(f"{error.field}: ")
    assert text in str(error)


@pytest.mark.parametrize("value", ["{not json", "[1, 2]", 42, None])
def test_requests_of_the_wrong_shape(value: object) -> None:
    with pytest.raises(InvalidRequestError):
        coerce_request(value, ChatCompletion)


def test_assistant_message_to_openai() -> None:
    message = AssistantMessage(
        content="",
        reasoning_content="thought",
        tool_calls=[ToolCall(id="call_1", name="f", arguments={"q": "é"})],
    )
    assert message.to_openai() == {
        "role": "assistant",
        "content": "",
        "reasoning_content": "thought",
        "reasoning": "thought",
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "f", "arguments": '{"q": "é"}'},
            }
        ],
    }
    assert AssistantMessage(content="x").to_openai() == {"role": "assistant", "content": "x"}
