"""``granite-format batch --backend-api-key``: every request to the backend carries the key,
which no output line, log record or message shows."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from .conftest import KINDS, backend_url
from .servers import FakeBackend, ServerThread
from .test_serve_batch import body, input_file, message, results, run, script

KEY = "sk-b4tch-K3Y-77aa"
ENV = "GRANITE_BACKEND_API_KEY"


@pytest.fixture
def keyed() -> Any:
    """A fake backend that wants ``KEY`` (as vLLM started with ``--api-key KEY``), its
    context small enough that a prompt's tokens are counted (``/tokenize``)."""
    fake = FakeBackend(api_key=KEY, max_model_len=400)
    thread = ServerThread(fake.app)
    yield fake, thread
    thread.stop()


def batch(
    fake: FakeBackend, thread: ServerThread, tmp_path: Path, kind: str, *options: str
) -> tuple[int, str, Path]:
    """Two lines through ``thread``'s fake; the exit status, stderr and the output file."""
    datas = [body(f"Key question {i}") for i in range(2)]
    for i, data in enumerate(datas):
        script(fake, data, f"Answer {i}.")
    source = input_file(tmp_path, datas)
    out = tmp_path / "out.jsonl"
    code, err = run(str(source), "--backend", backend_url(thread, kind), "--backend-type", kind,
                    "-o", str(out), "--backoff", "0.01", "--no-progress", *options)  # fmt: skip
    return code, err, out


@pytest.mark.parametrize("kind", KINDS)
def test_with_the_key_every_line_is_answered(
    keyed: Any, tmp_path: Path, kind: str, caplog: pytest.LogCaptureFixture
) -> None:
    fake, thread = keyed
    with caplog.at_level(logging.DEBUG):
        code, err, out = batch(fake, thread, tmp_path, kind, "--backend-api-key", KEY)
    assert code == 0, err
    got = results(out)
    assert {key: message(item)["content"] for key, item in got.items()} == {
        "q0": "Answer 0.",
        "q1": "Answer 1.",
    }
    paths = {path for path, _value in fake.authorizations}
    if kind == "openai":
        assert {"/v1/models", "/tokenize", "/v1/completions"} <= paths
    assert fake.authorizations and all(
        value == f"Bearer {KEY}" for _path, value in fake.authorizations
    ), fake.authorizations
    assert KEY not in err and KEY not in out.read_text("utf-8")
    assert all(KEY not in f"{r.getMessage()} {r.__dict__!r}" for r in caplog.records)


@pytest.mark.parametrize("kind", KINDS)
def test_without_the_key_each_line_fails_on_the_backend_401(
    keyed: Any, tmp_path: Path, kind: str
) -> None:
    fake, thread = keyed
    code, err, out = batch(fake, thread, tmp_path, kind)
    items = results(out).values()
    assert [item["response"]["status_code"] for item in items] == [502, 502]
    assert {item["response"]["body"]["error"]["message"] for item in items} == {
        "the backend answered HTTP 401"
    }
    assert code == 0 and "2 failed" in err, err
    assert fake.authorizations and all(value is None for _p, value in fake.authorizations)


def test_the_variable_is_read_when_the_option_is_absent(
    keyed: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake, thread = keyed
    monkeypatch.setenv(ENV, KEY)
    code, err, out = batch(fake, thread, tmp_path, "openai")
    assert code == 0, err
    assert message(results(out)["q0"])["content"] == "Answer 0."
    assert {value for _path, value in fake.authorizations} == {f"Bearer {KEY}"}


def test_the_option_wins_over_the_variable(
    keyed: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake, thread = keyed
    monkeypatch.setenv(ENV, "sk-wrong\nbad")  # (would be refused, were it read)
    code, err, out = batch(fake, thread, tmp_path, "openai", "--backend-api-key", KEY)
    assert code == 0, err
    assert message(results(out)["q1"])["content"] == "Answer 1."
    assert {value for _path, value in fake.authorizations} == {f"Bearer {KEY}"}


def test_a_wrong_key_fails_the_lines_and_is_never_shown(keyed: Any, tmp_path: Path) -> None:
    fake, thread = keyed
    code, err, out = batch(fake, thread, tmp_path, "openai", "--backend-api-key", "sk-wr0ng")
    items = results(out).values()
    assert [item["response"]["status_code"] for item in items] == [502, 502]
    assert code == 0 and "2 failed" in err, err  # (a 401 is a refusal: not retried)
    assert "sk-wr0ng" not in err and "sk-wr0ng" not in out.read_text("utf-8")
    assert {value for _path, value in fake.authorizations} == {"Bearer sk-wr0ng"}


@pytest.mark.parametrize(
    "bad", ["", "line\nSECRET", "cr\rSECRET", "ctl\x01SECRET", "ключ-SECRET", "caf\xe9SECRET",
            " SECRET"],
)  # fmt: skip
@pytest.mark.parametrize("source", ["option", "variable"])
def test_a_bad_key_is_one_line_naming_its_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bad: str, source: str
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "in.jsonl").write_text("", "utf-8")
    argv = ["in.jsonl", "--backend", "http://127.0.0.1:1/v1", "-o", "out.jsonl"]
    if source == "option":
        argv += ["--backend-api-key", bad]
    else:
        monkeypatch.setenv(ENV, bad)
    code, err = run(*argv)
    name = "--backend-api-key" if source == "option" else ENV
    assert code == 1  # (batch's option errors, as --backend's)
    assert err.startswith(f"granite-format: error: batch: {name}: "), err
    assert err.count("\n") == 1 and "SECRET" not in err and "Traceback" not in err
    assert not (tmp_path / "out.jsonl").exists()
