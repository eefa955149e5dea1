"""``granite-format serve`` as a user runs it: a real process, its options, and the missing extra."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from typing import Any

import httpx
import pytest

from granite_formatters import get_formatter
from granite_formatters.serve.options import build_parser, config_from_args, parse_model_map

from .outputs import PLAIN_ANSWER, USER
from .servers import Script
from .test_serve_answers import client_for

MODEL = "granite-3.2-8b-instruct"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_python_dash_m_serve_answers_the_openai_client(fake_backend: Any) -> None:
    fake, backend = fake_backend
    port = free_port()
    env = {**os.environ, "GRANITE_SERVE_API_KEY": "k3y"}
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "granite_formatters",
            "serve",
            "--backend",
            backend.url + "/v1",
            "--port",
            str(port),
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30  # bound on start-up, not a timing assertion
        while True:
            try:
                httpx.get(f"http://127.0.0.1:{port}/health", timeout=1)
                break
            except httpx.TransportError:
                assert process.poll() is None, process.communicate()[1]
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.1)
        fake.script(
            get_formatter(MODEL).format({"messages": USER}), Script(PLAIN_ANSWER, cut="chars")
        )
        answer = client_for(port, api_key="k3y").chat.completions.create(model=MODEL, messages=USER)
        assert answer.choices[0].message.content == PLAIN_ANSWER
    finally:
        process.send_signal(signal.SIGINT)
        _out, err = process.communicate(timeout=30)
    assert f"chat model={MODEL} stream=no status=200" in err
    assert "Zürich" not in err  # no prompt in the log


def test_options() -> None:
    args = build_parser().parse_args(
        ["--backend", "http://h:1", "--backend-type", "ollama", "--model", "a", "--model", "b = c"]
    )
    config = config_from_args(args)
    assert (config.host, config.port, config.backend_type) == ("127.0.0.1", 8000, "ollama")
    assert dict(config.models) == {"a": "a", "b": "c"}
    assert config.api_key is None
    with pytest.raises(ValueError, match="NAME=BACKEND_NAME"):
        parse_model_map(["=x"])


def test_serve_help_from_the_main_command() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "granite_formatters", "serve", "--help"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "--backend URL" in out and "--api-key" in out


def test_missing_extra_is_one_clear_line() -> None:
    code = (
        "import sys; sys.modules['sse_starlette'] = None\n"
        "from granite_formatters.cli import main\n"
        "sys.exit(main(['serve', '--backend', 'http://127.0.0.1:1']))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1
    assert 'pip install "./core[serve]"' in result.stderr and "sse_starlette" in result.stderr
    importing = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; sys.modules['uvicorn'] = None; import granite_formatters.serve",
        ],
        capture_output=True,
        text=True,
    )
    assert importing.returncode == 1
    assert importing.stderr.strip().splitlines()[-1] == (
        "ImportError: granite-format serve needs the optional 'serve' extra (missing: uvicorn); "
        'install it with: pip install "./core[serve]"'
    )


def test_importing_configures_no_logging() -> None:
    code = (
        "import logging, granite_formatters.serve\n"
        "assert logging.getLogger().handlers == [], logging.getLogger().handlers\n"
        "assert logging.getLogger('granite_formatters.serve').handlers == []\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_model_name_no_plugin_serves_stops_at_start() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "granite_formatters", "serve", "--backend", "http://127.0.0.1:1",
         "--model", "granite3.3:8b", "--model", "llama3=llama3:8b"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 2
    assert result.stderr.startswith("granite-format serve: error: --model llama3: ")
    assert result.stderr.count("\n") == 1
