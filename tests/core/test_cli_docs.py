"""docs/cli.md stays in step with the CLI: every subcommand and option is documented,
and every command line in it parses."""

from __future__ import annotations

import argparse
import re
import shlex
from pathlib import Path

import pytest

from granite_formatters import _cli as cli

CLI_DOC = Path(__file__).resolve().parents[2] / "docs" / "cli.md"


def subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = cli.build_parser()
    (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(action.choices)


def sections() -> dict[str, str]:
    """The text under each ``## `name` `` heading."""
    text = CLI_DOC.read_text(encoding="utf-8")
    parts = re.split(r"^## `([^`]+)`\n", text, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def test_every_subcommand_has_a_section() -> None:
    documented = [name for name in sections() if not name.startswith("-")]
    assert documented == list(subparsers())
    assert "--version" in sections()


@pytest.mark.parametrize("name", list(subparsers()))
def test_every_option_is_documented_in_its_section(name: str) -> None:
    section = sections()[name]
    for action in subparsers()[name]._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        if action.option_strings:
            for option in action.option_strings:
                assert f"`{option}" in section or f" {option}" in section, (name, option)
        else:
            assert f"`{action.dest.upper()}`" in section, (name, action.dest)
    # The example on the --help page is in the docs too.
    assert cli.EXAMPLES[name] in section


def test_every_command_line_in_the_doc_parses() -> None:
    blocks: list[str] = []
    current: list[str] | None = None
    for line in CLI_DOC.read_text(encoding="utf-8").splitlines(keepends=True):
        if line.startswith("```"):
            if current is None:
                current = [] if line.strip() == "```" else None
                if current is None:
                    current = ["<not shell>"]
            else:
                if current[:1] != ["<not shell>"]:
                    blocks.append("".join(current))
                current = None
        elif current is not None:
            current.append(line)
    parser = cli.build_parser()
    seen = set()
    for block in blocks:
        for line in block.splitlines():
            command = line.split("|")[-1].split("#", 1)[0].split("<", 1)[0].strip()
            if not command.startswith("granite-format "):
                continue
            argv = shlex.split(command)[1:]
            if "COMMAND" in argv or argv == ["--version"]:
                continue
            parser.parse_args(argv)
            seen.add(argv[0])
    assert seen == set(subparsers())
