"""The chat route, which the application answers without Starlette's layers: a bug in it is
still the OpenAI 500 error object (never a traceback to the client), with the CORS headers
of a listed origin, and the server keeps answering."""

from __future__ import annotations

import json
import logging
import time
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st
from starlette.responses import JSONResponse

from granite_formatters._serve.backends import Usage
from granite_formatters._serve.responses import JSONBody, completion, completion_json

from .servers import Script
from .test_serve_failures import MODEL, assert_alive, prompt_for
from .test_serve_jsonbody import TEXT, VALUES

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


@pytest.mark.parametrize("kind", ["openai", "llamacpp"])
def test_a_client_gone_before_a_whole_answer_cancels_the_backend_request(
    proxy_factory: Any, fake_backend: Any, kind: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A client that does not stream and goes away while the backend is still working on
    the whole answer: the backend request is cancelled, the request is logged as 499, and
    the next request on the same server is answered."""
    fake, _ = fake_backend
    proxy = proxy_factory(kind)
    messages = [{"role": "user", "content": f"a slow whole answer ({kind})"}]
    fake.script(prompt_for({"messages": messages}), Script("word " * 100, fault="slow"))
    with fake.lock:
        cancelled_before = fake.cancelled
    body = {"model": MODEL, "messages": messages, "max_tokens": 500}
    with caplog.at_level(logging.INFO, logger="granite_formatters.serve"):
        with pytest.raises(httpx.ReadTimeout):
            httpx.post(proxy.url + "/v1/chat/completions", json=body, timeout=0.5)
        assert fake.cancelled_since(cancelled_before) == 1
        assert_alive(proxy, fake)
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("chat ")]
    assert any("status=499" in line and "error=client disconnected" in line for line in lines)


@given(VALUES)
def test_a_whole_answer_body_is_what_starlettes_json_response_writes(value: Any) -> None:
    built, starlette = JSONBody(value), JSONResponse(value)
    assert (built.status_code, built.body, built.raw_headers, built.background) == (
        starlette.status_code,
        starlette.body,
        starlette.raw_headers,
        starlette.background,
    )


COUNTS = st.integers(0, 10**12)
ENTRIES = st.lists(st.dictionaries(TEXT, VALUES, max_size=3), max_size=3)


@given(
    message=st.fixed_dictionaries(
        {"role": st.just("assistant"), "content": TEXT | st.none()},
        optional={"tool_calls": ENTRIES, "reasoning_content": TEXT, "citations": ENTRIES},
    ),
    model=TEXT,
    reason=st.sampled_from(["stop", "length"]),
    usage=st.none() | st.builds(Usage, COUNTS, COUNTS),
    logprobs=st.none() | ENTRIES,
    stop_reason=st.none() | TEXT.filter(bool) | st.integers(0, 10**6),
    warnings=st.none() | st.lists(st.fixed_dictionaries({"code": TEXT, "message": TEXT})),
)
def test_a_whole_answers_json_is_its_completion_objects(
    message: dict[str, Any],
    model: str,
    reason: str,
    usage: Usage | None,
    logprobs: list[dict[str, Any]] | None,
    stop_reason: str | int | None,
    warnings: list[dict[str, str]] | None,
) -> None:
    """A whole answer's body is written without building its object: byte for byte what
    Starlette's ``JSONResponse`` writes of :func:`completion` (id and time aside)."""
    args = (model, message, reason, usage, logprobs, stop_reason, warnings)
    body = completion_json(*args)
    written = JSONBody(body)
    assert written.body is body
    sent = json.loads(body)
    expected = {**completion(*args), "id": sent["id"], "created": sent["created"]}
    assert body == JSONResponse(expected).body
    assert written.raw_headers == JSONResponse(expected).raw_headers
    assert sent["id"].startswith("chatcmpl-") and abs(sent["created"] - time.time()) < 60


def test_a_whole_answer_sooner_than_the_watch_starts_no_disconnect_watch(
    proxy_factory: Any, fake_backend: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The disconnect watch of a client that does not stream starts only once the answer
    has taken ``WATCH_AFTER`` seconds: a sooner answer starts none (a slower one does, and
    a client gone is then seen: the test above)."""
    from granite_formatters._serve import app

    fake, _ = fake_backend
    proxy = proxy_factory("openai")
    watches: list[object] = []
    watch = app._disconnected

    def counted(receive: Any) -> Any:
        watches.append(receive)
        return watch(receive)

    monkeypatch.setattr(app, "_disconnected", counted)
    url = proxy.url + "/v1/chat/completions"
    for seconds, slow, expected in ((30.0, False, 0), (0.0, True, 1)):
        monkeypatch.setattr(app, "WATCH_AFTER", seconds)
        messages = [{"role": "user", "content": f"watched after {seconds} s"}]
        script = Script("word " * 19 + "word", fault="slow") if slow else Script("Soon.")
        fake.script(prompt_for({"messages": messages}), script)
        response = httpx.post(url, json={"model": MODEL, "messages": messages}, timeout=30)
        assert response.status_code == 200
        assert len(watches) == expected
    assert response.json()["choices"][0]["message"]["content"] == "word " * 19 + "word"


def test_the_application_mounted_under_a_prefix_answers_its_chat_route(
    fake_backend: Any,
) -> None:
    """Mounted in another Starlette application, the chat route (then reached through
    the framework's router, since the path carries the prefix) answers as at the root,
    with the same checks."""
    from starlette.applications import Starlette
    from starlette.routing import Mount

    from granite_formatters._serve import ServeConfig, create_app

    from .conftest import backend_url
    from .servers import ServerThread

    fake, thread = fake_backend
    messages = [{"role": "user", "content": "mounted under a prefix"}]
    fake.script(prompt_for({"messages": messages}), Script("Mounted."))
    inner = create_app(ServeConfig(backend=backend_url(thread, "openai"), api_key="k"))
    outer = ServerThread(
        Starlette(
            routes=[Mount("/proxy", app=inner)],
            lifespan=inner.state.server.lifespan,  # (which closes its backend client)
        )
    )
    try:
        url = outer.url + "/proxy/v1/chat/completions"
        body = {"model": MODEL, "messages": messages}
        answered = httpx.post(url, json=body, headers={"Authorization": "Bearer k"}, timeout=30)
        assert answered.status_code == 200, answered.text
        assert answered.json()["choices"][0]["message"]["content"] == "Mounted."
        refused = httpx.post(url, json=body, headers={"Authorization": "Bearer no"}, timeout=30)
        assert refused.status_code == 401
        assert refused.json()["error"]["code"] == "invalid_api_key"
        assert httpx.get(url, timeout=30).status_code == 405
    finally:
        outer.stop()
