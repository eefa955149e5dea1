"""The OpenAI top-level ``reasoning_effort`` through serve: rendered as the library renders
it where the release reads it (4.2), a 400 naming the field where it does not; the docs'
two tables are the code's one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from granite_formatters import get_formatter
from granite_formatters._serve.effort import effort_table

from .servers import Script

G42 = "granite-4.2-30b"
DOCS = Path(__file__).resolve().parents[2] / "docs"


def post(proxy: Any, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(proxy.url + "/v1/chat/completions", json=body, timeout=30)


@pytest.mark.parametrize("kind", ["openai", "llamacpp"])
def test_none_turns_4_2_thinking_off(proxy_factory: Any, fake_backend: Any, kind: str) -> None:
    fake, _ = fake_backend
    messages = [{"role": "user", "content": f"effort none {kind}"}]
    request = {"messages": messages, "reasoning_effort": "none"}
    prompt = get_formatter(G42).format(request)
    assert prompt.endswith("<|im_start|>assistant\n<think></think>")
    fake.script(prompt, Script("Just the answer."))
    response = post(proxy_factory(kind), {"model": G42, **request, "max_tokens": 50})
    assert response.status_code == 200, response.text  # (the fake knows that prompt only)
    message = response.json()["choices"][0]["message"]
    assert message["content"] == "Just the answer." and "reasoning_content" not in message


@pytest.mark.parametrize("stream", [False, True])
def test_low_asks_4_2_for_low_effort(proxy_factory: Any, fake_backend: Any, stream: bool) -> None:
    fake, _ = fake_backend
    messages = [{"role": "user", "content": f"effort low {stream}"}]
    request = {"messages": messages, "reasoning_effort": "low"}
    prompt = get_formatter(G42).format(request)
    assert "{reasoning effort: low}" in prompt and prompt.endswith("<think>\n")
    fake.script(prompt, Script("Short thought.\n</think>\n\nThe answer."))
    body = {"model": G42, **request, "max_tokens": 50, "stream": stream}
    response = post(proxy_factory("openai"), body)
    assert response.status_code == 200, response.text
    if not stream:
        message = response.json()["choices"][0]["message"]
        assert (message["reasoning_content"], message["content"]) == (
            "Short thought.",
            "The answer.",
        )


@pytest.mark.parametrize(
    ("model", "hint"),
    [
        ("granite-3.3-8b-instruct", "chat_template_kwargs.thinking"),
        ("granite-3.2-8b-instruct", "chat_template_kwargs.thinking"),
        ("granite-4.0-1b", ""),
    ],
)
def test_releases_without_effort_refuse_it(proxy_factory: Any, model: str, hint: str) -> None:
    body = {"model": model, "messages": [{"role": "user", "content": "hi"}]}
    response = post(proxy_factory("openai"), {**body, "reasoning_effort": "low"})
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["param"] == "reasoning_effort"
    assert error["message"].startswith(f"reasoning_effort is not supported by {model!r}")
    assert hint in error["message"]


def test_a_bad_effort_value_names_the_field(proxy_factory: Any) -> None:
    body = {"model": G42, "messages": [{"role": "user", "content": "hi"}], "reasoning_effort": 3}
    response = post(proxy_factory("openai"), body)
    assert response.status_code == 400, response.text
    assert response.json()["error"]["param"] == "reasoning_effort"


@pytest.mark.parametrize("doc", ["serving.md", "granite42.md"])
def test_the_docs_effort_tables_are_the_code_table(doc: str) -> None:
    text = (DOCS / doc).read_text(encoding="utf-8")
    start = text.index("-->\n", text.index("<!-- reasoning_effort table")) + len("-->\n")
    end = text.index("<!-- end of the reasoning_effort table -->")
    assert text[start:end] == effort_table()
    assert '| Granite 4.2 | `"none"` turns thinking off' in text
