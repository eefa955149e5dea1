"""``granite-format doctor --backend``: a real llama-server renders the probe set with the
official templates (``--jinja --chat-template-file``), diffed against our prompts."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from granite_formatters import _cli as cli
from granite_formatters._doctor import DoctorError, diagnose_live

from .conftest import Process, free_port, start_llama_server
from support import oracle


@pytest.fixture(scope="module", params=["3.3", "4.2"])
def templated_server(
    request: pytest.FixtureRequest,
    llama_server_binary: Path,
    tiny_model: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[str, Process]]:
    release = request.param
    template = oracle.require_shared() / "chat-templates" / oracle.TEMPLATES[release]
    log = tmp_path_factory.mktemp("logs") / f"llama-server-{release}.log"
    args = ["llama-server", "-m", "MODEL", "--port", "0", "--jinja"]
    server = start_llama_server(
        llama_server_binary, tiny_model, [*args, "--chat-template-file", str(template)], log
    )
    yield release, server
    server.stop()


#: What llama.cpp renders differently from transformers with the official templates: a
#: final assistant message is a prefill (rendered after a generation prompt, not cut out
#: of the turn), and for 4.2 the history's reasoning is kept (llama-server's reasoning
#: preservation, on by default) where the template drops it.
EXPECTED = {
    "3.3": ("continue_final_message",),
    "4.2": ("reasoning_in_history", "continue_final_message"),
}
MODELS = {"3.3": "granite-3.3-8b-instruct", "4.2": "granite-4.2-8b"}


def test_the_server_renders_the_probes_as_expected(templated_server: tuple[str, Process]) -> None:
    release, server = templated_server
    report = diagnose_live(server.url, MODELS[release])
    (found,) = report.templates
    assert found.behaviour.differing == EXPECTED[release]
    assert found.behaviour.diffs[-1][:2] == (
        f"--- granite-formatters {MODELS[release]} (continue_final_message)",
        "+++ the server (continue_final_message)",
    )
    assert found.capabilities.tools
    assert found.capabilities.thinking == ("thinking" if release == "3.3" else "enable_thinking")


def test_the_command_line_with_json(templated_server: tuple[str, Process]) -> None:
    release, server = templated_server
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(
        ["doctor", "--backend", server.url + "/v1", "--model", MODELS[release], "--json"],
        stdout=out,
        stderr=err,
    )
    assert (code, err.getvalue()) == (0, "")
    report = json.loads(out.getvalue())
    assert report["kind"] == "llama.cpp server"
    assert report["templates"][0]["behaviour"]["differing"] == list(EXPECTED[release])


def test_an_unreachable_backend_is_one_error_line() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(DoctorError, match=r"cannot reach http://127\.0\.0\.1:\d+/apply-template"):
        diagnose_live(url, "granite-4.2-8b", backend_type="llamacpp")


KEY = "sk-d0ct0r-llama-9c4e"


@pytest.fixture(scope="module")
def keyed_server(
    llama_server_binary: Path, tiny_model: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Process]:
    """``llama-server --api-key KEY --jinja`` with the official 4.2 template (its
    ``/health`` answers without the key, ``/props`` and ``/apply-template`` do not)."""
    template = oracle.require_shared() / "chat-templates" / oracle.TEMPLATES["4.2"]
    log = tmp_path_factory.mktemp("logs") / "llama-server-4.2-keyed.log"
    args = ["llama-server", "-m", "MODEL", "--port", "0", "--jinja", "--api-key", KEY]
    server = start_llama_server(
        llama_server_binary, tiny_model, [*args, "--chat-template-file", str(template)], log
    )
    yield server
    server.stop()


def doctor(url: str, *options: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    argv = ["doctor", "--backend", url, "--model", MODELS["4.2"], *options]
    code = cli.main(argv, stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("templated_server", ["4.2"], indirect=True)
def test_a_keyed_server_reports_with_its_key_as_an_open_one_does(
    templated_server: tuple[str, Process], keyed_server: Process, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, open_server = templated_server
    monkeypatch.delenv("GRANITE_BACKEND_API_KEY", raising=False)
    code, keyed, err = doctor(keyed_server.url, "--backend-api-key", KEY, "--json")
    assert (code, err) == (0, "")
    code, unkeyed, err = doctor(open_server.url, "--json")
    assert (code, err) == (0, "")
    assert keyed.replace(keyed_server.url, "URL") == unkeyed.replace(open_server.url, "URL")
    assert json.loads(keyed)["templates"][0]["behaviour"]["differing"] == list(EXPECTED["4.2"])
    monkeypatch.setenv("GRANITE_BACKEND_API_KEY", KEY)
    code, text, err = doctor(keyed_server.url)
    assert (code, err) == (0, "")
    assert KEY not in keyed + text


def test_a_keyed_server_without_the_key_gives_the_hint(
    keyed_server: Process, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GRANITE_BACKEND_API_KEY", raising=False)
    code, out, err = doctor(keyed_server.url)
    assert (code, out) == (1, "")
    assert err == (
        f"granite-format: error: {keyed_server.url}/props answered 401: 'Invalid API Key'; "
        "the server wants an API key: give --backend-api-key or set GRANITE_BACKEND_API_KEY\n"
    )
    code, out, err = doctor(keyed_server.url, "--backend-api-key", "sk-wrong-0000")
    assert (code, out) == (1, "")
    assert err == (
        f"granite-format: error: {keyed_server.url}/props answered 401: 'Invalid API Key'; "
        "the server refused the key (--backend-api-key or GRANITE_BACKEND_API_KEY)\n"
    )
