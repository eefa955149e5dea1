"""``--backend-api-key``: serve sends the backend's key on every request and shows it nowhere."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from granite_formatters import get_formatter
from granite_formatters._batch.runner import BatchOptions
from granite_formatters._serve import ServeConfig
from granite_formatters._serve.cli import main as serve_main
from granite_formatters._serve.options import build_parser, config_from_args, startup_text

from .conftest import KINDS, backend_url, proxy_for
from .outputs import PLAIN_ANSWER
from .servers import FakeBackend, Script, ServerThread
from .test_serve_answers import client_for
from .test_serve_cli import serving

MODEL = "granite-3.3-8b-instruct"
KEY = "sk-b4ckend-K3Y-9f1e"
BEARER = f"Bearer {KEY}"
ENV = "GRANITE_BACKEND_API_KEY"


@pytest.fixture(scope="module")
def keyed() -> Any:
    """A fake backend that wants ``KEY`` (as vLLM started with ``--api-key KEY``), its
    context small enough that serve counts a prompt's tokens (``/tokenize``)."""
    fake = FakeBackend(api_key=KEY, max_model_len=400)
    thread = ServerThread(fake.app)
    yield fake, thread
    thread.stop()


def ask(proxy: ServerThread, fake: FakeBackend, tag: str, stream: bool = False) -> httpx.Response:
    messages = [{"role": "user", "content": tag}]
    fake.script(get_formatter(MODEL).format({"messages": messages}), Script(PLAIN_ANSWER))
    body = {"model": MODEL, "messages": messages, "stream": stream}
    return httpx.post(proxy.url + "/v1/chat/completions", json=body, timeout=30)


def answer_text(response: httpx.Response, stream: bool) -> str:
    assert response.status_code == 200, response.text
    if not stream:
        return str(response.json()["choices"][0]["message"]["content"])
    events = [line[6:] for line in response.text.splitlines() if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    return "".join(
        choice["delta"].get("content") or ""
        for event in events[:-1]
        for choice in json.loads(event)["choices"]
    )


def logged(caplog: pytest.LogCaptureFixture) -> str:
    """Every captured log record, as text (its message, arguments and exception)."""
    return "\n".join(
        f"{r.getMessage()} {r.args!r} {r.exc_text or ''} {r.__dict__!r}" for r in caplog.records
    )


def sent_since(fake: FakeBackend, start: int) -> list[tuple[str, str | None]]:
    with fake.lock:
        return fake.authorizations[start:]


@pytest.mark.parametrize("kind", KINDS)
def test_without_the_key_a_backend_401_is_a_502(keyed: Any, kind: str) -> None:
    fake, thread = keyed
    proxy = proxy_for(thread, kind)
    try:
        start = len(fake.authorizations)
        response = ask(proxy, fake, f"no key {kind}")
    finally:
        proxy.stop()
    assert response.status_code == 502, response.text
    assert response.json()["error"]["message"] == "the backend answered HTTP 401"
    assert [value for _path, value in sent_since(fake, start)] != []
    assert all(value is None for _path, value in sent_since(fake, start))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("stream", [False, True])
def test_with_the_key_every_request_carries_it_and_the_log_never(
    keyed: Any, kind: str, stream: bool, caplog: pytest.LogCaptureFixture
) -> None:
    fake, thread = keyed
    with caplog.at_level(logging.DEBUG):
        proxy = proxy_for(thread, kind, backend_api_key=KEY, log_prompts=True)
        try:
            start = len(fake.authorizations)
            response = ask(proxy, fake, f"with key {kind} {stream}", stream)
            ready = httpx.get(proxy.url + "/ready", timeout=30)
        finally:
            proxy.stop()
    assert answer_text(response, stream) == PLAIN_ANSWER
    sent = sent_since(fake, start)
    paths = {path for path, _value in sent}
    if kind == "openai":  # the context length, the token count, the answer, /ready
        assert {"/v1/models", "/tokenize", "/v1/completions"} <= paths
        assert ready.status_code == 200
    else:
        assert {"/completion" if kind == "llamacpp" else "/api/generate"} <= paths
    assert all(value == BEARER for _path, value in sent), sent
    assert KEY not in logged(caplog)
    assert KEY not in response.text


@pytest.mark.parametrize("kind", KINDS)
def test_a_wrong_key_is_a_502_and_never_shown(
    keyed: Any, kind: str, caplog: pytest.LogCaptureFixture
) -> None:
    fake, thread = keyed
    wrong = "sk-wrong-K3Y-0000"
    with caplog.at_level(logging.DEBUG):
        proxy = proxy_for(thread, kind, backend_api_key=wrong, log_prompts=True)
        try:
            start = len(fake.authorizations)
            response = ask(proxy, fake, f"wrong key {kind}")
            streamed = ask(proxy, fake, f"wrong key {kind}", stream=True)
        finally:
            proxy.stop()
    assert response.status_code == 502, response.text
    assert streamed.status_code == 502, streamed.text
    assert {value for _path, value in sent_since(fake, start)} == {f"Bearer {wrong}"}
    text = logged(caplog)
    assert "status=502" in text  # (the log was captured)
    assert wrong not in text and wrong not in response.text and wrong not in streamed.text


def test_the_config_repr_and_startup_line_hide_the_keys() -> None:
    config = ServeConfig(backend="http://127.0.0.1:1/v1", api_key="cl13nt-K3Y", backend_api_key=KEY)
    assert config.backend_api_key == KEY
    assert KEY not in repr(config) and "cl13nt-K3Y" not in repr(config)
    assert KEY not in startup_text(config, ["a"])
    options = BatchOptions(Path("in.jsonl"), Path("out.jsonl"), "http://h/v1", backend_api_key=KEY)
    assert KEY not in repr(options)


def parsed(argv: list[str], environ: dict[str, str]) -> ServeConfig:
    args = build_parser().parse_args(["--backend", "http://127.0.0.1:1/v1", *argv])
    return config_from_args(args, None, environ)


def test_the_variable_is_read_when_the_option_is_absent_and_the_option_wins() -> None:
    assert parsed([], {}).backend_api_key is None
    assert parsed([], {ENV: KEY}).backend_api_key == KEY
    assert parsed(["--backend-api-key", KEY], {}).backend_api_key == KEY
    assert parsed(["--backend-api-key", KEY], {ENV: "other-key"}).backend_api_key == KEY
    # (the option wins also over a variable that would be refused)
    assert parsed(["--backend-api-key", KEY], {ENV: "bad\nkey"}).backend_api_key == KEY


BAD_KEYS = ["", "line\nbreak-SECRET", "cr\rSECRET", "nul\x01SECRET", "tab\tSECRET",
            "ключ-SECRET", "caf\xe9-SECRET", " SECRET", "SECRET ", "del\x7fSECRET"]  # fmt: skip


@pytest.mark.parametrize("bad", BAD_KEYS)
@pytest.mark.parametrize("source", ["option", "variable"])
def test_a_bad_key_is_one_line_naming_its_source(
    bad: str, source: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # (``--workers 0`` too: a command that took the key would stop there, never serve)
    argv = ["--backend", "http://127.0.0.1:1/v1", "--workers", "0"]
    if source == "option":
        argv += ["--backend-api-key", bad]
        monkeypatch.setenv(ENV, KEY)  # (the option wins, refused or not)
    else:
        monkeypatch.setenv(ENV, bad)
    assert serve_main(argv) == 2
    err = capsys.readouterr().err
    name = "--backend-api-key" if source == "option" else ENV
    assert err.startswith(f"granite-format serve: error: {name}: "), err
    assert err.count("\n") == 1
    assert "SECRET" not in err and KEY not in err


def test_a_bad_key_stops_the_real_command_without_a_traceback() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "granite_formatters", "serve", "--backend",
         "http://127.0.0.1:1/v1", "--backend-api-key", "sk-\r\nX-Injected: SECRET"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 2
    assert result.stderr == (
        "granite-format serve: error: --backend-api-key: the key holds a character an HTTP "
        "header cannot carry (it must be printable ASCII, without spaces around it)\n"
    )


@pytest.mark.parametrize(
    ("options", "env"),
    [([], {ENV: KEY}), (["--backend-api-key", KEY], {ENV: "sk-wrong"})],
    ids=["variable", "option-wins"],
)
def test_the_real_command_answers_through_a_keyed_backend(
    keyed: Any, options: list[str], env: dict[str, str]
) -> None:
    fake, thread = keyed
    messages: Any = [{"role": "user", "content": f"real command {len(options)}"}]
    fake.script(get_formatter(MODEL).format({"messages": messages}), Script(PLAIN_ANSWER))
    start = len(fake.authorizations)
    url = backend_url(thread, "openai")
    with serving(
        "--backend", url, "--log-level", "debug", "--log-prompts", *options, env=env
    ) as run:
        answer = client_for(run.port).chat.completions.create(model=MODEL, messages=messages)
    assert answer.choices[0].message.content == PLAIN_ANSWER
    sent = sent_since(fake, start)
    assert sent and all(value == BEARER for _path, value in sent), sent
    assert "serving http://" in run.stderr and "status=200" in run.stderr
    assert KEY not in run.stderr and "sk-wrong" not in run.stderr
