"""OpenAI objects in, OpenAI objects out and request errors.

The ``openai`` package is an optional test dependency: the tests that use it skip
without it; the library itself never imports it (checked in a subprocess).
"""

from __future__ import annotations

import datetime
import json
import subprocess
import sys
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

from granite_formatters._errors import InvalidRequestError
from granite_formatters._types import (
    AssistantMessage,
    ChatCompletion,
    ChatMessage,
    Document,
    ToolCall,
    coerce_request,
)
from granite_formatters.granite3._types import (
    Citation,
    Granite3AssistantMessage,
    Granite3ChatCompletion,
    Hallucination,
)

USER = {"role": "user", "content": "Hi"}
TODAY = datetime.date(2025, 4, 16)


class ForeignMessage(BaseModel):
    """A pydantic model of another library, shaped like an OpenAI message."""

    model_config = ConfigDict(extra="allow")

    role: str
    content: str | None = None
    refusal: str | None = None


class DuckMessage:
    """Not pydantic at all: only a ``model_dump()``."""

    def __init__(self, **fields: Any) -> None:
        self.fields = fields

    def model_dump(self) -> dict[str, Any]:
        return dict(self.fields)


@pytest.mark.parametrize(
    "message",
    [
        ForeignMessage(role="assistant", content="Hello"),
        DuckMessage(role="assistant", content="Hello", refusal=None, audio=None),
        ChatMessage(role="assistant", content="Hello"),
        {"role": "assistant", "content": "Hello"},
    ],
    ids=["pydantic", "duck", "ChatMessage", "dict"],
)
@pytest.mark.parametrize("cls", [ChatCompletion, Granite3ChatCompletion])
def test_message_shaped_objects_are_accepted(message: object, cls: type[ChatCompletion]) -> None:
    request = coerce_request({"messages": [USER, message]}, cls)
    assistant = request.messages[1]
    assert (assistant.role, assistant.content) == ("assistant", "Hello")
    # None fields of the object are dropped, not kept as extras.
    assert assistant.model_extra == {}
    # The typed constructors accept them too.
    typed = cls(messages=[USER, message])  # type: ignore[list-item]
    assert typed.messages[1].content == "Hello"


def test_tool_call_objects_inside_a_dict_message_become_dicts() -> None:
    class Function(BaseModel):
        name: str
        arguments: str

    class Call(BaseModel):
        id: str
        type: str
        function: Function

    call = Call(id="c1", type="function", function=Function(name="f", arguments="{}"))
    request = coerce_request(
        {"messages": [USER, {"role": "assistant", "content": "", "tool_calls": [call]}]},
        ChatCompletion,
    )
    assert request.messages[1].tool_calls == [
        {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    ]


def test_content_part_objects_are_joined() -> None:
    class Part(BaseModel):
        type: str
        text: str

    request = coerce_request(
        {"messages": [{"role": "user", "content": [Part(type="text", text="a"), "b"]}]},
        ChatCompletion,
    )
    assert request.messages[0].content == "a\nb"


def test_a_message_object_of_the_wrong_shape_names_the_field() -> None:
    with pytest.raises(InvalidRequestError) as info:
        coerce_request({"messages": [USER, DuckMessage(content="no role")]}, ChatCompletion)
    assert info.value.field == "messages[1].role"


def test_an_object_whose_model_dump_fails_is_an_invalid_request() -> None:
    class Broken:
        def model_dump(self) -> dict[str, Any]:
            raise RuntimeError("boom")

    with pytest.raises(InvalidRequestError) as info:
        coerce_request({"messages": [USER, Broken()]}, ChatCompletion)
    assert info.value.field == "messages[1]"
    assert str(info.value) == (
        "messages[1]: could not read the Broken object through its model_dump(): "
        "RuntimeError: 'boom'"
    )


def test_the_library_never_imports_openai() -> None:
    code = (
        "import sys, granite_formatters\n"
        "from granite_formatters._types import ChatCompletion\n"
        "class D:\n"
        "    def model_dump(self): return {'role': 'user', 'content': 'x'}\n"
        "ChatCompletion.model_validate({'messages': [D()]})\n"
        "assert 'openai' not in sys.modules, 'openai was imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# -- to_openai ------------------------------------------------------------------------

RAG_MESSAGE = Granite3AssistantMessage(
    content="Paris is the capital.",
    reasoning_content="Look it up.",
    tool_calls=[ToolCall(id="call_1", name="lookup", arguments={"city": "Paris"})],
    citations=[
        Citation(
            citation_id="0",
            doc_id="d1",
            context_text="capital is Paris",
            context_begin=10,
            context_end=26,
            response_text="Paris is the capital.",
            response_begin=0,
            response_end=21,
        )
    ],
    documents=[Document(text="France's capital is Paris.", doc_id="d1")],
    hallucinations=[
        Hallucination(
            hallucination_id="1",
            risk="low",
            response_text="Paris is the capital.",
            response_begin=0,
            response_end=21,
        )
    ],
)


def test_granite3_to_openai_carries_the_rag_fields() -> None:
    assert RAG_MESSAGE.to_openai() == {
        "role": "assistant",
        "content": "Paris is the capital.",
        "reasoning_content": "Look it up.",
        "reasoning": "Look it up.",
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "lookup", "arguments": '{"city": "Paris"}'},
            }
        ],
        "citations": [
            {
                "citation_id": "0",
                "doc_id": "d1",
                "context_text": "capital is Paris",
                "context_begin": 10,
                "context_end": 26,
                "response_text": "Paris is the capital.",
                "response_begin": 0,
                "response_end": 21,
            }
        ],
        "hallucinations": [
            {
                "hallucination_id": "1",
                "risk": "low",
                "reasoning": None,
                "response_text": "Paris is the capital.",
                "response_begin": 0,
                "response_end": 21,
            }
        ],
        "documents": [{"text": "France's capital is Paris.", "doc_id": "d1"}],
    }
    # Plain JSON all the way down.
    json.dumps(RAG_MESSAGE.to_openai())


def test_empty_rag_fields_are_left_out() -> None:
    assert Granite3AssistantMessage(content="x").to_openai() == {
        "role": "assistant",
        "content": "x",
    }


def test_to_openai_output_goes_back_into_messages_unrendered_extras() -> None:
    from granite_formatters import get_formatter

    pytest.importorskip("granite_formatters_granite33")
    formatter = get_formatter("granite-3.3-8b-instruct")
    plain = {"role": "assistant", "content": "Paris is the capital."}
    with_extras = Granite3AssistantMessage(
        content="Paris is the capital.",
        citations=RAG_MESSAGE.citations,
        documents=RAG_MESSAGE.documents,
        hallucinations=RAG_MESSAGE.hallucinations,
    ).to_openai()
    prompts = [
        formatter.format({"messages": [USER, message, USER]}, today=TODAY)
        for message in (plain, with_extras)
    ]
    assert prompts[0] == prompts[1]


# -- with the real openai package -----------------------------------------------------


def test_to_openai_validates_as_openai_chat_completion_message() -> None:
    chat = pytest.importorskip("openai.types.chat")
    for message in (RAG_MESSAGE, AssistantMessage(content="x"), Granite3AssistantMessage()):
        validated = chat.ChatCompletionMessage.model_validate(message.to_openai())
        assert validated.role == "assistant"
        assert validated.content == message.content
    validated = chat.ChatCompletionMessage.model_validate(RAG_MESSAGE.to_openai())
    assert validated.tool_calls[0].function.name == "lookup"
    assert json.loads(validated.tool_calls[0].function.arguments) == {"city": "Paris"}
    # The extension fields survive the OpenAI type (it allows extra fields).
    dumped = validated.model_dump()
    assert dumped["citations"][0]["doc_id"] == "d1"
    assert dumped["reasoning_content"] == dumped["reasoning"] == "Look it up."


@pytest.mark.parametrize(
    ("model", "raw", "request_body"),
    [
        (
            "granite-3.3-8b-instruct",
            'Paris <|start_of_cite|>{"document_id": "1"}<|end_of_cite|>.\n\n'
            '<|start_of_plugin|>{"id": "citation"}\n1: "Its capital is Paris."\n'
            "<|end_of_plugin|>\n",
            {
                "documents": [{"doc_id": "1", "text": "France. Its capital is Paris."}],
                "chat_template_kwargs": {"controls": {"citations": True}},
            },
        ),
        (
            "granite-3.2-8b-instruct",
            'Paris.<co>0</co>\n\n# Citations:\n<co>0</co> Document 0: "Its capital is Paris."',
            {
                "documents": [{"text": "France. Its capital is Paris."}],
                "chat_template_kwargs": {"controls": {"citations": True}},
            },
        ),
    ],
)
def test_parsed_message_round_trips_through_openai_types(
    model: str, raw: str, request_body: dict[str, Any]
) -> None:
    chat = pytest.importorskip("openai.types.chat")
    pytest.importorskip("granite_formatters_granite33")
    pytest.importorskip("granite_formatters_granite32")
    from granite_formatters import get_formatter

    formatter = get_formatter(model)
    request = {"messages": [{"role": "user", "content": "Capital of France?"}], **request_body}
    message = formatter.parse(raw, request)
    openai_message = chat.ChatCompletionMessage.model_validate(message.to_openai())
    assert openai_message.content == message.content
    (citation,) = openai_message.model_dump()["citations"]
    assert citation["context_text"] == "Its capital is Paris."
    assert citation["context_begin"] == len("France. ")
    # Append the SDK object as every OpenAI user does, then ask again: the prompt shows
    # the assistant turn exactly as a plain dict with the same content would.
    follow_up = {"role": "user", "content": "And of Italy?"}
    with_object = formatter.format(
        {**request, "messages": [*request["messages"], openai_message, follow_up]},
        today=TODAY,
    )
    with_dict = formatter.format(
        {
            **request,
            "messages": [
                *request["messages"],
                {"role": "assistant", "content": message.content},
                follow_up,
            ],
        },
        today=TODAY,
    )
    assert with_object == with_dict
    assert (
        f"<|start_of_role|>assistant<|end_of_role|>{message.content}<|end_of_text|>\n"
        in with_object
    )


def test_openai_params_and_response_objects_are_accepted() -> None:
    chat = pytest.importorskip("openai.types.chat")
    user: Any = chat.ChatCompletionUserMessageParam(role="user", content="Hi")
    system: Any = chat.ChatCompletionSystemMessageParam(role="system", content="Be brief.")
    answer = chat.ChatCompletionMessage(role="assistant", content="Hello")
    request = Granite3ChatCompletion(messages=[system, user, answer, user])
    assert [(m.role, m.content) for m in request.messages] == [
        ("system", "Be brief."),
        ("user", "Hi"),
        ("assistant", "Hello"),
        ("user", "Hi"),
    ]
    assert request.messages[2].model_extra == {}


def test_openai_tool_call_message_with_null_content_formats() -> None:
    chat = pytest.importorskip("openai.types.chat")
    pytest.importorskip("granite_formatters_granite33")
    from granite_formatters import get_formatter

    answer = chat.ChatCompletionMessage.model_validate(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "f", "arguments": '{"a": 1}'},
                }
            ],
        }
    )
    prompt = get_formatter("granite-3.3-8b-instruct").format(
        {"messages": [USER, answer, {"role": "tool", "tool_call_id": "c1", "content": "2"}]},
        today=TODAY,
    )
    assert '<|tool_call|>[{"name": "f", "arguments": {"a": 1}}]' in prompt


# -- request errors -------------------------------------------------


def test_a_non_string_top_level_key_is_an_invalid_request() -> None:
    with pytest.raises(InvalidRequestError) as info:
        coerce_request({"messages": [USER], 1: "x"}, ChatCompletion)
    assert info.value.field == "1"
    assert str(info.value) == "1: request keys must be strings; got the int key 1"
    with pytest.raises(InvalidRequestError) as info:
        coerce_request({"messages": [USER], "extra_body": {(1, 2): 0}}, ChatCompletion)
    assert info.value.field == "extra_body.(1, 2)"


def test_huge_unknown_keys_and_values_are_quoted_short() -> None:
    key = "k" * 10_000_000
    with pytest.raises(InvalidRequestError) as info:
        coerce_request({"messages": [USER], key: 1}, ChatCompletion)
    assert len(str(info.value)) < 500
    assert info.value.field == repr("k" * 80) + "... (10000000 characters)"
    with pytest.raises(InvalidRequestError) as info:
        coerce_request(
            {"messages": [USER], "chat_template_kwargs": {"controls": {"length": "x" * 10**6}}},
            Granite3ChatCompletion,
        )
    assert info.value.field == "chat_template_kwargs.controls.length"
    assert str(info.value).endswith("(got " + repr("x" * 80) + "... (1000000 characters))")
    with pytest.raises(InvalidRequestError) as info:
        coerce_request(
            {"messages": [{"role": "user", "content": [{"type": "y" * 10**6}]}]}, ChatCompletion
        )
    assert len(str(info.value)) < 500 and info.value.field == "messages[0].content[0]"
