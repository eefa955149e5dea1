"""``serve --backend-api-key`` in front of a real ``llama-server --api-key``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import openai
import pytest

from .conftest import KINDS, Process, assert_no_traceback, start_llama_server, start_serve
from .test_llamacpp import ask, openai_client

KEY = "sk-llama-K3Y-5e2d"


@pytest.fixture(scope="module")
def keyed_llama_server(
    llama_server_binary: Path, tiny_model: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Process]:
    """``llama-server --api-key KEY`` (its ``/health`` answers without the key)."""
    log = tmp_path_factory.mktemp("logs") / "llama-server-keyed.log"
    args = ["llama-server", "-m", "MODEL", "--port", "0", "--api-key", KEY]
    server = start_llama_server(llama_server_binary, tiny_model, args, log)
    yield server
    server.stop()


@pytest.mark.parametrize("kind", KINDS)
def test_serve_answers_with_the_key_and_502_without(
    keyed_llama_server: Process, tmp_path: Path, kind: str
) -> None:
    keyed = start_serve(keyed_llama_server, kind, tmp_path / "keyed.log", "--backend-api-key", KEY)
    bare = start_serve(keyed_llama_server, kind, tmp_path / "bare.log")
    try:
        with openai_client(keyed) as client:
            for stream in (False, True):
                reply = ask(
                    client, "3.2", [{"role": "user", "content": "Hi"}], "utf8", stream=stream
                )
                assert reply.content == "Café costs 3 €"
        with openai_client(bare) as client, pytest.raises(openai.APIStatusError) as refused:
            ask(client, "3.2", [{"role": "user", "content": "Hi"}], "utf8", stream=False)
        assert refused.value.status_code == 502
        assert "the backend answered HTTP 401" in str(refused.value)
    finally:
        keyed.stop()
        bare.stop()
    assert_no_traceback(keyed)
    assert KEY not in keyed.log.read_text(errors="replace")
