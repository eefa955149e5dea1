"""Whole answers when the client sets no token limit.

The fake backends apply each real server's defaults: vLLM generates 16 tokens when
``max_tokens`` is absent and rejects (or, like 0.33, clamps) a limit past its context;
llama.cpp's ``n_predict`` and Ollama's ``num_predict`` default to -1 (no limit).
"""

from __future__ import annotations

from typing import Any

import httpx
import openai
import pytest
from openai.types.chat import ChatCompletionMessageParam

from granite_formatters import get_formatter, list_models
from granite_formatters._serve.backends.openai import ADDED_TOKENS

from .conftest import KINDS, proxy_for
from .servers import VLLM_DEFAULT_MAX_TOKENS, Script, count_tokens
from .test_serve_answers import client_for, stream_message

#: Far more tokens (4-character pieces) than vLLM's default of 16.
LONG = " ".join(["Granite answers this in full, sentence after sentence, to the very end."] * 6)
MODELS = [model.model_id for model in list_models()]


def test_the_fake_applies_vllms_default(fake_backend: Any) -> None:
    """The fake is no kinder than vLLM: no max_tokens, or null, is 16 tokens."""
    fake, thread = fake_backend
    fake.script("raw prompt", Script(LONG))
    for body in ({}, {"max_tokens": None}):
        with httpx.stream(
            "POST", thread.url + "/v1/completions",
            json={"model": "m", "prompt": "raw prompt", "stream": True, **body},
        ) as response:  # fmt: skip
            lines = [line for line in response.iter_lines() if line.startswith("data: {")]
        assert '"finish_reason": "length"' in lines[-2]
        assert lines[-1].endswith(f'"completion_tokens": {VLLM_DEFAULT_MAX_TOKENS}}}}}')


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("model", MODELS)
def test_no_max_tokens_gives_the_whole_answer(
    proxy_factory: Any, fake_backend: Any, kind: str, model: str
) -> None:
    fake, _ = fake_backend
    proxy = proxy_factory(kind)
    messages: list[ChatCompletionMessageParam] = [
        {"role": "user", "content": f"answer in full ({model}, {kind})"}
    ]
    formatter = get_formatter(model)
    prompt = formatter.format({"messages": messages})
    fake.script(prompt, Script(LONG))
    # The whole answer: content, or reasoning for a release whose output starts inside
    # its reasoning (Granite 4.2 with thinking on, the default).
    parsed = formatter.parse(LONG, {"messages": messages}).to_openai()
    key = "content" if parsed.get("content") else "reasoning_content"
    expected = parsed[key]
    assert expected.strip()
    client = client_for(proxy.port)
    answer = client.chat.completions.create(model=model, messages=messages)
    assert answer.choices[0].finish_reason == "stop"
    assert answer.choices[0].message.model_dump()[key] == expected
    with client.chat.completions.create(
        model=model,
        messages=messages,
        stream=True,
    ) as stream:
        message, finish, _usage = stream_message(stream)
    assert finish == "stop" and message[key] == expected
    sent = fake.last_request(prompt)
    if kind == "openai":  # what is left of the context after a token per prompt byte
        assert 8 * (len(prompt.encode()) + ADDED_TOKENS) <= fake.max_model_len  # far from it
        assert sent["max_tokens"] == fake.max_model_len - len(prompt.encode()) - ADDED_TOKENS
    else:  # the backend's own default (-1) is the whole answer
        assert "n_predict" not in sent and "num_predict" not in sent.get("options", {})


MODEL = "granite-3.3-8b-instruct"


@pytest.mark.parametrize("overlong", ["reject", "clamp"])
def test_without_tokenize_the_limit_is_estimated(backend_factory: Any, overlong: str) -> None:
    """No /tokenize: the first limit assumes a token per byte, later ones learn from usage;
    every request fits the context and comes back whole."""
    fake, thread = backend_factory(tokenize=False, overlong=overlong, max_model_len=2048)
    proxy = proxy_for(thread, "openai")
    try:
        client = client_for(proxy.port)
        limits = []
        for i in range(3):
            messages: list[ChatCompletionMessageParam] = [
                {"role": "user", "content": f"question {i}: " + "many words " * 40}
            ]
            prompt = get_formatter(MODEL).format({"messages": messages})
            fake.script(prompt, Script(LONG))
            answer = client.chat.completions.create(model=MODEL, messages=messages)
            assert answer.choices[0].finish_reason == "stop"
            assert answer.choices[0].message.content == LONG
            sent = fake.last_request(prompt)["max_tokens"]
            assert count_tokens(prompt) + sent <= fake.max_model_len
            limits.append((sent, len(prompt.encode())))
        assert limits[0][0] == fake.max_model_len - limits[0][1]  # one token per byte
        assert limits[1][0] > fake.max_model_len - limits[1][1]  # learned from the usage
        assert "/tokenize" in fake.info_requests
    finally:
        proxy.stop()


def test_a_prompt_that_fills_the_context_is_a_400(backend_factory: Any) -> None:
    fake, thread = backend_factory(max_model_len=40)
    proxy = proxy_for(thread, "openai")
    try:
        with pytest.raises(openai.BadRequestError) as info:
            client_for(proxy.port).chat.completions.create(
                model=MODEL, messages=[{"role": "user", "content": "a long question " * 20}]
            )
        error = info.value.response.json()["error"]
        assert error["param"] == "messages" and "40 tokens" in error["message"]
        assert not fake.requests  # nothing was generated
    finally:
        proxy.stop()


@pytest.mark.parametrize("default", [None, 24])
def test_unknown_context_uses_default_max_tokens(backend_factory: Any, default: int | None) -> None:
    """A backend that lists no max_model_len: --default-max-tokens, else the backend's own
    default (which, on a vLLM-like server, is 16 tokens: why the option exists)."""
    fake, thread = backend_factory(served=())
    proxy = proxy_for(thread, "openai", default_max_tokens=default)
    try:
        messages: list[ChatCompletionMessageParam] = [{"role": "user", "content": "how long?"}]
        prompt = get_formatter(MODEL).format({"messages": messages})
        fake.script(prompt, Script(LONG))
        answer = client_for(proxy.port).chat.completions.create(model=MODEL, messages=messages)
        assert answer.choices[0].finish_reason == "length"
        assert answer.usage is not None
        assert answer.usage.completion_tokens == (default or VLLM_DEFAULT_MAX_TOKENS)
        assert fake.last_request(prompt).get("max_tokens") == default
    finally:
        proxy.stop()


def test_tokenize_is_asked_only_near_the_context_limit(backend_factory: Any) -> None:
    """A prompt far from the context's size costs no /tokenize round trip: what is left is
    the context less a token per byte (no tokenizer makes more); near the limit the
    backend counts the prompt, once per request, and the limit is exact."""
    fake, thread = backend_factory(max_model_len=4096)
    proxy = proxy_for(thread, "openai")
    try:
        client = client_for(proxy.port)
        cases = [("short", "What is Granite?", 0), ("long", "many words " * 150, 1)]
        for name, content, tokenizes in cases:
            messages: list[ChatCompletionMessageParam] = [{"role": "user", "content": content}]
            prompt = get_formatter(MODEL).format({"messages": messages})
            fake.script(prompt, Script(LONG))
            with fake.lock:
                before = fake.info_requests.count("/tokenize")
            for stream in (False, True):
                if stream:
                    with client.chat.completions.create(
                        model=MODEL, messages=messages, stream=True
                    ) as chunks:
                        message, finish, _usage = stream_message(chunks)
                    text = message["content"]
                else:
                    answer = client.chat.completions.create(model=MODEL, messages=messages)
                    finish, text = (
                        answer.choices[0].finish_reason,
                        answer.choices[0].message.content,
                    )
                assert (finish, text) == ("stop", LONG), name
                sent = fake.last_request(prompt)["max_tokens"]
                size = len(prompt.encode())
                if tokenizes:
                    assert 8 * (size + ADDED_TOKENS) > fake.max_model_len  # near the limit
                    assert sent == fake.max_model_len - count_tokens(prompt), name
                else:
                    assert sent == fake.max_model_len - size - ADDED_TOKENS, name
            with fake.lock:
                asked = fake.info_requests.count("/tokenize") - before
            assert asked == 2 * tokenizes, name  # per request (two: streamed and not)
    finally:
        proxy.stop()
