"""Recorded-style Granite outputs per release, with the requests that produce them.

Each :class:`Case` is one chat request (as the OpenAI client sends it: ``extra`` goes in
``extra_body``), the raw text the model generates for it (what a completions server
returns with special tokens kept), and facts about the parsed answer that the test checks
independently of the library's own parser. Releases whose plugin is not installed are
skipped with the reason.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from granite_formatters import UnknownModelError, get_formatter

if TYPE_CHECKING:
    from openai.types.chat import ChatCompletionMessageParam, ChatCompletionToolParam

USER: list[ChatCompletionMessageParam] = [
    {"role": "user", "content": "What's the weather like in Zürich right now?"}
]
TOOLS: list[ChatCompletionToolParam] = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather for a city",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
                "required": ["city"],
            },
        },
    }
]
CALL_ARGS = {"city": "Zürich", "unit": "celsius"}
DOCS = [
    {"doc_id": "overview", "text": "Granite is a family of language models developed by IBM Research. The models are released under the Apache 2.0 license."},
    {"doc_id": "sizes", "text": "The 8b model has 8 billion parameters. Both sizes support 128K tokens — about 300 pages."},
]  # fmt: skip
RAG_USER: list[ChatCompletionMessageParam] = [
    {"role": "user", "content": "Tell me about Granite — briefly."}
]
RAG_CONTROLS = {"controls": {"citations": True}}
PLAIN_ANSWER = (
    "Hello! I can't check live weather, but Zürich in spring is usually mild — around 15 °C. 🌤️"
)
TOOL_ANSWER = "It is 18 °C and sunny in Zürich right now ☀️."


def second_turn(call_id: str) -> list[ChatCompletionMessageParam]:
    """The conversation after the tool call: the assistant's call and the tool's result."""
    return [
        *USER,
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {
                        "name": "get_weather",
                        "arguments": '{"city": "Zürich", "unit": "celsius"}',
                    },
                }
            ],
        },
        {"role": "tool", "tool_call_id": call_id, "content": '{"temperature": 18, "sky": "sunny"}'},
    ]


@attrs.frozen
class Case:
    name: str
    messages: list[ChatCompletionMessageParam]
    output: str
    extra: dict[str, Any] = attrs.field(factory=dict)
    tools: list[ChatCompletionToolParam] | None = None
    content: str | None = None
    reasoning: str | None = None
    tool_call: tuple[str, dict[str, Any]] | None = None
    cited: bool = False

    def request(self) -> dict[str, Any]:
        """The body the OpenAI client sends (extra_body merged at the top level)."""
        body: dict[str, Any] = {"messages": self.messages, **self.extra}
        if self.tools is not None:
            body["tools"] = self.tools
        return body


def _g3_cases(
    reasoning_output: str, rag_output: str, rag_content: str, reasoning: str, answer: str
) -> list[Case]:
    call = (
        '<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Zürich", "unit": "celsius"}}]'
    )
    return [
        Case("plain", USER, PLAIN_ANSWER, content=PLAIN_ANSWER),
        Case("reasoning", USER, reasoning_output, extra={"chat_template_kwargs": {"thinking": True}}, content=answer, reasoning=reasoning),
        Case("tool_call", USER, call, tools=TOOLS, content="", tool_call=("get_weather", CALL_ARGS)),
        Case("tool_result", second_turn("call_1"), TOOL_ANSWER, tools=TOOLS, content=TOOL_ANSWER),
        Case("rag", RAG_USER, rag_output, extra={"documents": DOCS, "chat_template_kwargs": RAG_CONTROLS}, content=rag_content, cited=True),
    ]  # fmt: skip


REASONING = "The user asks about live weather in Zürich. I have no tools, so I cannot look it up; I can give typical values."
ANSWER = "I can't see live data, but Zürich is usually around 15 °C in spring."
RAG_CONTENT = "Granite is a family of language models developed by IBM Research. Both sizes support 128K tokens — about 300 pages."

G32 = _g3_cases(
    reasoning_output=f"Here is my thought process:\n{REASONING}\n\nHere is my response:\n{ANSWER}",
    rag_output=(
        "Granite is a family of language models developed by IBM Research. <co>1</co> "
        "Both sizes support 128K tokens — about 300 pages. <co>2</co>\n\n# Citations:\n"
        '<co>1</co> Document 0: "Granite is a family of language models developed by IBM Research."\n'
        '<co>2</co> Document 1: "Both sizes support 128K tokens — about 300 pages."\n'
    ),
    rag_content=RAG_CONTENT,
    reasoning=REASONING,
    answer=ANSWER,
)

G33 = _g3_cases(
    reasoning_output=f"<think>{REASONING}</think>\n<response>{ANSWER}</response>",
    rag_output=(
        "Granite is a family of language models developed by IBM Research. "
        '<|start_of_cite|>{"document_id": "overview"}<|end_of_cite|>'
        "Both sizes support 128K tokens — about 300 pages. "
        '<|start_of_cite|>{"document_id": "sizes"}<|end_of_cite|>'
        '\n\n<|start_of_plugin|>{"id": "citation"}\n'
        'overview: "Granite is a family of language models developed by IBM Research."\n'
        'sizes: "Both sizes support 128K tokens — about 300 pages."\n<|end_of_plugin|>'
    ),
    rag_content=RAG_CONTENT,
    reasoning=REASONING,
    answer=ANSWER,
)

G4 = [
    Case("plain", USER, PLAIN_ANSWER, content=PLAIN_ANSWER),
    Case("tool_call", USER, '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Zürich", "unit": "celsius"}}\n</tool_call>', tools=TOOLS, content="", tool_call=("get_weather", CALL_ARGS)),
    Case("tool_result", second_turn("call_1"), TOOL_ANSWER, tools=TOOLS, content=TOOL_ANSWER),
    Case("rag", RAG_USER, RAG_CONTENT, extra={"documents": DOCS}, content=RAG_CONTENT),
]  # fmt: skip

#: release -> (model names to try, in order; cases)
RELEASES: dict[str, tuple[tuple[str, ...], list[Case]]] = {
    "3.2": (("granite-3.2-8b-instruct",), G32),
    "3.3": (("granite-3.3-8b-instruct",), G33),
    "4.0": (("ibm-granite/granite-4.0-h-small", "granite-4.0-h-small", "granite4:small-h"), G4),
}


def release_model(release: str) -> str | None:
    """The first name of the release that an installed plugin serves, else ``None``."""
    for name in RELEASES[release][0]:
        try:
            get_formatter(name)
        except UnknownModelError:
            continue
        return name
    return None
