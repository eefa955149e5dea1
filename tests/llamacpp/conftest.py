"""Fixtures for the real-llama.cpp tests: ``llama-server`` on the tiny model, ``serve`` in front.

Every server is a real process on a free 127.0.0.1 port, started once per session and
stopped at its end; each start waits a bounded time for the server to answer. Outside
CI, the tests skip with the reason when the ``llama-server`` binary has not been built
(``python3 tests/llamacpp/build_llama_server.py`` or ``tox -e llamacpp`` builds it); in
CI (``CI=true``) a missing binary or package fails them instead.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from . import build_llama_server

REPO = Path(__file__).resolve().parents[2]
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
START_SECONDS = 90.0


def unavailable(reason: str) -> None:
    """Skip outside CI, fail in CI: the real backend must run there."""
    if IN_CI:
        pytest.fail(f"CI=true: {reason}", pytrace=False)
    pytest.skip(reason)


for _module in ("gguf", "numpy", "openai", "httpx", "starlette", "uvicorn"):
    try:
        __import__(_module)
    except ImportError:  # pragma: no cover - depends on the environment
        if IN_CI:
            raise
        pytest.skip(
            f"the llama.cpp tests need {_module}: pip install gguf openai './core[serve]'",
            allow_module_level=True,
        )


def documented_command(doc: str = "docs/serving.md") -> list[str]:
    """The ``llama-server`` command line that ``doc`` tells users to run (its first one)."""
    for line in (REPO / doc).read_text(encoding="utf-8").splitlines():
        if line.startswith("llama-server "):
            return shlex.split(line)
    raise AssertionError(f"{doc} shows no llama-server command")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class Process:
    """A server process with its log file; ``stop()`` ends it (terminate, then kill)."""

    def __init__(self, args: list[str], log: Path, url: str, ready_path: str) -> None:
        self.args = args
        self.log = log
        self.url = url
        with log.open("wb") as out:
            self.popen = subprocess.Popen(
                args, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
            )
        deadline = time.monotonic() + START_SECONDS
        while True:
            if self.popen.poll() is not None:
                raise RuntimeError(
                    f"{shlex.join(args)} exited {self.popen.returncode}:\n{self.tail()}"
                )
            with (
                contextlib.suppress(OSError),
                urllib.request.urlopen(url + ready_path, timeout=5) as answer,
            ):
                if answer.status == 200:
                    return
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(
                    f"{shlex.join(args)} not ready in {START_SECONDS} s:\n{self.tail()}"
                )
            time.sleep(0.2)

    def tail(self, lines: int = 40) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])

    def stop(self) -> None:
        if self.popen.poll() is None:
            self.popen.terminate()
            try:
                self.popen.wait(10)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait(10)


@pytest.fixture(scope="session")
def llama_server_binary() -> Path:
    """The cached ``llama-server`` (``LLAMA_SERVER`` overrides the cache)."""
    path = Path(os.environ.get("LLAMA_SERVER") or build_llama_server.binary_path())
    if not path.exists():
        unavailable(
            f"llama-server is not built ({path} is missing): run "
            "`python3 tests/llamacpp/build_llama_server.py` or `python3 -m tox -e llamacpp`"
        )
    return path


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from .tinymodel import write_model

    path = tmp_path_factory.mktemp("model") / "tiny.gguf"
    write_model(path)
    return path


def start_llama_server(binary: Path, model: Path, args: list[str], log: Path) -> Process:
    """``llama-server`` as ``args`` (a documented command line) say, on the tiny model."""
    port = free_port()
    command = [str(binary)]
    rest = iter(args[1:])
    for arg in rest:
        if arg in ("-m", "--model"):
            command += [arg, str(model)]
            next(rest)
        elif arg == "--port":
            command += [arg, str(port)]
            next(rest)
        else:
            command.append(arg)
    # Test-only: bounded resources on a shared 2-core machine (the model is tiny).
    command += ["--host", "127.0.0.1", "--threads", "1"]
    return Process(command, log, f"http://127.0.0.1:{port}", "/health")


@pytest.fixture(scope="session")
def llama_server(
    llama_server_binary: Path, tiny_model: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Process]:
    """``llama-server`` started exactly as docs/serving.md tells users to."""
    log = tmp_path_factory.mktemp("logs") / "llama-server.log"
    server = start_llama_server(llama_server_binary, tiny_model, documented_command(), log)
    yield server
    server.stop()


@pytest.fixture(scope="session")
def plain_llama_server(
    llama_server_binary: Path, tiny_model: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Process]:
    """``llama-server`` with its defaults (no ``--special``): it drops control tokens."""
    log = tmp_path_factory.mktemp("logs") / "llama-server-plain.log"
    args = ["llama-server", "-m", "MODEL", "--port", "0"]
    server = start_llama_server(llama_server_binary, tiny_model, args, log)
    yield server
    server.stop()


def start_serve(backend: Process, kind: str, log: Path, *options: str) -> Process:
    """``granite-format serve`` in front of ``backend``, serving every bundled release
    (``options``: more serve options)."""
    from support.releases import RELEASES

    port = free_port()
    url = backend.url + "/v1" if kind == "openai" else backend.url
    command = [sys.executable, "-m", "granite_formatters", "serve", "--backend", url]
    command += ["--backend-type", kind, "--port", str(port), "--log-level", "info", *options]
    for release in RELEASES:
        command += ["--model", release.model]
    return Process(command, log, f"http://127.0.0.1:{port}", "/v1/models")


KINDS = ("openai", "llamacpp")


def assert_no_traceback(server: Process) -> None:
    """serve never logs a traceback for anything a client or the backend sent."""
    log = server.log.read_text(errors="replace")
    assert "Traceback" not in log, log[-4000:]


@pytest.fixture(scope="session", params=KINDS)
def serve(
    request: pytest.FixtureRequest, llama_server: Process, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Process]:
    """``granite-format serve --backend-type KIND`` in front of the documented llama-server."""
    kind: str = request.param
    server = start_serve(llama_server, kind, tmp_path_factory.mktemp("logs") / f"serve-{kind}.log")
    yield server
    server.stop()
    assert_no_traceback(server)


@pytest.fixture(scope="session", params=KINDS)
def plain_serve(
    request: pytest.FixtureRequest,
    plain_llama_server: Process,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Process]:
    """``serve`` in front of a llama-server started without ``--special``."""
    kind: str = request.param
    log = tmp_path_factory.mktemp("logs") / f"serve-plain-{kind}.log"
    server = start_serve(plain_llama_server, kind, log)
    yield server
    server.stop()
    assert_no_traceback(server)


def post_json(url: str, body: Mapping[str, Any], timeout: float = 60) -> dict[str, Any]:
    """POST ``body`` as JSON and return the JSON answer (a loopback test server)."""
    import json

    data = json.dumps(body).encode()
    request = urllib.request.Request(url, data, {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            out = json.loads(answer.read())
    except urllib.error.HTTPError as error:
        raise AssertionError(f"{url}: {error.code} {error.read()[:500]!r}") from None
    assert isinstance(out, dict)
    return out
