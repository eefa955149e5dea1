"""Safe by default: DNS rebinding, cross-origin browser requests, Content-Type, API keys, and
error texts that keep the backend's URL and words to the server."""

from __future__ import annotations

import json
import logging
import socket
from typing import Any

import httpx
import pytest
from openai.types.chat import ChatCompletionMessageParam

from granite_formatters._serve import ServeConfig, create_app
from granite_formatters._serve.guard import is_loopback

from .outputs import USER
from .servers import Script, ServerThread
from .test_serve_answers import client_for
from .test_serve_failures import MODEL, assert_alive, prompt_for

JSON = {"Content-Type": "application/json"}
BODY = json.dumps({"model": MODEL, "messages": USER})


def chat(proxy: ServerThread, headers: dict[str, str], body: str = BODY) -> httpx.Response:
    return httpx.post(proxy.url + "/v1/chat/completions", content=body, headers=headers)


def refused(response: httpx.Response, code: str) -> bool:
    return response.status_code == 403 and response.json()["error"]["code"] == code


@pytest.mark.parametrize(
    "host", ["attacker.example", "attacker.example:8000", "127.0.0.1.nip.io:80", "10.1.2.3"]
)
def test_dns_rebinding_host_is_refused_without_a_key(
    proxy_factory: Any, fake_backend: Any, host: str
) -> None:
    fake, _ = fake_backend
    proxy = proxy_factory("openai")
    fake.script(prompt_for({"messages": USER}), Script("answer"))
    assert refused(chat(proxy, {**JSON, "Host": host}), "host_not_allowed")
    assert refused(httpx.get(proxy.url + "/v1/models", headers={"Host": host}), "host_not_allowed")
    assert_alive(proxy, fake)


@pytest.mark.parametrize(
    "host", ["localhost", "LOCALHOST.:80", "app.localhost:9", "127.0.0.1", "127.8.9.10:1", "[::1]:8000"]
)  # fmt: skip
def test_loopback_hosts_are_answered(proxy_factory: Any, fake_backend: Any, host: str) -> None:
    fake, _ = fake_backend
    proxy = proxy_factory("openai")
    fake.script(prompt_for({"messages": USER}), Script("answer"))
    response = chat(proxy, {**JSON, "Host": host})
    assert response.status_code == 200, response.text


def test_allowed_hosts_widen_and_a_key_lifts_the_check(
    proxy_factory: Any, fake_backend: Any
) -> None:
    fake, _ = fake_backend
    fake.script(prompt_for({"messages": USER}), Script("answer"))
    widened = proxy_factory("openai", allowed_hosts=("gpu-box.lan", "Proxy.Example"))
    assert chat(widened, {**JSON, "Host": "gpu-box.lan:8000"}).status_code == 200
    assert chat(widened, {**JSON, "Host": "proxy.example"}).status_code == 200
    assert refused(chat(widened, {**JSON, "Host": "other.lan"}), "host_not_allowed")
    keyed = proxy_factory("openai", api_key="k")
    headers = {**JSON, "Host": "gpu-box.lan", "Authorization": "Bearer k"}
    assert chat(keyed, headers).status_code == 200
    assert chat(keyed, {**headers, "Authorization": "Bearer x"}).status_code == 401
    anything = proxy_factory("openai", allowed_hosts=("*",))
    assert chat(anything, {**JSON, "Host": "whatever.example"}).status_code == 200


@pytest.mark.parametrize("content_type", ["text/plain", "application/json"])
def test_cross_origin_post_is_refused(
    proxy_factory: Any, fake_backend: Any, content_type: str
) -> None:
    """A page's ``fetch(..., {method: "POST", body})``: no preflight for text/plain."""
    fake, _ = fake_backend
    proxy = proxy_factory("openai")
    messages: list[ChatCompletionMessageParam] = [
        {"role": "user", "content": f"from a web page ({content_type})"}
    ]
    prompt = prompt_for({"messages": messages})
    fake.script(prompt, Script("answer"))
    body = json.dumps({"model": MODEL, "messages": messages})
    headers = {"Content-Type": content_type, "Origin": "https://evil.example"}
    response = chat(proxy, headers, body)
    assert refused(response, "origin_not_allowed")
    assert "access-control-allow-origin" not in response.headers
    with pytest.raises(AssertionError, match="never received"):
        fake.last_request(prompt)
    preflight = httpx.options(
        proxy.url + "/v1/chat/completions",
        headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"},
    )
    assert refused(preflight, "origin_not_allowed")
    assert_alive(proxy, fake)


def test_cors_origin_allows_one_origin(proxy_factory: Any, fake_backend: Any) -> None:
    fake, _ = fake_backend
    proxy = proxy_factory("openai", cors_origins=("https://app.example",))
    fake.script(prompt_for({"messages": USER}), Script("answer"))
    preflight = httpx.options(
        proxy.url + "/v1/chat/completions",
        headers={
            "Origin": "https://app.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, content-type",
        },
    )
    assert preflight.status_code == 204
    assert preflight.headers["access-control-allow-origin"] == "https://app.example"
    assert "POST" in preflight.headers["access-control-allow-methods"]
    allowed = preflight.headers["access-control-allow-headers"].lower()
    assert "authorization" in allowed and "content-type" in allowed
    response = chat(proxy, {**JSON, "Origin": "https://app.example"})
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == "https://app.example"
    assert "Origin" in response.headers["vary"]
    assert refused(
        chat(proxy, {**JSON, "Origin": "https://app.example.evil"}), "origin_not_allowed"
    )
    assert refused(chat(proxy, {**JSON, "Origin": "null"}), "origin_not_allowed")


@pytest.mark.parametrize("content_type", [None, "text/plain", "application/x-www-form-urlencoded"])
def test_a_json_body_must_say_so(
    proxy_factory: Any, fake_backend: Any, content_type: str | None
) -> None:
    fake, _ = fake_backend
    proxy = proxy_factory("openai")
    headers = {"Content-Type": content_type} if content_type else {}
    response = chat(proxy, headers)
    assert response.status_code == 415
    assert "application/json" in response.json()["error"]["message"]
    ok = chat(proxy, {"Content-Type": "Application/JSON; charset=utf-8"})
    assert ok.status_code != 415
    assert_alive(proxy, fake)


@pytest.mark.parametrize("key", ["clé-secrète", "ключ🔑", "s3cret"])
def test_any_unicode_api_key_works(proxy_factory: Any, fake_backend: Any, key: str) -> None:
    fake, _ = fake_backend
    proxy = proxy_factory("openai", api_key=key)
    fake.script(prompt_for({"messages": USER}), Script("answer"))
    right = [(b"authorization", b"Bearer " + key.encode())]  # HTTP carries the UTF-8 bytes
    assert httpx.get(proxy.url + "/v1/models", headers=right).status_code == 200
    with_json = [*right, (b"content-type", b"application/json")]
    response = httpx.post(proxy.url + "/v1/chat/completions", content=BODY, headers=with_json)
    assert response.status_code == 200
    for wrong in (key[:-1], key + "x", key.upper() + "!"):
        headers = [(b"authorization", b"Bearer " + wrong.encode())]
        assert httpx.get(proxy.url + "/v1/models", headers=headers).status_code == 401


def test_backend_url_and_words_stay_out_of_errors(
    proxy_factory: Any, fake_backend: Any, caplog: pytest.LogCaptureFixture
) -> None:
    fake, backend = fake_backend
    proxy = proxy_factory("openai")
    messages: list[ChatCompletionMessageParam] = [{"role": "user", "content": "secret 500"}]
    fake.script(prompt_for({"messages": messages}), Script("x", fault="status500"))
    with caplog.at_level(logging.INFO):
        for stream in (False, True):
            body = json.dumps({"model": MODEL, "messages": messages, "stream": stream})
            response = chat(proxy, JSON, body)
            assert response.status_code == 502
            message = response.json()["error"]["message"]
            assert message == "the backend answered HTTP 500"
    logged = " ".join(
        r.getMessage() for r in caplog.records if r.name.startswith("granite_formatters")
    )
    assert "CUDA out of memory" not in logged  # backend text can quote the prompt
    assert "error=the backend answered HTTP 500" in logged

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    dead = ServerThread(create_app(ServeConfig(backend=f"http://127.0.0.1:{port}/v1")))
    try:
        response = chat(dead, JSON)
        assert response.status_code == 502
        message = response.json()["error"]["message"]
        assert message == "cannot reach the backend"
        assert str(port) not in response.text and "127.0.0.1" not in response.text
    finally:
        dead.stop()
    assert backend.url not in logged


def test_backend_words_are_logged_with_log_prompts(
    proxy_factory: Any, fake_backend: Any, caplog: pytest.LogCaptureFixture
) -> None:
    fake, _ = fake_backend
    proxy = proxy_factory("openai", log_prompts=True)
    messages: list[ChatCompletionMessageParam] = [{"role": "user", "content": "logged 500"}]
    fake.script(prompt_for({"messages": messages}), Script("x", fault="status500"))
    with caplog.at_level(logging.INFO):
        response = chat(proxy, JSON, json.dumps({"model": MODEL, "messages": messages}))
    assert response.json()["error"]["message"] == "the backend answered HTTP 500"
    assert "CUDA out of memory" in " ".join(r.getMessage() for r in caplog.records)
    assert client_for(proxy.port).models.list().data


@pytest.mark.parametrize(
    ("name", "loopback"),
    [
        ("::ffff:127.0.0.1", True),
        ("[::ffff:127.0.0.1]", True),
        ("::FFFF:7f00:2", True),
        ("::ffff:10.1.2.3", False),
        ("::ffff:0.0.0.0", False),
        ("::1", True),
        ("127.8.9.10", True),
        ("app.localhost.", True),
        ("10.1.2.3", False),
        ("0.0.0.0", False),
        ("attacker.example", False),
    ],
)
def test_is_loopback_counts_ipv4_mapped_loopback_on_every_python(name: str, loopback: bool) -> None:
    assert is_loopback(name) is loopback


def test_ipv4_mapped_loopback_host_is_answered(proxy_factory: Any, fake_backend: Any) -> None:
    fake, _ = fake_backend
    proxy = proxy_factory("openai")
    fake.script(prompt_for({"messages": USER}), Script("answer"))
    response = chat(proxy, {**JSON, "Host": "[::ffff:127.0.0.1]:8000"})
    assert response.status_code == 200, response.text
    assert refused(chat(proxy, {**JSON, "Host": "[::ffff:10.1.2.3]:8000"}), "host_not_allowed")


@pytest.mark.parametrize(
    ("host", "warned"), [("::ffff:127.0.0.1", False), ("127.0.0.2", False), ("0.0.0.0", True)]
)
def test_no_key_warning_only_off_loopback(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, host: str, warned: bool
) -> None:
    import uvicorn

    from granite_formatters._serve import cli
    from granite_formatters._serve.options import build_parser

    monkeypatch.setattr(uvicorn, "run", lambda *args, **kwargs: None)
    monkeypatch.delenv("GRANITE_SERVE_API_KEY", raising=False)
    args = build_parser().parse_args(["--host", host, "--backend", "http://127.0.0.1:9/v1"])
    with caplog.at_level(logging.WARNING, logger="granite_formatters.serve"):
        assert cli.run(args) == 0
    assert any("without --api-key" in r.getMessage() for r in caplog.records) is warned
