"""The real ``granite-format`` process never prints a traceback.

Each case runs ``python -m granite_formatters`` in a subprocess, because what is under
test is the process: its encodings, its file descriptors and its exit-time flush.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("granite_formatters_granite33")

MODEL = "granite-3.3-8b-instruct"
REQUEST_CAFE = json.dumps({"messages": [{"role": "user", "content": "café"}]}, ensure_ascii=False)


def granite_format(
    *argv: str,
    stdin: bytes | str = b"",
    env: dict[str, str] | None = None,
    **kwargs: Any,
) -> subprocess.CompletedProcess[bytes]:
    data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
    kwargs.setdefault("stdout", subprocess.PIPE)
    return subprocess.run(
        [sys.executable, "-m", "granite_formatters", *argv],
        input=data,
        stderr=subprocess.PIPE,
        env={**os.environ, **(env or {})},
        check=False,
        timeout=120,
        **kwargs,
    )


def one_error_line(proc: subprocess.CompletedProcess[bytes], status: int = 1) -> str:
    """The single stderr line of a failed run (and no traceback)."""
    err = proc.stderr.decode("utf-8")
    assert proc.returncode == status, err
    assert "Traceback" not in err and "Exception ignored" not in err
    assert err.count("\n") == 1 and err.startswith("granite-format: error: "), err
    return err


def test_render_of_a_lone_surrogate_is_one_line() -> None:
    proc = granite_format(
        "render", "-m", MODEL, stdin='{"messages": [{"role": "user", "content": "x\\ud800"}]}'
    )
    assert one_error_line(proc) == (
        "granite-format: error: cannot write the output: the text contains a lone surrogate "
        "(U+D800), which no encoding can write; remove it from the input\n"
    )
    assert proc.stdout == b""


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "batch"])
def test_parse_of_a_non_utf8_file_is_one_line(tmp_path: Path, stream: bool) -> None:
    path = tmp_path / "out.txt"
    path.write_bytes("café ok ".encode() + b"\xff bad")
    argv = ["parse", "-m", MODEL, *(["--stream"] if stream else []), str(path)]
    assert one_error_line(granite_format(*argv)) == (
        f"granite-format: error: cannot read {path}: not UTF-8 text "
        "(invalid start byte at byte 9)\n"
    )
    # The same from stdin.
    proc = granite_format(*argv[:-1], stdin=path.read_bytes())
    assert "cannot read (stdin): not UTF-8 text (invalid start byte at byte 9)" in (
        one_error_line(proc)
    )


def test_closed_stdout_is_one_line() -> None:
    code = (
        "import os, subprocess, sys\n"
        "os.close(1)\n"
        "p = subprocess.run([sys.executable, '-m', 'granite_formatters', 'models'],"
        " stderr=subprocess.PIPE, text=True)\n"
        "sys.stderr.write(f'{p.returncode}|{p.stderr}')\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert proc.stderr == "1|granite-format: error: cannot write the output: stdout is closed\n"


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize(
    "argv",
    [("render", "-m", MODEL), ("models",), ("parse", "-m", MODEL, "--stream"), ("--version",)],
)
def test_a_full_disk_is_one_line(argv: tuple[str, ...]) -> None:
    with open("/dev/full", "wb") as full:
        proc = granite_format(*argv, stdin=REQUEST_CAFE, stdout=full)
    assert one_error_line(proc) == (
        "granite-format: error: cannot write the output: No space left on device\n"
    )


@pytest.mark.parametrize("argv", [("demo",), ("models", "--json"), ("--version",)])
def test_a_closed_pipe_ends_quietly(argv: tuple[str, ...]) -> None:
    """``granite-format demo | head``: the reader has what it wanted; no message, and the
    status a shell reports for a command SIGPIPE ended (128 + 13)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = granite_format(*argv, stdout=write_end)
    finally:
        os.close(write_end)
    assert (proc.returncode, proc.stderr) == (141, b"")


def test_an_ascii_stdout() -> None:
    env = {"PYTHONIOENCODING": "ascii"}
    # A prompt cannot be escaped: one line saying what to do.
    proc = granite_format("render", "-m", MODEL, stdin=REQUEST_CAFE, env=env)
    assert one_error_line(proc) == (
        "granite-format: error: cannot write the output: stdout's encoding (ascii) cannot "
        "represent U+00E9; set PYTHONIOENCODING=utf-8\n"
    )
    # The input is read as UTF-8 whatever the locale says, and JSON falls back to escapes.
    proc = granite_format("parse", "-m", MODEL, "--openai", stdin="café", env=env)
    assert proc.returncode == 0 and proc.stderr == b""
    assert proc.stdout == b'{\n  "role": "assistant",\n  "content": "caf\\u00e9"\n}\n'


def test_a_lone_surrogate_in_parsed_output_is_written_escaped() -> None:
    raw = '<|tool_call|>[{"name": "f", "arguments": {"text": "smile \\ud83d"}}]'
    for argv in (("parse", "-m", MODEL), ("parse", "-m", MODEL, "--openai")):
        proc = granite_format(*argv, stdin=raw)
        assert proc.returncode == 0 and proc.stderr == b"", proc.stderr
        # The parser replaces the lone surrogate with U+FFFD (and notes it).
        assert b"smile \\ufffd" in proc.stdout or "smile \ufffd".encode() in proc.stdout
        json.loads(proc.stdout)


def test_a_message_too_deep_to_serialise_is_one_line() -> None:
    arguments = "[" * 800 + "1" + "]" * 800
    raw = '<|tool_call|>[{"name": "f", "arguments": ' + arguments + "}]"
    proc = granite_format("parse", "-m", MODEL, stdin=raw)
    if proc.returncode == 0:  # the parser keeps arguments too deep as their raw text
        json.loads(proc.stdout)
        return
    assert one_error_line(proc).startswith(
        "granite-format: error: cannot serialise the parsed message:"
    )


@contextlib.contextmanager
def streaming_parse() -> Iterator[subprocess.Popen[bytes]]:
    with subprocess.Popen(
        [sys.executable, "-m", "granite_formatters", "parse", "-m", MODEL, "--stream"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    ) as proc:
        try:
            yield proc
        finally:
            if proc.poll() is None:
                proc.kill()


def wait_for_output(proc: subprocess.Popen[bytes]) -> dict[str, Any]:
    """The next JSON line, read while the input is still open."""
    assert proc.stdout is not None
    # A generous guard against a hang, not a timing assertion.
    ready, _, _ = select.select([proc.stdout], [], [], 60)
    assert ready, "no delta before the input was closed"
    line: dict[str, Any] = json.loads(proc.stdout.readline())
    return line


def test_parse_stream_emits_before_the_input_ends() -> None:
    """Input without a newline is parsed as it arrives, not when a line is complete."""
    with streaming_parse() as proc:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("Hello wörld and more".encode())
        proc.stdin.flush()
        first = wait_for_output(proc)
        proc.stdin.write(b" the end")
        proc.stdin.close()
        rest = [json.loads(line) for line in proc.stdout.read().splitlines()]
    assert set(first) == {"delta", "message"} and first["message"] is None
    assert first["delta"]["content"]
    assert "Hello wörld and more".startswith(first["delta"]["content"])
    lines = [first, *rest]
    assert all(set(line) == {"delta", "message"} for line in lines)
    assert [line["delta"] is None for line in lines] == [False] * (len(lines) - 1) + [True]
    streamed = "".join(line["delta"].get("content", "") for line in lines[:-1])
    assert streamed == lines[-1]["message"]["content"] == "Hello wörld and more the end"


def test_a_utf8_character_split_across_reads_is_kept() -> None:
    data = "café".encode()
    with streaming_parse() as proc:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(data[:4])  # "caf" and the first byte of "é"
        proc.stdin.flush()
        first = wait_for_output(proc)
        proc.stdin.write(data[4:])
        proc.stdin.close()
        rest = [json.loads(line) for line in proc.stdout.read().splitlines()]
    assert first == {"delta": {"role": "assistant", "content": "caf"}, "message": None}
    assert rest[-1]["message"]["content"] == "café"
    assert proc.returncode == 0


DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize(
    "argv",
    [
        ("render", "-m", MODEL, "{file}"),
        ("render", "-m", MODEL, "-"),
        ("parse", "-m", MODEL, "--request", "{file}", "-"),
    ],
    ids=["render file", "render stdin", "parse --request"],
)
def test_a_request_nested_too_deeply_is_the_librarys_error(
    tmp_path: Path, argv: tuple[str, ...]
) -> None:
    # It said "unexpected RecursionError ... (a bug: please report it)".
    # The other commands read no JSON (demo, models, resolve, plugins, serve), and parse
    # reads model output with its bounded JSON scanner.
    deep = (
        '{"messages": [{"role": "user", "content": "x"}], "tools": [{"name": "f", "p": '
        + DEEP
        + "}]}"
    )
    path = tmp_path / "deep.json"
    path.write_text(deep, encoding="utf-8")
    stdin = deep if argv[-1] == "-" and argv[0] == "render" else "answer"
    proc = granite_format(*(str(path) if a == "{file}" else a for a in argv), stdin=stdin)
    where = "(stdin)" if argv[0] == "render" and argv[-1] == "-" else str(path)
    assert one_error_line(proc) == (
        f"granite-format: error: request {where}: the request is nested too deeply to process\n"
    )
