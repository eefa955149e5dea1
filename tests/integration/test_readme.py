"""The README's Python example and CLI lines work as written (the 'all' tox envs)."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import shlex
from pathlib import Path

import pytest

from granite_formatters import cli

README = Path(__file__).resolve().parents[2] / "README.md"

pytestmark = pytest.mark.skipif(
    not (
        importlib.util.find_spec("granite_formatters_granite32")
        and importlib.util.find_spec("granite_formatters_granite33")
    ),
    reason="needs both bundled plugins installed (the 'all' tox envs)",
)


def blocks(language: str) -> list[str]:
    """The fenced code blocks of the README whose info string is ``language``."""
    found: list[str] = []
    current: list[str] | None = None
    info = ""
    for line in README.read_text(encoding="utf-8").splitlines(keepends=True):
        if line.startswith("```"):
            if current is None:
                current, info = [], line[3:].strip()
            else:
                if info == language:
                    found.append("".join(current))
                current = None
        elif current is not None:
            current.append(line)
    return found


def test_python_api_example_runs() -> None:
    (example,) = [b for b in blocks("python") if "get_formatter" in b]
    raw_text = 'The capital of France is Paris.<co>0</co>\n\n# Citations:\n<co>0</co> Document 0: "Its capital is Paris."'
    namespace: dict[str, object] = {"raw_text": raw_text}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(example, str(README), "exec"), namespace)
    message = namespace["message"]
    assert message.content == "The capital of France is Paris."  # type: ignore[attr-defined]
    (citation,) = message.citations  # type: ignore[attr-defined]
    assert (citation.context_text, citation.response_begin, citation.response_end) == (
        "Its capital is Paris.",
        0,
        31,
    )
    assert "<|start_of_role|>documents<|end_of_role|>Document 0\n" in str(namespace["prompt"])


def test_cli_lines_parse() -> None:
    (cli_block,) = [b for b in blocks("") if b.lstrip().startswith("granite-format demo")]
    parser = cli.build_parser()
    for line in cli_block.splitlines():
        command = line.split("#", 1)[0].strip()
        if not command:
            continue
        # "[--json]" in the README means the option may be given: give it.
        argv = [a.strip("[]") for a in shlex.split(command)]
        assert argv[0] == "granite-format"
        argv = [a for a in argv[1:] if a not in ("<", "out.txt") and not a.endswith(".json")]
        if argv == ["--version"]:
            continue
        parser.parse_args([*argv, *(["-"] if argv[0] in ("render", "parse") else [])])
