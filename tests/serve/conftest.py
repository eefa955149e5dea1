"""Fixtures for the serve tests: the fake backend and proxies on real loopback sockets."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

for _module in ("starlette", "uvicorn", "httpx", "httpx_sse", "sse_starlette", "aiohttp", "openai"):
    pytest.importorskip(_module, reason='the serve tests need pip install "./core[serve]" openai')

from granite_formatters._serve import ServeConfig, create_app  # noqa: E402

from .servers import FakeBackend, ServerThread  # noqa: E402

KINDS = ("openai", "llamacpp", "ollama")


def backend_url(fake: ServerThread, kind: str) -> str:
    return fake.url + "/v1" if kind == "openai" else fake.url


@pytest.fixture(scope="session", autouse=True)
def close_openai_clients() -> Iterator[None]:
    from .test_serve_answers import close_clients

    yield
    close_clients()


@pytest.fixture(scope="session")
def fake_backend() -> Iterator[tuple[FakeBackend, ServerThread]]:
    fake = FakeBackend()
    thread = ServerThread(fake.app)
    yield fake, thread
    thread.stop()


@pytest.fixture(scope="session")
def proxy_factory(
    fake_backend: tuple[FakeBackend, ServerThread],
) -> Iterator[Callable[..., ServerThread]]:
    """``proxy(kind, **config)``: a running proxy in front of the fake (one per setting)."""
    _fake, thread = fake_backend
    running: dict[tuple[Any, ...], ServerThread] = {}

    def proxy(kind: str, **options: Any) -> ServerThread:
        key = (kind, *sorted((k, repr(v)) for k, v in options.items()))
        if key not in running:
            options.setdefault("read_timeout", 10.0)
            config = ServeConfig(backend=backend_url(thread, kind), backend_type=kind, **options)
            running[key] = ServerThread(create_app(config))
        return running[key]

    yield proxy
    for server in running.values():
        server.stop()


@pytest.fixture(scope="session")
def backend_factory() -> Iterator[Callable[..., tuple[FakeBackend, ServerThread]]]:
    """``backend(**settings)``: another fake backend (vLLM settings of :class:`FakeBackend`)."""
    running: list[ServerThread] = []

    def backend(**settings: Any) -> tuple[FakeBackend, ServerThread]:
        fake = FakeBackend(**settings)
        thread = ServerThread(fake.app)
        running.append(thread)
        return fake, thread

    yield backend
    for server in running:
        server.stop()


def proxy_for(thread: ServerThread, kind: str, **options: Any) -> ServerThread:
    """A proxy before ``thread``'s fake (the caller stops it)."""
    options.setdefault("read_timeout", 10.0)
    config = ServeConfig(backend=backend_url(thread, kind), backend_type=kind, **options)
    return ServerThread(create_app(config))
