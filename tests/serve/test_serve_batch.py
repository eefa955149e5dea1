"""``granite-format batch``: Batch API files through the fake backend on a loopback socket."""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from granite_formatters import get_formatter
from granite_formatters._batch.lines import dumps, finished, read_requests, result_line
from granite_formatters._batch.progress import progress_bar
from granite_formatters._batch.runner import Tally
from granite_formatters._cli import main

from .conftest import KINDS, backend_url
from .servers import FakeBackend, Script, ServerThread

MODEL = "granite3.3:8b"
TOOL_CALL = '<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Paris"}}]'
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "The weather in a city.",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
]


def body(text: str, **more: Any) -> dict[str, Any]:
    return {"model": MODEL, "messages": [{"role": "user", "content": text}], **more}


def line(custom_id: str, data: dict[str, Any], **more: Any) -> str:
    fields = {"custom_id": custom_id, "method": "POST", "url": "/v1/chat/completions"}
    return json.dumps({**fields, "body": data, **more})


def input_file(folder: Path, datas: list[dict[str, Any]]) -> Path:
    """``folder/in.jsonl``: a line per body, with the custom ids ``q0``, ``q1``, ..."""
    source = folder / "in.jsonl"
    source.write_text("".join(line(f"q{i}", d) + "\n" for i, d in enumerate(datas)), "utf-8")
    return source


def prompt_of(data: dict[str, Any]) -> str:
    request = {k: v for k, v in data.items() if k in ("messages", "tools")}
    return get_formatter(str(data["model"])).format(request)


def script(fake: FakeBackend, data: dict[str, Any], output: str, **more: Any) -> None:
    fake.script(prompt_of(data), Script(output, **more))


def run(*args: str) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err):  # (the summary goes to sys.stderr)
        code = main(["batch", *args], stdout=io.StringIO(), stderr=err)
    return code, err.getvalue()


def results(path: Path) -> dict[str, dict[str, Any]]:
    """The output lines by custom_id (each must come once)."""
    lines = [json.loads(text) for text in path.read_text(encoding="utf-8").splitlines()]
    by_id = {
        str(item["custom_id"] if item["custom_id"] is not None else item["error"]["line"]): item
        for item in lines
    }
    assert len(by_id) == len(lines), "a line was written twice"
    return by_id


def message(item: dict[str, Any]) -> dict[str, Any]:
    assert item["error"] is None and item["response"]["status_code"] == 200, item
    choice = item["response"]["body"]["choices"][0]
    return dict(choice["message"])


@pytest.fixture
def fake() -> Any:
    backend = FakeBackend()
    thread = ServerThread(backend.app)
    yield backend, thread
    thread.stop()


@pytest.mark.parametrize("kind", KINDS)
def test_each_line_answered_or_refused_by_name(fake: Any, tmp_path: Path, kind: str) -> None:
    backend, thread = fake
    plain = body("Hello")
    tools = body("Weather in Paris?", tools=TOOLS)
    script(backend, plain, "Hello! How can I help?")
    script(backend, tools, TOOL_CALL)
    lines = [
        line("plain", plain),
        "{not json",
        line("tools", tools),
        line("get", plain, method="GET"),
        line("embed", plain, url="/v1/embeddings"),
        json.dumps({"method": "POST", "url": "/v1/chat/completions", "body": plain}),
        line("nobody", plain, body=[1]),
        line("unknown", {**plain, "model": "no-such-model"}),
        line("plain", plain),
        line("streamed", {**plain, "stream": True}),
        "",
    ]
    source = tmp_path / "in.jsonl"
    source.write_text("\n".join(lines), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    code, err = run(str(source), "--backend", backend_url(thread, kind), "--backend-type", kind,
                    "-o", str(out), "--concurrency", "3")  # fmt: skip
    assert code == 0, err
    got = results(out)
    assert set(got) == {
        "plain",
        "2",
        "tools",
        "get",
        "embed",
        "6",
        "nobody",
        "unknown",
        "9",
        "streamed",
    }
    assert message(got["plain"])["content"] == "Hello! How can I help?"
    calls = message(got["tools"])["tool_calls"]
    assert [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in calls] == [
        ("get_weather", {"city": "Paris"})
    ]
    assert got["tools"]["response"]["body"]["choices"][0]["finish_reason"] == "tool_calls"
    errors = {key: got[key]["error"] for key in ("2", "get", "embed", "6", "nobody", "9")}
    assert errors["2"]["message"].startswith("line 2 is not valid JSON (")
    assert errors["get"]["message"] == "method: must be 'POST', got 'GET'"
    assert errors["embed"]["message"] == "url: must be '/v1/chat/completions', got '/v1/embeddings'"
    assert errors["6"]["param"] == "custom_id"
    assert errors["nobody"]["param"] == "body"
    assert errors["9"]["message"] == "custom_id: 'plain' is used by an earlier line"
    unknown = got["unknown"]["response"]
    assert unknown["status_code"] == 404 and unknown["body"]["error"]["param"] == "model"
    streamed = got["streamed"]["response"]
    assert streamed["status_code"] == 400 and streamed["body"]["error"]["param"] == "stream"
    assert all(item["id"].startswith("batch_req_") for item in got.values())
    assert "10 lines written (8 failed)" in err


def test_model_forced(fake: Any, tmp_path: Path) -> None:
    backend, thread = fake
    data = body("Hi")
    script(backend, data, "Hi there.")
    source = tmp_path / "in.jsonl"
    source.write_text(line("a", {**data, "model": "whatever"}) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    code, err = run(str(source), "--backend", thread.url + "/v1", "-o", str(out), "-m", MODEL)
    assert code == 0, err
    assert message(results(out)["a"])["content"] == "Hi there."


def test_backend_failing_for_a_while_is_retried(fake: Any, tmp_path: Path) -> None:
    backend, thread = fake
    datas = [body(f"Question {i}") for i in range(6)]
    for i, data in enumerate(datas):
        fault = {"fault": "status500", "fault_times": 2} if i % 2 else {}
        script(backend, data, f"Answer {i}.", **fault)
    source = input_file(tmp_path, datas)
    out = tmp_path / "out.jsonl"
    code, err = run(str(source), "--backend", thread.url + "/v1", "-o", str(out),
                    "--retries", "2", "--backoff", "0.01")  # fmt: skip
    assert code == 0, err
    got = results(out)
    assert {key: message(item)["content"] for key, item in got.items()} == {
        f"q{i}": f"Answer {i}." for i in range(6)
    }
    assert "6 tries repeated" in err


def test_a_backend_refusal_is_not_retried(tmp_path: Path) -> None:
    backend = FakeBackend(max_model_len=64)  # (vLLM answers 400: over the context)
    thread = ServerThread(backend.app)
    try:
        data = body("Hello", max_tokens=1000)
        script(backend, data, "Hi.")
        source = tmp_path / "in.jsonl"
        source.write_text(line("a", data) + "\n", "utf-8")
        out = tmp_path / "out.jsonl"
        code, err = run(str(source), "--backend", thread.url + "/v1", "-o", str(out),
                        "--backoff", "0.01")  # fmt: skip
    finally:
        thread.stop()
    assert len(backend.requests) == 1
    response = results(out)["a"]["response"]
    assert response["status_code"] == 502
    assert response["body"]["error"]["message"] == "the backend answered HTTP 400"
    assert response["body"]["error"]["code"] == "backend_refused"
    assert code == 0 and "tries repeated" not in err and "1 failed" in err


def test_stalled_backend_then_rerun_completes(fake: Any, tmp_path: Path) -> None:
    backend, thread = fake
    datas = [body(f"Question {i}") for i in range(4)]
    for i, data in enumerate(datas):
        fault = {"fault": "hang_headers", "fault_times": 1} if i == 2 else {}
        script(backend, data, f"Answer {i}.", **fault)
    source = input_file(tmp_path, datas)
    out = tmp_path / "out.jsonl"
    args = (str(source), "--backend", thread.url + "/v1", "-o", str(out), "--timeout", "0.5")
    code, err = run(*args, "--retries", "0")
    assert code == 1
    assert "1 lines failed on the backend after every try; run the same command again" in err
    first = results(out)
    assert first["q2"]["response"]["status_code"] == 504
    assert (
        first["q2"]["response"]["body"]["error"]["message"] == "the backend did not answer in time"
    )
    sent = len(backend.requests)
    code, err = run(*args)
    assert code == 0, err
    got = results(out)
    assert {key: message(item)["content"] for key, item in got.items()} == {
        f"q{i}": f"Answer {i}." for i in range(4)
    }
    assert len(backend.requests) == sent + 1  # only the failed line went again
    assert "3 already in the output" in err


def test_resume_drops_a_cut_last_line(fake: Any, tmp_path: Path) -> None:
    backend, thread = fake
    datas = [body(f"Question {i}") for i in range(3)]
    for i, data in enumerate(datas):
        script(backend, data, f"Answer {i}.")
    source = input_file(tmp_path, datas)
    out = tmp_path / "out.jsonl"
    code, err = run(str(source), "--backend", thread.url + "/v1", "-o", str(out))
    assert code == 0, err
    kept = [text for text in out.read_text("utf-8").splitlines() if '"q1"' in text]
    out.write_text(kept[0] + "\n" + kept[0][:40], encoding="utf-8")  # q1, then a crash
    sent = len(backend.requests)
    code, err = run(str(source), "--backend", thread.url + "/v1", "-o", str(out))
    assert code == 0, err
    got = results(out)
    assert sorted(got) == ["q0", "q1", "q2"]
    assert len(backend.requests) == sent + 2
    assert got["q1"]["id"] == json.loads(kept[0])["id"]


def test_interrupt_leaves_whole_lines_and_rerun_completes(fake: Any, tmp_path: Path) -> None:
    backend, thread = fake
    datas = [body(f"Question {i}") for i in range(6)]
    for i, data in enumerate(datas):
        script(backend, data, f"Answer {i}.", **({"fault": "hang_body"} if i >= 2 else {}))
    source = input_file(tmp_path, datas)
    out = tmp_path / "out.jsonl"
    command = [sys.executable, "-m", "granite_formatters", "batch", str(source),
               "--backend", thread.url + "/v1", "-o", str(out), "--concurrency", "1"]  # fmt: skip
    # Ctrl-C's default action in the child, even when this test runs where SIGINT is
    # ignored (a shell's background job inherits SIG_IGN, and Python then installs no
    # KeyboardInterrupt handler): the command is tested as a terminal runs it.
    process = subprocess.Popen(
        command,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and (not out.exists() or out.read_text().count("\n") < 2):
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=30)
    assert process.returncode == 130, err
    assert "Traceback" not in err
    assert "granite-format: error: interrupted" in err
    assert sorted(results(out)) == ["q0", "q1"]
    for i, data in enumerate(datas):
        script(backend, data, f"Answer {i}.")
    code, err = run(str(source), "--backend", thread.url + "/v1", "-o", str(out))
    assert code == 0, err
    assert {k: message(v)["content"] for k, v in results(out).items()} == {
        f"q{i}": f"Answer {i}." for i in range(6)
    }


def test_prompts_only_and_parse(tmp_path: Path) -> None:
    plain = body("Hello", max_tokens=50, stop=["END"])
    tools = body("Weather in Paris?", tools=TOOLS)
    source = tmp_path / "in.jsonl"
    source.write_text(line("plain", plain) + "\n" + line("tools", tools) + "\n", "utf-8")
    prompts = tmp_path / "prompts.jsonl"
    code, err = run(str(source), "--prompts-only", "-o", str(prompts))
    assert code == 0, err
    written = [json.loads(text) for text in prompts.read_text("utf-8").splitlines()]
    assert written == [
        {"custom_id": "plain", "prompt": prompt_of(plain), "stop": ["<|end_of_text|>", "END"],
         "max_tokens": 50},
        {"custom_id": "tools", "prompt": prompt_of(tools), "stop": ["<|end_of_text|>"]},
    ]  # fmt: skip
    raw = tmp_path / "raw.jsonl"
    raw.write_text(
        json.dumps({"custom_id": "tools", "text": TOOL_CALL}) + "\n"
        + json.dumps({"custom_id": "plain", "text": "Hi", "finish_reason": "length"}) + "\n"
        + json.dumps({"custom_id": "gone", "text": "?"}) + "\n",
        "utf-8",
    )  # fmt: skip
    parsed = tmp_path / "parsed.jsonl"
    code, err = run("parse", "--request-file", str(source), str(raw), "-o", str(parsed))
    assert code == 0, err
    got = results(parsed)
    calls = message(got["tools"])["tool_calls"]
    assert calls[0]["function"]["name"] == "get_weather"
    assert message(got["plain"])["content"] == "Hi"
    assert got["plain"]["response"]["body"]["choices"][0]["finish_reason"] == "length"
    assert got["gone"]["error"]["message"] == "custom_id: 'gone' is not in the request file"


@pytest.mark.parametrize(
    ("argv", "text"),
    [
        (["in.jsonl", "-o", "o"], "batch: --backend URL is required (or --prompts-only)"),
        (["in.jsonl", "--backend", "http://h"], "batch: -o OUTPUT.jsonl is required"),
        (["in.jsonl", "--backend", "ftp://h", "-o", "o"], "expected an http:// or https:// URL"),
        (["parse", "raw.jsonl"], "usage: granite-format batch parse --request-file"),
        (["missing.jsonl", "--prompts-only"], "batch: missing.jsonl: No such file or directory"),
    ],
)
def test_option_errors(tmp_path: Path, monkeypatch: Any, argv: list[str], text: str) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "in.jsonl").write_text("", "utf-8")
    code, err = run(*argv)
    assert code == 1
    assert err.startswith("granite-format: error: ") and text in err
    assert "Traceback" not in err


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_on_a_terminal_only() -> None:
    pytest.importorskip("tqdm")
    screen = _Terminal()
    with progress_bar(screen) as show:
        show(Tally(total=4, done=1))
        show(Tally(total=4, done=3, failed=1))
    assert "3/4" in screen.getvalue() and "failed=1" in screen.getvalue()
    plain = io.StringIO()
    with progress_bar(plain) as show:
        show(Tally(total=4, done=3))
    assert plain.getvalue() == ""


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\r\n"))))
def test_every_non_blank_line_gives_one_item(texts: list[str]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "in.jsonl"
        path.write_text("".join(text + "\n" for text in texts), encoding="utf-8")
        items = list(read_requests(path))
    assert [item.number for item in items] == [
        number for number, text in enumerate(texts, 1) if text.strip()
    ]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 5), st.data())
def test_resume_keeps_exactly_the_whole_lines(count: int, data: st.DataObject) -> None:
    lines = [dumps(result_line(f"é{i}", 200, {"n": i})) + "\n" for i in range(count)]
    text = "".join(lines)
    cut = data.draw(st.integers(0, len(text)))
    whole = text[:cut].count("\n")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "out.jsonl"
        path.write_text(text[:cut], encoding="utf-8")
        done = finished(path)
        assert path.read_text(encoding="utf-8") == "".join(lines[:whole])
    assert done.ids == {f"é{i}" for i in range(whole)}
