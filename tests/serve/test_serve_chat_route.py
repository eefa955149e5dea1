"""The chat route, which the application answers without Starlette's layers: a bug in it is
still the OpenAI 500 error object (never a traceback to the client), with the CORS headers
of a listed origin, and the server keeps answering."""

from __future__ import annotations

import logging
from typing import Any

import httpx
import pytest

from .servers import Script
from .test_serve_failures import MODEL, prompt_for

ORIGIN = "https://app.example"


def test_a_bug_in_the_chat_route_is_a_500_error_object(
    proxy_factory: Any,
    fake_backend: Any,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    from granite_formatters._serve import app

    fake, _ = fake_backend
    proxy = proxy_factory("openai", cors_origins=(ORIGIN,))
    messages = [{"role": "user", "content": "a bug in the route"}]
    fake.script(prompt_for({"messages": messages}), Script("Still here."))
    body = {"model": MODEL, "messages": messages}
    url = proxy.url + "/v1/chat/completions"

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("a bug")

    with monkeypatch.context() as patch:
        patch.setattr(app, "prepare", broken)
        with caplog.at_level(logging.ERROR):
            response = httpx.post(url, json=body, headers={"Origin": ORIGIN}, timeout=30)
    assert response.status_code == 500
    assert response.json() == {
        "error": {
            "message": "internal server error",
            "type": "server_error",
            "param": None,
            "code": None,
        }
    }
    assert "a bug" not in response.text and "Traceback" not in response.text
    assert response.headers["access-control-allow-origin"] == ORIGIN
    again = httpx.post(url, json=body, headers={"Origin": ORIGIN}, timeout=30)
    assert again.status_code == 200, again.text
    assert again.json()["choices"][0]["message"]["content"] == "Still here."
