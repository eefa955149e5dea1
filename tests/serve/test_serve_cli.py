"""``granite-format serve`` as a user runs it: a real process, its options, and the missing extra."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import attrs
import httpx
import openai
import pytest
from openai.types.chat import ChatCompletionMessageParam

from granite_formatters import get_formatter
from granite_formatters._serve.options import build_parser, config_from_args, parse_model_map

from .outputs import PLAIN_ANSWER, USER
from .servers import Script
from .test_serve_answers import client_for

MODEL = "granite-3.2-8b-instruct"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def serving(*options: str, env: dict[str, str] | None = None) -> Iterator[Running]:
    """``python -m granite_formatters serve OPTIONS`` on a free loopback port, until the block ends."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "granite_formatters", "serve", "--port", str(port), *options],
        env={**os.environ, **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    running = Running(process, port)
    try:
        deadline = time.monotonic() + 60  # bound on start-up, not a timing assertion
        while True:
            try:
                httpx.get(f"http://127.0.0.1:{port}/health", timeout=1)
                break
            except httpx.TransportError:
                assert process.poll() is None, process.communicate()[1]
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.1)
        yield running
    finally:
        process.send_signal(signal.SIGINT)
        running.stderr = process.communicate(timeout=60)[1]


@attrs.define
class Running:
    process: subprocess.Popen[str]
    port: int
    stderr: str = ""


def test_python_dash_m_serve_answers_the_openai_client(fake_backend: Any) -> None:
    fake, backend = fake_backend
    with serving("--backend", backend.url + "/v1", env={"GRANITE_SERVE_API_KEY": "k3y"}) as run:
        fake.script(
            get_formatter(MODEL).format({"messages": USER}), Script(PLAIN_ANSWER, cut="chars")
        )
        answer = client_for(run.port, api_key="k3y").chat.completions.create(
            model=MODEL, messages=USER
        )
        assert answer.choices[0].message.content == PLAIN_ANSWER
    assert f"chat model={MODEL} stream=no status=200" in run.stderr
    assert "Zürich" not in run.stderr  # no prompt in the log
    assert "HTTP Request" not in run.stderr  # httpx's own line per backend request


SECRET_PROMPT = "tell me the launch code"
SECRET_ANSWER = "The launch code is 0000, spoken softly."


@pytest.mark.parametrize("level", ["debug", "info"])
def test_no_prompt_or_answer_in_the_log_at_any_level(fake_backend: Any, level: str) -> None:
    fake, backend = fake_backend
    messages: list[ChatCompletionMessageParam] = [
        {"role": "user", "content": f"{SECRET_PROMPT} ({level})"}
    ]
    fake.script(
        get_formatter(MODEL).format({"messages": messages}), Script(SECRET_ANSWER, cut="whole")
    )
    with serving("--backend", backend.url + "/v1", "--log-level", level) as run:
        client = client_for(run.port)
        answer = client.chat.completions.create(model=MODEL, messages=messages)
        assert answer.choices[0].message.content == SECRET_ANSWER
        chunks = client.chat.completions.create(model=MODEL, messages=messages, stream=True)
        assert "".join(c.choices[0].delta.content or "" for c in chunks) == SECRET_ANSWER
    lines = run.stderr.splitlines()
    assert sum(f"chat model={MODEL}" in line for line in lines) == 2, run.stderr
    assert SECRET_PROMPT not in run.stderr
    assert "launch code" not in run.stderr and "softly" not in run.stderr


def test_log_prompts_works_at_the_default_level(fake_backend: Any) -> None:
    fake, backend = fake_backend
    messages: list[ChatCompletionMessageParam] = [
        {"role": "user", "content": "please log this prompt"}
    ]
    fake.script(get_formatter(MODEL).format({"messages": messages}), Script(PLAIN_ANSWER))
    with serving("--backend", backend.url + "/v1", "--log-prompts") as run:
        client_for(run.port).chat.completions.create(model=MODEL, messages=messages)
    assert "please log this prompt" in run.stderr
    assert " DEBUG " not in run.stderr


@pytest.mark.parametrize(
    ("options", "start"),
    [
        (["--port", "99999"], "--port 99999: "),
        (["--port", "-1"], "--port -1: "),
        (["--backend", "http://[::1"], "--backend 'http://[::1': "),
        (["--backend", "notaurl"], "--backend 'notaurl': "),
        (["--backend", "ftp://127.0.0.1/v1"], "--backend 'ftp://127.0.0.1/v1': "),
        (["--backend", "http://"], "--backend 'http://': "),
        (["--max-body-bytes", "-5"], "--max-body-bytes -5: "),
        (["--max-prompt-chars", "0"], "--max-prompt-chars 0: "),
        (["--timeout", "0"], "--timeout 0.0: "),
        (["--timeout", "nan"], "--timeout nan: "),
        (["--workers", "0"], "--workers 0: "),
    ],
)
def test_bad_options_stop_before_binding(options: list[str], start: str) -> None:
    argv = ["--backend", "http://127.0.0.1:1/v1", *options]
    result = subprocess.run(
        [sys.executable, "-m", "granite_formatters", "serve", *argv],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 2
    assert result.stderr.startswith(f"granite-format serve: error: {start}"), result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_several_bad_options_are_one_line_each() -> None:
    argv = ["--backend", "notaurl", "--port", "70000", "--timeout", "-1"]
    result = subprocess.run(
        [sys.executable, "-m", "granite_formatters", "serve", *argv],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 3 and all(
        line.startswith("granite-format serve: error: --") for line in lines
    )


def _workers(pid: int) -> int:
    """How many processes ``pid`` has spawned with multiprocessing (its uvicorn workers)."""
    count = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    parent = int(stat.read().rpartition(")")[2].split()[1])
                with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                    spawned = b"spawn_main" in cmdline.read()
            except (OSError, IndexError, ValueError):
                continue
            count += parent == pid and spawned
    return count


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="counts worker processes in /proc")
def test_two_workers_serve_concurrent_streams(fake_backend: Any) -> None:
    fake, backend = fake_backend
    formatter = get_formatter(MODEL)
    clients = 8
    requests = []
    for i in range(clients):
        messages = [{"role": "user", "content": f"worker stream {i}"}]
        answer = f"Answer number {i}:" + " word" * 40
        fake.script(formatter.format({"messages": messages}), Script(answer, cut="pieces"))
        requests.append((messages, answer))
    with serving("--backend", backend.url + "/v1", "--workers", "2") as run:
        deadline = time.monotonic() + 60  # bound on start-up, not a timing assertion
        while _workers(run.process.pid) != 2:
            assert time.monotonic() < deadline, _workers(run.process.pid)
            time.sleep(0.1)

        async def one(client: openai.AsyncOpenAI, messages: Any) -> str:
            text = ""
            stream = await client.chat.completions.create(
                model=MODEL, messages=messages, stream=True
            )
            async with stream:
                async for chunk in stream:
                    text += chunk.choices[0].delta.content or ""
            return text

        async def all_streams() -> list[str]:
            async with openai.AsyncOpenAI(
                base_url=f"http://127.0.0.1:{run.port}/v1", api_key="unused", max_retries=0
            ) as client:
                tasks = [one(client, messages) for messages, _ in requests]
                return await asyncio.wait_for(asyncio.gather(*tasks), 120)

        got = asyncio.run(all_streams())
    assert got == [answer for _, answer in requests]
    assert run.stderr.count(f"chat model={MODEL} stream=yes status=200") == clients


def test_options() -> None:
    args = build_parser().parse_args(
        ["--backend", "http://h:1", "--backend-type", "ollama", "--model", "a", "--model", "b = c"]
    )
    config = config_from_args(args)
    assert (config.host, config.port, config.backend_type) == ("127.0.0.1", 8000, "ollama")
    assert dict(config.models) == {"a": "a", "b": "c"}
    assert config.api_key is None
    assert config.stream_backend is False
    args = build_parser().parse_args(["--backend", "http://h:1", "--stream-backend"])
    assert config_from_args(args).stream_backend is True
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
        "from granite_formatters._cli import main\n"
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
            "import sys; sys.modules['uvicorn'] = None; import granite_formatters._serve",
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
        "import logging, granite_formatters._serve\n"
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


def test_serve_help_says_in_front_of() -> None:
    for argv in (["serve", "--help"], ["--help"]):
        out = subprocess.run(
            [sys.executable, "-m", "granite_formatters", *argv],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        assert "in front of a" in out and "before a completions" not in out


def test_the_startup_log_names_the_backend_and_the_models(fake_backend: Any) -> None:
    _fake, thread = fake_backend
    url = thread.url.replace("http://", "http://user:secret@")
    with serving(
        "--backend", url, "--backend-type", "llamacpp", "--model", "granite3.3:8b=granite-q4"
    ) as one:
        pass
    with serving("--backend", thread.url + "/v1") as every:
        pass
    line = next(x for x in one.stderr.splitlines() if " serving http://" in x)
    assert line.endswith(
        f"serving http://127.0.0.1:{one.port}/v1 in front of the llamacpp backend at "
        f"{thread.url}; models: granite3.3:8b (as granite-q4)"
    ), line
    assert "secret" not in one.stderr
    line = next(x for x in every.stderr.splitlines() if " serving http://" in x)
    assert f"in front of the openai backend at {thread.url}/v1; models: every model" in line
    assert "granite-3.3-8b-instruct" in line or ", ...)" in line
