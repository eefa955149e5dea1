"""CLI polish: resolve --json errors, demo -m, help examples, plugins' hints for unknown
names."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import shlex
from typing import Any

import pytest

from granite_formatters import _cli as cli
from granite_formatters import hookimpl
from granite_formatters._plugins import PluginHost

from support.toy_plugins import toy_plugin

HINT = "Toy 3.1 is formatted by the toy-31 plugin: pip install toy-31."


def run(*argv: str, stdin: str = "") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(list(argv), stdout=out, stderr=err, stdin=io.StringIO(stdin))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def toy(default_host: PluginHost) -> PluginHost:
    default_host.register_plugin(
        toy_plugin({"model_id": "toy-model", "aliases": ["toy"]}), name="toy-plugin"
    )
    return default_host


def test_resolve_json_prints_an_error_object_for_an_unknown_name(toy: PluginHost) -> None:
    code, out, err = run("resolve", "--json", "toy-modle")
    assert code == 1
    data = json.loads(out)
    assert data["query"] == "toy-modle"
    assert data["error"]["type"] == "UnknownModelError"
    assert data["error"]["suggestions"] == ["toy-model"]
    assert data["error"]["message"].startswith("Unknown model 'toy-modle'. Did you mean: ")
    assert "\n" not in data["error"]["message"]
    assert err.startswith("granite-format: error: Unknown model 'toy-modle'.")
    assert err.count("\n") == 1


def test_resolve_json_bounds_a_huge_name(toy: PluginHost) -> None:
    code, out, _ = run("resolve", "--json", "x" * 100_000)
    assert code == 1
    assert json.loads(out)["query"] == repr("x" * 200) + "... (100000 characters)"


class _HintPlugin:
    """Declares a hint and no model."""

    @hookimpl
    def register_formatters(self, hint: Any) -> None:
        hint(["granite-3.1", "granite-3.1-*"], HINT)


@pytest.mark.parametrize(
    "name", ["granite3.1-dense:8b", "ibm-granite/granite-3.1-2b-instruct", "granite3.1"]
)
def test_a_plugins_hint_ends_the_unknown_model_error(toy: PluginHost, name: str) -> None:
    toy.register_plugin(_HintPlugin(), name="hints")
    for argv in (("resolve", name), ("render", "-m", name), ("demo", "-m", name)):
        code, _, err = run(*argv, stdin="{}")
        assert code == 1
        assert err.startswith(f"granite-format: error: Unknown model {name!r}.")
        assert err.endswith(f" {HINT}\n"), err
    _, out, _ = run("resolve", "--json", name)
    assert json.loads(out)["error"]["message"].endswith(f" {HINT}")


@pytest.mark.parametrize(
    "name", ["granite-3.1-8b-base", "granite-3.2-8b-instruct-x", "granite-vision-3.1-2b", "toy2"]
)
def test_no_hint_for_names_its_patterns_do_not_match(toy: PluginHost, name: str) -> None:
    toy.register_plugin(_HintPlugin(), name="hints")
    _, _, err = run("resolve", name)
    assert err.startswith("granite-format: error: Unknown model")
    assert HINT not in err


def test_no_hint_without_a_plugin_declaring_one(toy: PluginHost) -> None:
    _, _, err = run("resolve", "granite3.1-dense:8b")
    assert err.startswith("granite-format: error: Unknown model")
    assert "3.1" not in err.split("Unknown model", 1)[1].split("'", 2)[2]


def test_models_without_plugins_names_no_unpublished_distribution(
    default_host: PluginHost,
) -> None:
    code, out, _ = run("models")
    assert code == 0
    assert out == (
        "No formatter plugins are installed. From a clone of the repository: "
        "python3 -m pip install ./plugins/*\n"
    )


def help_page(*argv: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        cli.build_parser().parse_args([*argv, "--help"])
    return out.getvalue()


def subcommands() -> list[str]:
    parser = cli.build_parser()
    (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return list(action.choices)


def test_every_help_page_carries_an_example_that_parses() -> None:
    assert sorted(subcommands()) == sorted(cli.EXAMPLES)
    pages = {"": help_page(), **{name: help_page(name) for name in subcommands()}}
    parser = cli.build_parser()
    for name, page in pages.items():
        assert "\nexample:\n  granite-format " in page, name
        examples = page.split("\nexample:\n", 1)[1].splitlines()
        for line in examples:
            if not line.startswith("  granite-format "):
                continue
            argv = shlex.split(line.split("<", 1)[0])[1:]
            parser.parse_args(argv)
    assert cli.EXAMPLES["render"] in pages["render"]
