"""``granite-format serve`` in front of a real llama.cpp ``llama-server``, driven by the ``openai`` client.

``llama-server`` runs the tiny chain model of :mod:`.tinymodel`, started as
docs/serving.md says; ``serve`` is in front of it with each backend type that applies to
llama.cpp (``openai`` on its ``/v1``, ``llamacpp`` on its native ``/completion``). Each
request picks the scripted answer with ``logit_bias``; the expected results are written
out here, not computed by the library.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import attrs
import openai
import pytest
from openai import omit

from .conftest import Process, documented_command, post_json
from .tinymodel import END3, answer, bias, build_vocab
from support.releases import RELEASES

if TYPE_CHECKING:
    from collections.abc import Iterator

    from openai.types.chat import ChatCompletionMessageParam, ChatCompletionToolParam

MODELS = {release.version: release.model for release in RELEASES}
USER: list[ChatCompletionMessageParam] = [
    {"role": "user", "content": "What's the weather in Paris?"}
]
TOOLS: list[ChatCompletionToolParam] = [
    {
        "type": "function",
        "function": {
            "name": name,
            "description": f"{name} of a place",
            "parameters": {"type": "object", "properties": {arg: {"type": "string"}}},
        },
    }
    for name, arg in (("get_weather", "city"), ("get_time", "zone"), ("get_stock", "symbol"))
]
DOCUMENTS = [{"doc_id": "1", "text": "Paris is the capital of France."}]


@attrs.frozen
class Reply:
    """What the client got, whole (non-streaming) or put together from the chunks."""

    content: str | None
    reasoning: str | None
    calls: tuple[tuple[str, Any], ...]
    citations: tuple[dict[str, Any], ...]
    finish_reason: str | None
    wire: str  # every object the client received, as JSON


def openai_client(server: Process) -> openai.OpenAI:
    """The ``openai`` client pointed at a serve process (bounded time, no retries)."""
    return openai.OpenAI(base_url=server.url + "/v1", api_key="unused", timeout=60, max_retries=0)


@pytest.fixture(scope="module")
def client(serve: Process) -> Iterator[openai.OpenAI]:
    with openai_client(serve) as c:
        yield c


def ask(
    client: openai.OpenAI,
    release: str,
    messages: list[ChatCompletionMessageParam],
    scripted: str,
    *,
    stream: bool,
    tools: list[ChatCompletionToolParam] | None = None,
    extra_body: dict[str, Any] | None = None,
) -> Reply:
    """One chat request that makes the model write answer ``scripted``."""
    common: dict[str, Any] = {"extra_body": extra_body}
    if not stream:
        response = client.chat.completions.create(
            model=MODELS[release],
            messages=messages,
            logit_bias=bias(scripted),
            tools=tools or omit,
            **common,
        )
        choice = response.choices[0]
        message = choice.message
        extra = message.model_extra or {}
        calls = tuple(
            (call.function.name, json.loads(call.function.arguments))
            for call in message.tool_calls or []
            if call.type == "function"
        )
        return Reply(
            message.content,
            extra.get("reasoning_content"),
            calls,
            tuple(extra.get("citations") or ()),
            choice.finish_reason,
            response.model_dump_json(),
        )
    chunks = list(
        client.chat.completions.create(
            model=MODELS[release],
            messages=messages,
            logit_bias=bias(scripted),
            tools=tools or omit,
            stream=True,
            **common,
        )
    )
    content: list[str] = []
    reasoning: list[str] = []
    calls_by_index: dict[int, list[str]] = {}
    citations: list[dict[str, Any]] = []
    finish = None
    for chunk in chunks:
        for choice in chunk.choices:
            delta = choice.delta
            extra = delta.model_extra or {}
            content.append(delta.content or "")
            reasoning.append(extra.get("reasoning_content") or "")
            citations += extra.get("citations") or []
            for call in delta.tool_calls or []:
                name_args = calls_by_index.setdefault(call.index, ["", ""])
                if call.function is not None:
                    name_args[0] += call.function.name or ""
                    name_args[1] += call.function.arguments or ""
            finish = choice.finish_reason or finish
    return Reply(
        "".join(content) if any(content) else None,
        "".join(reasoning) or None,
        tuple((name, json.loads(args)) for name, args in calls_by_index.values()),
        tuple(citations),
        finish,
        json.dumps([chunk.model_dump(mode="json") for chunk in chunks]),
    )


STREAM = pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])


# The model itself, straight from llama-server: what each chain writes.


@pytest.mark.parametrize("name", ["tool3", "split3", "cite33", "answer3", "utf8", "count", "tool4"])
def test_llama_server_writes_each_scripted_answer(llama_server: Process, name: str) -> None:
    """With ``--special``, llama.cpp prints the control tokens, the end token included,
    and stops there."""
    prompt = "<|start_of_role|>user<|end_of_role|>Hi<|end_of_text|>\n<|start_of_role|>assistant<|end_of_role|>"
    body: dict[str, Any] = {"prompt": prompt, "logit_bias": [[build_vocab().start(name), 100]]}
    out = post_json(llama_server.url + "/completion", body)
    assert out["content"] == answer(name).text
    assert out["stop_type"] == "eos"


def test_llama_server_writes_the_42_answer_after_an_opened_think(llama_server: Process) -> None:
    prompt = "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n"
    body = {"prompt": prompt, "logit_bias": [[build_vocab().start("think42"), 100]]}
    out = post_json(llama_server.url + "/completion", body)
    assert out["content"] == answer("think42").text


def test_llama_server_without_special_drops_control_tokens(plain_llama_server: Process) -> None:
    """What the issue reports: a default llama-server removes ``<|start_of_cite|>``..."""
    prompt = "<|start_of_role|>assistant<|end_of_role|>"
    body = {"prompt": prompt, "logit_bias": [[build_vocab().start("cite33"), 100]]}
    out = post_json(plain_llama_server.url + "/completion", body)
    assert out["content"] == 'Paris is the capital{"document_id": "1"}.'


def test_llama_server_keeps_preserved_tokens_per_request(plain_llama_server: Process) -> None:
    """...and its ``preserved_tokens`` request field prints the named special tokens
    without ``--special`` (on ``/completion`` and on ``/v1/completions``)."""
    prompt = "<|start_of_role|>assistant<|end_of_role|>"
    keep = ["<|start_of_cite|>", "<|end_of_cite|>"]
    body: dict[str, Any] = {
        "prompt": prompt,
        "logit_bias": [[build_vocab().start("cite33"), 100]],
        "preserved_tokens": keep,
    }
    out = post_json(plain_llama_server.url + "/completion", body)
    assert (
        out["content"]
        == 'Paris is the capital<|start_of_cite|>{"document_id": "1"}<|end_of_cite|>.'
    )
    body = {**body, "logit_bias": {str(build_vocab().start("cite33")): 100}}
    v1 = post_json(plain_llama_server.url + "/v1/completions", body)
    choices = v1["choices"]
    assert isinstance(choices, list)
    assert choices[0]["text"] == out["content"]


# The documentation.


def test_docs_start_llama_server_with_special() -> None:
    """docs/serving.md and docs/granite42.md start llama-server the same way, with ``--special``."""
    serving = documented_command("docs/serving.md")
    assert "--special" in serving
    assert documented_command("docs/granite42.md")[3:] == serving[3:]


# Through serve, with the openai client: every release's features.


@STREAM
@pytest.mark.parametrize(
    ("release", "scripted", "call"),
    [
        ("3.2", "tool3", ("get_weather", {"city": "Paris"})),
        ("3.3", "tool3", ("get_weather", {"city": "Paris"})),
        ("3.3", "split3", ("get_time", {"zone": "UTC"})),  # <|tool_call|> as three ordinary tokens
        ("4.0", "tool4", ("get_stock", {"symbol": "IBM"})),  # <tool_call> as ordinary tokens
        ("4.1", "tool4", ("get_stock", {"symbol": "IBM"})),
    ],
)
def test_tool_call(
    client: openai.OpenAI, release: str, scripted: str, call: tuple[str, Any], stream: bool
) -> None:
    reply = ask(client, release, USER, scripted, stream=stream, tools=TOOLS)
    assert reply.calls == (call,)
    assert not reply.content
    assert reply.reasoning is None
    assert reply.finish_reason == "tool_calls"


@STREAM
def test_granite42_reasoning_then_xml_tool_call(client: openai.OpenAI, stream: bool) -> None:
    reply = ask(client, "4.2", USER, "think42", stream=stream, tools=TOOLS)
    assert reply.reasoning == "Need the weather first."
    assert reply.calls == (("get_weather", {"city": "Lima"}),)
    assert not reply.content
    assert reply.finish_reason == "tool_calls"


@STREAM
def test_granite33_citations(client: openai.OpenAI, stream: bool) -> None:
    extra = {"documents": DOCUMENTS, "chat_template_kwargs": {"controls": {"citations": True}}}
    reply = ask(client, "3.3", USER, "cite33", stream=stream, extra_body=extra)
    assert reply.content == "Paris is the capital."
    assert [
        (c["doc_id"], c["response_text"], c["response_begin"], c["response_end"])
        for c in reply.citations
    ] == [("1", "Paris is the capital.", 0, 21)]


@STREAM
@pytest.mark.parametrize("release", ["3.2", "4.0"])
def test_utf8_split_across_tokens(client: openai.OpenAI, release: str, stream: bool) -> None:
    reply = ask(client, release, USER, "utf8", stream=stream)
    assert reply.content == "Café costs 3 €"
    assert reply.finish_reason == "stop"


@STREAM
@pytest.mark.parametrize("release", ["3.3", "4.1"])
def test_no_max_tokens_gives_the_whole_answer(
    client: openai.OpenAI, release: str, stream: bool
) -> None:
    reply = ask(client, release, USER, "count", stream=stream)
    assert reply.content == answer("count").text.removesuffix(END3)
    assert reply.finish_reason == "stop"


@STREAM
def test_two_turn_agent_loop(client: openai.OpenAI, stream: bool) -> None:
    first = ask(client, "3.3", USER, "tool3", stream=stream, tools=TOOLS)
    assert first.calls == (("get_weather", {"city": "Paris"}),)
    messages: list[ChatCompletionMessageParam] = [
        *USER,
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": json.dumps(first.calls[0][1])},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": '{"sky": "sunny"}'},
    ]
    second = ask(client, "3.3", messages, "answer3", stream=stream, tools=TOOLS)
    assert second.calls == ()
    assert second.content == "It is sunny in Paris today."
    assert second.finish_reason == "stop"


# Items other engineers fix (issue 39 items 2, 3 and 4).


@STREAM
def test_granite42_reasoning_effort_none_turns_thinking_off(
    client: openai.OpenAI, stream: bool
) -> None:
    """docs/granite42.md tells serve users to send ``reasoning_effort="none"``."""
    thinking = ask(client, "4.2", USER, "plain42", stream=stream)
    assert thinking.reasoning == "Lima is in Peru!"
    assert not thinking.content
    off = ask(
        client, "4.2", USER, "plain42", stream=stream, extra_body={"reasoning_effort": "none"}
    )
    assert off.content == "Lima is in Peru!"
    assert off.reasoning is None


@STREAM
def test_logprobs_are_given_or_refused(client: openai.OpenAI, stream: bool) -> None:
    """Never an empty list with 200: token logprobs, or a 400 naming the field."""
    try:
        if stream:
            chunks = list(
                client.chat.completions.create(
                    model=MODELS["3.3"], messages=USER, logit_bias=bias("answer3"),
                    logprobs=True, top_logprobs=2, stream=True,
                )
            )  # fmt: skip
            entries = [
                e
                for c in chunks
                for ch in c.choices
                if ch.logprobs
                for e in ch.logprobs.content or []
            ]
        else:
            response = client.chat.completions.create(
                model=MODELS["3.3"],
                messages=USER,
                logit_bias=bias("answer3"),
                logprobs=True,
                top_logprobs=2,
            )
            logprobs = response.choices[0].logprobs
            entries = list(logprobs.content or []) if logprobs else []
    except openai.BadRequestError as error:
        assert error.status_code == 400
        assert "logprobs" in str(error.body)
        return
    assert "".join(e.token for e in entries) == "It is sunny in Paris today."
    assert all(1 <= len(e.top_logprobs) <= 2 for e in entries)


@pytest.fixture(scope="module")
def plain_client(plain_serve: Process) -> Iterator[openai.OpenAI]:
    with openai_client(plain_serve) as c:
        yield c


@STREAM
def test_citations_behind_a_default_llama_server_are_not_silently_lost(
    plain_client: openai.OpenAI, stream: bool
) -> None:
    """A llama-server without ``--special``: the citations come back, or the answer says
    they were dropped and names llama.cpp's switch."""
    extra = {"documents": DOCUMENTS, "chat_template_kwargs": {"controls": {"citations": True}}}
    reply = ask(plain_client, "3.3", USER, "cite33", stream=stream, extra_body=extra)
    if reply.citations:
        assert [c["doc_id"] for c in reply.citations] == ["1"]
    else:
        assert "--special" in reply.wire, reply.wire
