"""The access log tells the truth and keeps secrets: one line per request, client strings
escaped and cut short, so no request forges a line or writes a huge one."""

from __future__ import annotations

import json
import logging
import time
from typing import Any

import httpx
import pytest

from granite_formatters._serve.accesslog import loggable

from .outputs import USER
from .test_serve_failures import MODEL

JSON = {"Content-Type": "application/json"}


def serve_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "granite_formatters.serve"]


def post_logged(
    proxy: Any, caplog: pytest.LogCaptureFixture, change: dict[str, Any]
) -> httpx.Response:
    """Post the model's request changed by ``change``, capturing the server's log lines."""
    body = {"model": MODEL, "messages": USER, **change}
    with caplog.at_level(logging.INFO, logger="granite_formatters.serve"):
        return httpx.post(
            proxy.url + "/v1/chat/completions", content=json.dumps(body), headers=JSON
        )


@pytest.mark.parametrize(
    ("change", "status"),
    [
        ({"model": "x\nchat model=forged stream=no status=200"}, 404),
        ({"model": "y\r\u2028\x1b[31mred\x85"}, 404),
        ({"model": "m" * 1_000_000}, 404),
        ({"chat_template_kwargs": {"bad\nkey": 1}}, 400),
    ],
)
def test_client_strings_cannot_forge_or_flood_log_lines(
    proxy_factory: Any, caplog: pytest.LogCaptureFixture, change: dict[str, Any], status: int
) -> None:
    response = post_logged(proxy_factory("openai"), caplog, change)
    assert response.status_code == status, response.text
    # (A stream of an earlier test may log its line late, while it drains: not this one's.)
    lines = [
        line
        for line in serve_lines(caplog)
        if not line.rpartition(" status=")[2].startswith("200 ")
    ]
    assert len(lines) == 1, lines
    line = lines[0]
    assert line.startswith("chat model=") and f"status={status}" in line
    assert not any(c in line for c in "\n\r\x1b\x85\u2028")
    assert line.count(" status=") == 1 or "\\u000a" in line  # a forged field stays inline
    assert len(line) < 600


def test_loggable() -> None:
    assert loggable("plain Zürich") == "plain Zürich"
    assert loggable("a\nb\\c") == "a\\u000ab\\\\c"
    assert loggable("\ud800") == "\\ud800"
    assert loggable("z" * 100, 10) == "z" * 10 + "...(100 chars)"


def test_every_request_gets_one_line(proxy_factory: Any, caplog: pytest.LogCaptureFixture) -> None:
    proxy = proxy_factory("openai")
    with caplog.at_level(logging.INFO, logger="granite_formatters.serve"):
        assert httpx.get(proxy.url + "/v1/models").status_code == 200
        assert (
            httpx.get(proxy.url + "/v1/models", headers={"Host": "evil.example"}).status_code == 403
        )
        assert httpx.get(proxy.url + "/no/such%0Aroute%0dforged").status_code == 404
        assert httpx.get(proxy.url + "/v1/chat/completions").status_code == 405
        response = httpx.post(
            proxy.url + "/v1/chat/completions",
            content=b"{}",
            headers={"Origin": "https://x.example"},
        )
        assert response.status_code == 403
        # The server thread writes a refusal's line after its response is sent: wait for
        # it (bounded), so the check does not race the last line.
        for _ in range(200):
            if len(serve_lines(caplog)) >= 5:
                break
            time.sleep(0.025)
    lines = serve_lines(caplog)
    assert [line.rpartition(" latency_ms=")[0] for line in lines] == [
        "http method=GET path=/v1/models status=200",
        "http method=GET path=/v1/models status=403",
        "http method=GET path=/no/such\\u000aroute\\u000dforged status=404",
        "http method=GET path=/v1/chat/completions status=405",
        "http method=POST path=/v1/chat/completions status=403",
    ]


@pytest.mark.parametrize(
    ("change", "logged"),
    [
        ({"temperature": "hot"}, f"model={MODEL} "),
        ({"n": 2}, f"model={MODEL} "),
        ({"model": 5}, "model=5 "),
        ({"model": ["a" * 100]}, "model=['aaaaaaaaaa"),
    ],
)
def test_a_refused_request_logs_the_model_it_asked_for(
    proxy_factory: Any, caplog: pytest.LogCaptureFixture, change: dict[str, Any], logged: str
) -> None:
    response = post_logged(proxy_factory("openai"), caplog, change)
    assert response.status_code == 400, response.text
    lines = [line for line in serve_lines(caplog) if " status=400 " in line]
    assert len(lines) == 1, lines
    assert lines[0].startswith("chat " + logged), lines
    assert len(lines[0]) < 300
