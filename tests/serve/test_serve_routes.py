"""The OpenAI fit of every route: ``/v1/models/{id}``, OpenAI error objects everywhere,
short one-line texts, and ``/health`` (liveness) beside ``/ready`` (the backend answers)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import httpx
import openai
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from granite_formatters import list_models
from granite_formatters._serve import ServeConfig, create_app

from .conftest import KINDS, backend_url
from .outputs import USER
from .servers import ServerThread
from .test_serve_answers import client_for
from .test_serve_failures import MODEL, error_of


def is_error_object(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"message", "type", "param", "code"}
    message = body["error"]["message"]
    assert message and "\n" not in message and len(message) < 300
    return dict(body["error"])


def test_models_retrieve_with_the_openai_client(proxy_factory: Any) -> None:
    client = client_for(proxy_factory("openai").port)
    for model in list_models():
        got = client.models.retrieve(model.model_id)
        assert (got.id, got.object, got.owned_by) == (model.model_id, "model", model.plugin.name)
    alias = client.models.retrieve("ibm-granite/granite-3.3-8b-instruct")  # a name with a slash
    assert alias.id == "ibm-granite/granite-3.3-8b-instruct"
    with pytest.raises(openai.NotFoundError) as info:
        client.models.retrieve("llama-3-70b")
    error = error_of(info.value)
    assert (error["param"], error["code"]) == ("model", "model_not_found")


def test_models_retrieve_with_a_model_map(proxy_factory: Any) -> None:
    proxy = proxy_factory("ollama", models={"granite3.3:8b": "granite-gguf-q4"})
    client = client_for(proxy.port)
    assert client.models.retrieve("granite3.3:8b").id == "granite3.3:8b"
    with pytest.raises(openai.NotFoundError):
        client.models.retrieve(MODEL)  # served by a plugin, but not by this server


def test_models_retrieve_needs_the_key(proxy_factory: Any) -> None:
    proxy = proxy_factory("openai", api_key="k")
    is_error_object(httpx.get(f"{proxy.url}/v1/models/{MODEL}"), 401)
    assert client_for(proxy.port, api_key="k").models.retrieve(MODEL).id == MODEL


def test_unknown_model_is_one_short_line(proxy_factory: Any) -> None:
    proxy = proxy_factory("openai")
    messages = []
    for name in ("granite-3.3-8b-instruc", "evil\nname", "x" * 5000):
        with pytest.raises(openai.NotFoundError) as info:
            client_for(proxy.port).chat.completions.create(model=name, messages=USER)
        is_error_object(info.value.response, 404)
        messages.append(error_of(info.value)["message"])
    assert not any("granite-format models" in m or "`" in m for m in messages)
    assert "did you mean 'granite-3.3-8b-instruct'" in messages[0]
    assert "'evil\\nname'" in messages[1]


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("GET", "/", 404),
        ("GET", "/v1/completions", 404),
        ("POST", "/v1/embeddings", 404),
        ("GET", "/v1/chat/completions", 405),
        ("DELETE", "/v1/models", 405),
        ("POST", "/health", 405),
    ],
)
def test_every_route_error_is_an_openai_error_object(
    proxy_factory: Any, method: str, path: str, status: int
) -> None:
    proxy = proxy_factory("openai")
    response = httpx.request(method, proxy.url + path)
    error = is_error_object(response, status)
    if status == 405:
        assert "allow" in response.headers
        assert error["type"] == "invalid_request_error"


def test_401_413_415_are_error_objects(proxy_factory: Any) -> None:
    keyed = proxy_factory("openai", api_key="k")
    is_error_object(httpx.get(keyed.url + "/v1/models"), 401)
    small = proxy_factory("openai", max_body_bytes=10)
    is_error_object(httpx.post(small.url + "/v1/chat/completions", json={"x": "y" * 20}), 413)
    is_error_object(httpx.post(small.url + "/v1/chat/completions", content=b"{}"), 415)


def _probe_backend() -> Starlette:
    """Answers only the GET each backend type's readiness probe asks."""

    async def ok(request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    paths = ["/v1/models", "/health", "/api/tags"]
    return Starlette(routes=[Route(p, ok, methods=["GET"]) for p in paths])


@pytest.fixture(scope="module")
def probe_backend() -> Iterator[ServerThread]:
    thread = ServerThread(_probe_backend())
    yield thread
    thread.stop()


@pytest.mark.parametrize("kind", KINDS)
def test_ready_says_whether_the_backend_answers(probe_backend: ServerThread, kind: str) -> None:
    up = ServerThread(
        create_app(ServeConfig(backend=backend_url(probe_backend, kind), backend_type=kind))
    )
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    down = ServerThread(
        create_app(ServeConfig(backend=f"http://127.0.0.1:{port}/v1", backend_type=kind))
    )
    try:
        assert httpx.get(up.url + "/ready").json() == {"status": "ready"}
        error = is_error_object(httpx.get(down.url + "/ready"), 503)
        assert str(port) not in error["message"]
        for server in (up, down):  # liveness does not depend on the backend
            assert httpx.get(server.url + "/health").json() == {"status": "ok"}
    finally:
        up.stop()
        down.stop()
