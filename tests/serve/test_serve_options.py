"""Sampling parameters as each backend names them, token limits, logprobs, model maps, logging."""

from __future__ import annotations

import logging
from typing import Any

import httpx
import openai
import pytest
from openai.types.chat import ChatCompletionMessageParam

from granite_formatters import get_formatter, list_models

from .conftest import KINDS, proxy_for
from .outputs import G33, PLAIN_ANSWER, USER
from .servers import Script, count_tokens
from .test_serve_answers import client_for, stream_message

MODEL = "granite-3.3-8b-instruct"
#: The release's own stop strings, sent before the client's (none until the formatter has them).
RELEASE_STOP: list[str] = list(getattr(get_formatter(MODEL), "stop_strings", ()))


#: What llama.cpp is asked to print of the release's control tokens: all but the end of text.
_RELEASE = get_formatter(MODEL).release
assert _RELEASE is not None
PRESERVED = [t for t in _RELEASE.special_tokens.tokens if t != "<|end_of_text|>"]
assert "<|start_of_cite|>" in PRESERVED and "<|tool_call|>" in PRESERVED


def prompt_for(request: dict[str, Any]) -> str:
    return get_formatter(MODEL).format(request)


@pytest.mark.parametrize("kind", KINDS)
def test_sampling_parameters_reach_the_backend_under_its_names(
    proxy_factory: Any, fake_backend: Any, kind: str
) -> None:
    fake, _ = fake_backend
    proxy = proxy_factory(kind)
    messages: list[ChatCompletionMessageParam] = [{"role": "user", "content": f"sampling ({kind})"}]
    prompt = prompt_for({"messages": messages})
    fake.script(prompt, Script(PLAIN_ANSWER))
    client = client_for(proxy.port)
    client.chat.completions.create(
        model=MODEL,
        messages=messages,
        temperature=0.25,
        top_p=0.5,
        max_tokens=77,
        stop=["\n\n", "END"],
        seed=7,
    )
    sent = fake.last_request(prompt)
    assert sent["prompt"] == prompt
    # (a client that does not stream: the answer is asked for whole, in one body)
    if kind == "openai":
        assert {k: v for k, v in sent.items() if k not in ("prompt",)} == {
            "model": MODEL,
            "stream": False,
            "skip_special_tokens": False,
            "spaces_between_special_tokens": False,
            "stop": [*RELEASE_STOP, "\n\n", "END"],
            "temperature": 0.25,
            "top_p": 0.5,
            "seed": 7,
            "max_tokens": 77,
        }
    elif kind == "llamacpp":
        assert {k: v for k, v in sent.items() if k != "prompt"} == {
            "stream": False,
            "preserved_tokens": PRESERVED,
            "stop": [*RELEASE_STOP, "\n\n", "END"],
            "temperature": 0.25,
            "top_p": 0.5,
            "seed": 7,
            "n_predict": 77,
        }
    else:
        assert {k: v for k, v in sent.items() if k != "prompt"} == {
            "model": MODEL,
            "raw": True,
            "stream": False,
            "options": {
                "stop": [*RELEASE_STOP, "\n\n", "END"],
                "temperature": 0.25,
                "top_p": 0.5,
                "seed": 7,
                "num_predict": 77,
            },
        }
    # max_completion_tokens wins over max_tokens; a single stop string is a list of one.
    client.chat.completions.create(
        model=MODEL, messages=messages, max_completion_tokens=5, max_tokens=9, stop="X"
    )
    sent = fake.last_request(prompt)
    limit = {"openai": sent.get("max_tokens"), "llamacpp": sent.get("n_predict")}.get(
        kind, sent.get("options", {}).get("num_predict")
    )
    assert limit == 5
    assert (sent.get("stop") or sent["options"]["stop"]) == [*RELEASE_STOP, "X"]


@pytest.mark.parametrize("kind", KINDS)
def test_token_limit_finish_reason_is_length(
    proxy_factory: Any, fake_backend: Any, kind: str
) -> None:
    fake, _ = fake_backend
    proxy = proxy_factory(kind)
    case = G33[1]
    messages: list[ChatCompletionMessageParam] = [
        {"role": "user", "content": f"cut short ({kind})"}
    ]
    request = {**case.request(), "messages": messages}
    cut = case.output[:39]  # "<think>The user asks about live weather"
    fake.script(prompt_for(request), Script(cut, finish="length"))
    client = client_for(proxy.port)
    answer = client.chat.completions.create(
        model=MODEL, messages=messages, extra_body=case.extra, max_tokens=10
    )
    assert answer.choices[0].finish_reason == "length"
    extra = answer.choices[0].message.model_extra
    assert extra is not None
    assert extra["reasoning_content"] == cut[len("<think>") :]
    with client.chat.completions.create(
        model=MODEL, messages=messages, extra_body=case.extra, max_tokens=10, stream=True
    ) as stream:
        message, finish, usage = stream_message(stream)
    assert finish == "length" and usage is None
    assert message["reasoning_content"] == cut[len("<think>") :]


def test_logprobs_with_the_openai_backend(proxy_factory: Any, fake_backend: Any) -> None:
    fake, _ = fake_backend
    proxy = proxy_factory("openai")
    messages: list[ChatCompletionMessageParam] = [{"role": "user", "content": "logprobs please"}]
    prompt = prompt_for({"messages": messages})
    fake.script(prompt, Script(PLAIN_ANSWER, cut="pieces"))
    client = client_for(proxy.port)
    answer = client.chat.completions.create(
        model=MODEL, messages=messages, logprobs=True, top_logprobs=2
    )
    assert fake.last_request(prompt)["logprobs"] == 2
    assert "preserved_tokens" not in fake.last_request(prompt)  # (llama.cpp's own field)
    logprobs = answer.choices[0].logprobs
    assert logprobs is not None and logprobs.content is not None
    tokens = logprobs.content
    assert "".join(t.token for t in tokens) == PLAIN_ANSWER
    assert all(t.logprob == -0.25 and [a.token for a in t.top_logprobs][1] == "?" for t in tokens)
    got: list[str] = []
    with client.chat.completions.create(
        model=MODEL, messages=messages, logprobs=True, stream=True
    ) as stream:
        for chunk in stream:
            if chunk.choices and chunk.choices[0].logprobs is not None:
                got.extend(t.token for t in chunk.choices[0].logprobs.content or [])
    assert "".join(got) == PLAIN_ANSWER


def test_logprobs_elsewhere_is_a_clear_400(proxy_factory: Any) -> None:
    proxy = proxy_factory("ollama")
    with pytest.raises(openai.BadRequestError) as info:
        client_for(proxy.port).chat.completions.create(model=MODEL, messages=USER, logprobs=True)
    assert info.value.response.json()["error"]["param"] == "logprobs"


def test_model_map(proxy_factory: Any, fake_backend: Any) -> None:
    fake, _ = fake_backend
    proxy = proxy_factory(
        "ollama", models={"granite3.3:8b": "granite-gguf-q4", "granite3.2": "granite3.2"}
    )
    listed = client_for(proxy.port).models.list()
    assert [m.id for m in listed.data] == ["granite3.3:8b", "granite3.2"]
    messages: list[ChatCompletionMessageParam] = [
        {"role": "user", "content": "which backend model?"}
    ]
    prompt = prompt_for({"messages": messages})
    fake.script(prompt, Script(PLAIN_ANSWER))
    answer = client_for(proxy.port).chat.completions.create(
        model="granite3.3:8b", messages=messages
    )
    assert answer.model == "granite3.3:8b"
    assert fake.last_request(prompt)["model"] == "granite-gguf-q4"
    with pytest.raises(openai.NotFoundError):
        client_for(proxy.port).chat.completions.create(model=MODEL, messages=messages)


def test_models_lists_the_installed_plugins_models(proxy_factory: Any) -> None:
    proxy = proxy_factory("openai")
    listed = client_for(proxy.port).models.list()
    assert [m.id for m in listed.data] == [m.model_id for m in list_models()]
    assert httpx.get(proxy.url + "/health").json() == {"status": "ok"}


def test_tool_choice_none_hides_the_tools(proxy_factory: Any, fake_backend: Any) -> None:
    fake, _ = fake_backend
    proxy = proxy_factory("openai")
    case = G33[2]
    assert case.tools is not None
    messages: list[ChatCompletionMessageParam] = [{"role": "user", "content": "no tools this time"}]
    prompt = prompt_for({"messages": messages})
    fake.script(prompt, Script(PLAIN_ANSWER))
    answer = client_for(proxy.port).chat.completions.create(
        model=MODEL, messages=messages, tools=case.tools, tool_choice="none"
    )
    assert answer.choices[0].message.content == PLAIN_ANSWER
    assert fake.last_request(prompt)["prompt"] == prompt


def test_one_log_line_per_request_without_the_prompt(
    proxy_factory: Any, fake_backend: Any, caplog: pytest.LogCaptureFixture
) -> None:
    fake, _ = fake_backend
    proxy = proxy_factory("openai")
    secret = "my secret question about Zürich"
    messages: list[ChatCompletionMessageParam] = [{"role": "user", "content": secret}]
    fake.script(prompt_for({"messages": messages}), Script(PLAIN_ANSWER, cut="pieces"))
    client = client_for(proxy.port)
    with caplog.at_level(logging.DEBUG, logger="granite_formatters.serve"):
        client.chat.completions.create(model=MODEL, messages=messages)
        with client.chat.completions.create(model=MODEL, messages=messages, stream=True) as stream:
            list(stream)
        with pytest.raises(openai.NotFoundError):
            client.chat.completions.create(model="nope-model", messages=messages)
    lines = [r.getMessage() for r in caplog.records if r.name == "granite_formatters.serve"]
    assert len(lines) == 3, lines
    assert lines[0].startswith(f"chat model={MODEL} stream=no status=200 latency_ms=")
    assert lines[1].startswith(f"chat model={MODEL} stream=yes status=200 latency_ms=")
    tokens = count_tokens(prompt_for({"messages": messages}))
    assert f"prompt_tokens={tokens} completion_tokens=" in lines[1]
    assert lines[2].startswith("chat model=nope-model stream=no status=404")
    assert not any(secret in r.getMessage() for r in caplog.records)


def test_prompt_logging_is_opt_in(
    proxy_factory: Any, fake_backend: Any, caplog: pytest.LogCaptureFixture
) -> None:
    fake, _ = fake_backend
    proxy = proxy_factory("openai", log_prompts=True)
    messages: list[ChatCompletionMessageParam] = [{"role": "user", "content": "log this prompt"}]
    fake.script(prompt_for({"messages": messages}), Script(PLAIN_ANSWER))
    with caplog.at_level(logging.INFO, logger="granite_formatters.serve"):
        client_for(proxy.port).chat.completions.create(model=MODEL, messages=messages)
    assert any(
        "log this prompt" in r.getMessage() and r.levelno == logging.INFO for r in caplog.records
    )


@pytest.mark.parametrize("kind", KINDS)
def test_backend_connections_are_reused(fake_backend: Any, kind: str) -> None:
    """The proxy reads each backend stream to its end, so keep-alive works: sequential
    requests through a new proxy (an empty pool) all go over one connection."""
    fake, thread = fake_backend
    proxy = proxy_for(thread, kind)
    messages: list[ChatCompletionMessageParam] = [
        {"role": "user", "content": f"keep-alive ({kind})"}
    ]
    fake.script(prompt_for({"messages": messages}), Script(PLAIN_ANSWER))
    client = client_for(proxy.port)
    with fake.lock:
        first = len(fake.peers)
    try:
        for stream in (False, True, False, True):
            if stream:
                with client.chat.completions.create(
                    model=MODEL, messages=messages, stream=True
                ) as chunks:
                    list(chunks)
            else:
                client.chat.completions.create(model=MODEL, messages=messages)
    finally:
        proxy.stop()
    with fake.lock:
        peers = fake.peers[first:]
    assert len(peers) == 4 and len(set(peers)) == 1, peers
