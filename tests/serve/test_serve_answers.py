"""The real ``openai`` client against ``granite-format serve`` in front of each fake backend.

For every installed release and every backend type: plain answers, reasoning, a tool call
and the second turn with its result, RAG with citations; non-streaming and streaming
answers are the same message, whatever the chunk boundaries of the backend's stream.
"""

from __future__ import annotations

import json
from typing import Any

import openai
import pytest

from granite_formatters import get_formatter

from .conftest import KINDS
from .outputs import RELEASES, Case, release_model
from .servers import Script, count_tokens

_CLIENTS: dict[tuple[int, str], openai.OpenAI] = {}


def client_for(port: int, api_key: str = "unused") -> openai.OpenAI:
    """One real OpenAI client per server and key (closed by the ``close_clients`` fixture)."""
    key = (port, api_key)
    if key not in _CLIENTS:
        _CLIENTS[key] = openai.OpenAI(
            base_url=f"http://127.0.0.1:{port}/v1", api_key=api_key, max_retries=0, timeout=30
        )
    return _CLIENTS[key]


def close_clients() -> None:
    while _CLIENTS:
        _CLIENTS.popitem()[1].close()


def expected_message(model: str, case: Case) -> dict[str, Any]:
    message = get_formatter(model).parse(case.output, case.request()).to_openai()
    if message.get("reasoning_content") is not None:
        message.setdefault("reasoning", message["reasoning_content"])
    return message


def without_call_ids(message: dict[str, Any]) -> dict[str, Any]:
    """``message`` with generated tool-call ids reduced to their per-parse counter.

    Generated ids are random per parser (unique across turns), so two parses of one
    output differ only in that part.
    """
    calls = [
        {**call, "id": call["id"][21:] if call["id"].startswith("call_") else call["id"]}
        for call in message.get("tool_calls", [])
    ]
    return {**message, "tool_calls": calls} if calls else message


def stream_message(stream: Any) -> tuple[dict[str, Any], str | None, dict[str, Any] | None]:
    """Rebuild the message from the chunks as a client would; also the finish reason and usage."""
    message: dict[str, Any] = {}
    finish = None
    usage = None
    roles = []
    for chunk in stream:
        if chunk.usage is not None:
            usage = chunk.usage.model_dump(exclude_none=True)
        if not chunk.choices:
            continue
        choice = chunk.choices[0]
        delta = choice.delta.model_dump(exclude_none=True)
        if "role" in delta:
            roles.append(delta.pop("role"))
        for key in ("content", "reasoning_content", "reasoning"):
            if key in delta:
                message[key] = message.get(key, "") + delta.pop(key)
        for call in delta.pop("tool_calls", []):
            call.pop("index")
            message.setdefault("tool_calls", []).append(call)
        message.update(delta)
        if choice.finish_reason is not None:
            assert finish is None, "two finish reasons"
            finish = choice.finish_reason
    assert roles == ["assistant"], roles
    return {"role": "assistant", **message}, finish, usage


def release_params() -> list[Any]:
    params = []
    for release, (_names, cases) in RELEASES.items():
        model = release_model(release)
        for case in cases:
            marks = (
                []
                if model
                else [pytest.mark.skip(reason=f"no installed plugin serves Granite {release}")]
            )
            params.append(
                pytest.param(release, model, case, id=f"{release}-{case.name}", marks=marks)
            )
    return params


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("release", "model", "case"), release_params())
@pytest.mark.parametrize(
    ("cut", "write"), [("whole", None), ("markers", None), ("pieces", "mid-utf8"), ("chars", None)]
)
def test_answer_streamed_and_not(
    proxy_factory: Any,
    fake_backend: Any,
    kind: str,
    release: str,
    model: str,
    case: Case,
    cut: str,
    write: int | None,
) -> None:
    fake, _ = fake_backend
    proxy = proxy_factory(kind)
    request = case.request()
    prompt = get_formatter(model).format(request)
    fake.script(prompt, Script(case.output, cut=cut, write=write))
    client = client_for(proxy.port)
    extra_body = dict(case.extra)
    kwargs: dict[str, Any] = {
        "model": model,
        "messages": case.messages,
        "extra_body": extra_body or None,
    }
    if case.tools is not None:
        kwargs["tools"] = case.tools

    raw = client.chat.completions.with_raw_response.create(**kwargs)
    body = raw.http_response.json()
    parsed = raw.parse()
    assert fake.last_request(prompt)["prompt"] == prompt
    message = body["choices"][0]["message"]
    assert without_call_ids(message) == without_call_ids(expected_message(model, case))
    assert body["object"] == "chat.completion" and body["model"] == model
    # Facts checked without the library's parser:
    if case.content is not None:
        assert parsed.choices[0].message.content == case.content
    if case.reasoning is not None:
        assert message["reasoning_content"] == case.reasoning == message["reasoning"]
    if case.tool_call is not None:
        (call,) = parsed.choices[0].message.tool_calls or []
        assert call.function.name == case.tool_call[0]
        assert json.loads(call.function.arguments) == case.tool_call[1]
        assert body["choices"][0]["finish_reason"] == "tool_calls"
    else:
        assert body["choices"][0]["finish_reason"] == "stop"
        assert "tool_calls" not in message
    if case.cited:
        # Each cited sentence, found in the answer by its span, and the document it names.
        citations = message["citations"]
        content = message["content"]
        sentences = content.split(". ")
        assert [c["doc_id"] for c in citations] == ["overview", "sizes"]
        for citation, sentence in zip(citations, sentences, strict=True):
            span = content[citation["response_begin"] : citation["response_end"]]
            assert span == citation["response_text"] and span.rstrip(".") == sentence.rstrip(".")
    for marker in (
        "<co>",
        "<|start_of_cite|>",
        "<think>",
        "<|tool_call|>",
        "<tool_call>",
        "Here is my",
    ):
        assert marker not in message["content"]
    assert body["usage"]["prompt_tokens"] == count_tokens(prompt)
    assert body["usage"]["completion_tokens"] > 0

    with client.chat.completions.create(
        **kwargs, stream=True, stream_options={"include_usage": True}
    ) as stream:
        streamed, finish, usage = stream_message(stream)
    assert without_call_ids(streamed) == without_call_ids(message)
    assert finish == body["choices"][0]["finish_reason"]
    assert usage == body["usage"]


@pytest.mark.parametrize("kind", KINDS)
def test_a_matched_stop_string_ends_the_answer_and_is_reported(
    proxy_factory: Any, fake_backend: Any, kind: str
) -> None:
    """The backend stops at the caller's stop string and does not send it; vLLM reports it
    as ``stop_reason`` and llama.cpp as ``stopping_word``, which the choice carries as
    vLLM's chat endpoint does (Ollama does not say which string matched)."""
    fake, _ = fake_backend
    model = next(filter(None, map(release_model, RELEASES)), None)
    if model is None:
        pytest.skip("no installed plugin serves a release the serve tests know")
    messages = [{"role": "user", "content": f"Count to three ({kind}, stop)."}]
    prompt = get_formatter(model).format({"messages": messages})
    fake.script(prompt, Script("One, two. Observation: three.", cut="chars"))
    client = client_for(proxy_factory(kind).port)
    kwargs: dict[str, Any] = {"model": model, "messages": messages, "stop": ["Observation:"]}
    expected = None if kind == "ollama" else "Observation:"

    body = client.chat.completions.with_raw_response.create(**kwargs).http_response.json()
    (choice,) = body["choices"]
    assert choice["message"]["content"] == "One, two."
    assert choice["finish_reason"] == "stop"
    assert choice.get("stop_reason") == expected

    with client.chat.completions.create(**kwargs, stream=True) as stream:
        chunks = [chunk.model_dump() for chunk in stream]
    (last,) = [c["choices"][0] for c in chunks if c["choices"] and c["choices"][0]["finish_reason"]]
    assert last["finish_reason"] == "stop"
    assert last.get("stop_reason") == expected
    text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"])
    assert text == "One, two."
