"""A plugin registered or unregistered while the server runs is seen by the next request
(the formatter of a name is looked up through the plugin host, whose memo a change of
plugins drops; serve keeps no table of its own)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from granite_formatters import register_plugin, unregister_plugin

from .servers import Script
from support.toy_plugins import EchoInput, toy_plugin

#: A name no bundled plugin serves.
NAME = "plugin-change-test-model"


class _FirstInput(EchoInput):
    def __init__(self) -> None:
        super().__init__("first formatter")


class _SecondInput(EchoInput):
    def __init__(self) -> None:
        super().__init__("second formatter")


@pytest.fixture
def plugins() -> Iterator[list[str]]:
    """The names of the plugins a test registers, unregistered after it."""
    names: list[str] = []
    yield names
    for name in names:
        unregister_plugin(name)


def _register(names: list[str], name: str, input_processor: type[EchoInput]) -> None:
    register_plugin(toy_plugin({"model_id": NAME, "input_processor": input_processor}), name=name)
    names.append(name)


def _content(proxy: Any, stream: bool) -> str:
    body = {"model": NAME, "messages": [{"role": "user", "content": "Hi"}], "max_tokens": 50}
    if not stream:
        response = httpx.post(proxy.url + "/v1/chat/completions", json=body, timeout=30)
        assert response.status_code == 200, response.text
        content: str = response.json()["choices"][0]["message"]["content"]
        return content
    text = httpx.post(
        proxy.url + "/v1/chat/completions", json={**body, "stream": True}, timeout=30
    ).text
    assert text.endswith("data: [DONE]\n\n"), text
    return text


@pytest.mark.parametrize("stream", [False, True])
def test_a_plugin_registered_after_a_name_was_served_answers_the_next_request(
    proxy_factory: Any, fake_backend: Any, plugins: list[str], stream: bool
) -> None:
    fake, _ = fake_backend
    fake.script("[first formatter]", Script("the first answer"))
    fake.script("[second formatter]", Script("the second answer"))
    proxy = proxy_factory("openai")
    _register(plugins, f"first-{stream}", _FirstInput)
    assert "THE FIRST ANSWER" in _content(proxy, stream)
    unregister_plugin(plugins.pop())
    _register(plugins, f"second-{stream}", _SecondInput)
    assert "THE SECOND ANSWER" in _content(proxy, stream)
    unregister_plugin(plugins.pop())
    response = httpx.post(
        proxy.url + "/v1/chat/completions",
        json={"model": NAME, "messages": [{"role": "user", "content": "Hi"}]},
        timeout=30,
    )
    assert response.status_code == 404, response.text
    assert response.json()["error"]["code"] == "model_not_found"
