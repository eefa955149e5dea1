"""What llama.cpp behind serve used to lose: the control tokens of the answer (printed only
with ``--special``, or per request with ``preserved_tokens``) and logprobs (the chat shape of
its ``/v1/completions``, ``n_probs`` on ``/completion``); and the warning when a backend
removed the special tokens anyway."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from granite_formatters import get_formatter
from granite_formatters._serve.backends import LlamaCppBackend, OllamaBackend, OpenAIBackend
from granite_formatters._serve.backends.logprobs import chat_entries, choice_logprobs

from .conftest import proxy_for
from .outputs import G33, PLAIN_ANSWER
from .servers import FakeBackend, Script, ServerThread, cut_text
from .test_serve_answers import client_for, expected_message, stream_message

MODEL = "granite-3.3-8b-instruct"
RAG = next(case for case in G33 if case.name == "rag")
CALL = next(case for case in G33 if case.name == "tool_call")


def prompt_of(request: dict[str, Any]) -> str:
    return get_formatter(MODEL).format(request)


@pytest.fixture(scope="module")
def llama_openai(
    backend_factory: Any,
) -> Iterator[tuple[FakeBackend, ServerThread]]:
    """serve (``openai`` type) in front of llama.cpp's ``/v1/completions``, no ``--special``."""
    fake, thread = backend_factory(flavour="llamacpp")
    proxy = proxy_for(thread, "openai")
    yield fake, proxy
    proxy.stop()


def ask(proxy: ServerThread, request: dict[str, Any], stream: bool, **options: Any) -> Any:
    body = {"model": MODEL, **request, **options}
    if not stream:
        return httpx.post(proxy.url + "/v1/chat/completions", json=body, timeout=30)
    known = ("model", "messages", "tools", "logprobs", "top_logprobs")
    extra = {k: v for k, v in body.items() if k not in known}
    standard = {k: v for k, v in body.items() if k in known}
    return client_for(proxy.port).chat.completions.create(**standard, stream=True, extra_body=extra)


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
@pytest.mark.parametrize("case", [RAG, CALL], ids=lambda c: c.name)
def test_llamacpp_prints_the_answers_control_tokens_per_request(
    proxy_factory: Any, fake_backend: Any, case: Any, stream: bool
) -> None:
    """A default llama-server (no ``--special``): serve asks for the release's special
    tokens with ``preserved_tokens``, so citations and tool calls arrive whole."""
    fake, _ = fake_backend
    proxy = proxy_factory("llamacpp")
    request = {**case.request(), "messages": [{"role": "user", "content": f"kept {stream}"}]}
    fake.script(prompt_of(request), Script(case.output, cut="markers"))
    expected = expected_message(MODEL, case)
    if stream:
        with ask(proxy, request, True) as chunks:
            message, _, _ = stream_message(chunks)
    else:
        response = ask(proxy, request, False)
        assert response.status_code == 200, response.text
        assert "warnings" not in response.json()
        message = response.json()["choices"][0]["message"]
    if case.cited:
        assert message["citations"] == expected["citations"] and len(message["citations"]) == 2
        assert message["content"] == case.content
    else:
        assert message["tool_calls"][0]["function"]["name"] == "get_weather"
    sent = fake.last_request(prompt_of(request))
    assert "<|start_of_cite|>" in sent["preserved_tokens"]
    assert "<|end_of_text|>" not in sent["preserved_tokens"]  # (the end of the answer)


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_removed_special_tokens_are_a_warning_to_the_client_and_the_log(
    llama_openai: tuple[FakeBackend, ServerThread],
    caplog: pytest.LogCaptureFixture,
    stream: bool,
) -> None:
    """llama.cpp's ``/v1/completions`` without ``--special`` ignores
    ``skip_special_tokens``: the citations cannot be found, and the answer says why and
    what to do, naming llama-server's switch."""
    fake, proxy = llama_openai
    request = {**RAG.request(), "messages": [{"role": "user", "content": f"lost {stream}"}]}
    fake.script(prompt_of(request), Script(RAG.output))
    with caplog.at_level(logging.INFO, logger="granite_formatters.serve"):
        if stream:
            warnings = None
            with httpx.stream(
                "POST",
                proxy.url + "/v1/chat/completions",
                json={"model": MODEL, **request, "stream": True},
                timeout=30,
            ) as response:
                events = [line[6:] for line in response.iter_lines() if line.startswith("data: ")]
            chunks = [json.loads(e) for e in events if e != "[DONE]"]
            finals = [c for c in chunks if c["choices"] and c["choices"][0]["finish_reason"]]
            assert len(finals) == 1
            warnings = finals[0]["warnings"]
            assert all("warnings" not in c for c in chunks if c is not finals[0])
            content = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks)
        else:
            response = ask(proxy, request, False)
            assert response.status_code == 200, response.text
            warnings = response.json()["warnings"]
            content = response.json()["choices"][0]["message"]["content"]
        for _ in range(200):  # a stream's line comes after its last event: wait (bounded)
            if any(" warning=" in r.getMessage() for r in caplog.records):
                break
            time.sleep(0.025)
    assert content == RAG_CONTENT_WITHOUT_CITATIONS
    (warning,) = warnings
    assert warning["code"] == "special_tokens_dropped"
    assert "--special" in warning["message"] and "skip_special_tokens: false" in warning["message"]
    lines = [r.getMessage() for r in caplog.records if r.name == "granite_formatters.serve"]
    assert any(line.startswith("chat ") and line.endswith(" warning=special_tokens_dropped")
               for line in lines), lines  # fmt: skip


RAG_CONTENT_WITHOUT_CITATIONS = get_formatter(MODEL).parse(
    RAG.output.replace("<|start_of_cite|>", "").replace("<|end_of_cite|>", "")
    .replace("<|start_of_plugin|>", "").replace("<|end_of_plugin|>", ""),
    RAG.request(),
).content  # fmt: skip


def test_no_warning_when_llama_server_runs_with_special(backend_factory: Any) -> None:
    fake, thread = backend_factory(flavour="llamacpp", special=True)
    proxy = proxy_for(thread, "openai")
    try:
        request = {**RAG.request(), "messages": [{"role": "user", "content": "--special"}]}
        fake.script(prompt_of(request), Script(RAG.output))
        response = ask(proxy, request, False)
        assert response.status_code == 200, response.text
        assert "warnings" not in response.json()
        assert len(response.json()["choices"][0]["message"]["citations"]) == 2
    finally:
        proxy.stop()


def test_each_backend_types_advice_names_its_own_switch() -> None:
    assert "skip_special_tokens: false" in OpenAIBackend.special_tokens_advice
    assert "--special" in OpenAIBackend.special_tokens_advice
    assert "--special" in LlamaCppBackend.special_tokens_advice
    assert "skip_special_tokens" not in LlamaCppBackend.special_tokens_advice
    assert "Ollama" in OllamaBackend.special_tokens_advice
    assert "skip_special_tokens" not in OllamaBackend.special_tokens_advice


def pieces_of(text: str) -> list[str]:
    return cut_text(text, "pieces")


@pytest.mark.parametrize("top", [None, 2])
@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
@pytest.mark.parametrize("where", ["llamacpp", "openai-llamacpp"])
def test_logprobs_from_llamacpp(
    proxy_factory: Any,
    fake_backend: Any,
    llama_openai: tuple[FakeBackend, ServerThread],
    where: str,
    stream: bool,
    top: int | None,
) -> None:
    """Both ways to llama.cpp answer logprobs: one entry per token, the alternatives cut to
    what was asked for (llama.cpp is asked for at least one)."""
    if where == "llamacpp":
        fake, _ = fake_backend
        proxy = proxy_factory("llamacpp")
    else:
        fake, proxy = llama_openai
    messages = [{"role": "user", "content": f"logprobs {where} {stream} {top}"}]
    fake.script(prompt_of({"messages": messages}), Script(PLAIN_ANSWER))
    options: dict[str, Any] = {"messages": messages, "logprobs": True}
    if top is not None:
        options["top_logprobs"] = top
    entries: list[dict[str, Any]] = []
    if stream:
        with ask(proxy, options, True) as chunks:
            for chunk in chunks:
                if chunk.choices and chunk.choices[0].logprobs is not None:
                    entries += [t.model_dump() for t in chunk.choices[0].logprobs.content or []]
    else:
        response = ask(proxy, options, False)
        assert response.status_code == 200, response.text
        entries = response.json()["choices"][0]["logprobs"]["content"]
    assert [e["token"] for e in entries] == pieces_of(PLAIN_ANSWER)
    assert all(e["logprob"] == -0.25 for e in entries)
    expected_tops = [[e["token"], "?"] for e in entries] if top == 2 else [[] for _ in entries]
    assert [[t["token"] for t in e["top_logprobs"]] for e in entries] == expected_tops
    sent = fake.last_request(prompt_of({"messages": messages}))
    assert sent["n_probs" if where == "llamacpp" else "logprobs"] == (top or 1)


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_text_without_logprobs_is_a_502_never_an_empty_list(
    proxy_factory: Any, fake_backend: Any, stream: bool
) -> None:
    fake, _ = fake_backend
    proxy = proxy_factory("llamacpp")
    messages = [{"role": "user", "content": f"no logprobs {stream}"}]
    fake.script(prompt_of({"messages": messages}), Script(PLAIN_ANSWER, fault="no_logprobs"))
    body = {"model": MODEL, "messages": messages, "logprobs": True, "stream": stream}
    response = httpx.post(proxy.url + "/v1/chat/completions", json=body, timeout=30)
    assert response.status_code == 502, response.text
    assert response.json()["error"]["message"] == (
        "the backend sent no logprobs with the answer's tokens"
    )


def test_older_llamacpp_probs_are_read() -> None:
    """llama.cpp's ``completion_probabilities`` before the chat shape: probabilities."""
    old = [
        {
            "content": "Hi",
            "probs": [{"tok_str": "Hi", "prob": 0.5}, {"tok_str": "Ho", "prob": 0.25}],
        }
    ]
    (entry,) = chat_entries(old)
    assert entry["token"] == "Hi" and entry["logprob"] == pytest.approx(-0.6931471805599453)
    assert [t["token"] for t in entry["top_logprobs"]] == ["Hi", "Ho"]
    assert entry["top_logprobs"][1]["logprob"] == pytest.approx(-1.3862943611198906)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["content", "tokens", "token", "logprob", "top_logprobs", "probs",
                         "tok_str", "prob", "bytes", "token_logprobs", "id"]) | st.text(max_size=3),
        inner, max_size=4),
    max_leaves=12,
)  # fmt: skip


@given(JSON)
def test_logprob_readers_never_raise(data: Any) -> None:
    for entry in (*choice_logprobs(data), *chat_entries(data)):
        assert isinstance(entry["token"], str) and isinstance(entry["top_logprobs"], list)
        assert all(isinstance(b, int) and 0 <= b < 256 for b in entry["bytes"])
