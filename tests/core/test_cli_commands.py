"""CLI polish (issue 14 item 6): resolve --json errors, demo -m, help examples, the 3.1 hint."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import shlex

import pytest

from granite_formatters import cli
from granite_formatters.plugins import PluginHost

from support.toy_plugins import toy_plugin

HINT = (
    "provided by the example plugin in examples/granite-formatters-granite31 of the "
    "granite-formatters repository; from a clone, install it with "
    "`python3 -m pip install ./examples/granite-formatters-granite31`."
)


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


@pytest.mark.parametrize(
    ("name", "lead"),
    [
        ("granite3.1-dense:8b", "Granite 3.1 is"),
        ("ibm-granite/granite-3.1-2b-instruct", "Granite 3.1 is"),
        ("granite3.1-moe:3b", "Granite 3.1 is"),
        ("granite-3.0-8b-instruct", "No plugin formats Granite 3.0; the nearest, Granite 3.1, is"),
    ],
)
def test_granite_31_and_30_point_to_the_example_plugin(
    toy: PluginHost, name: str, lead: str
) -> None:
    for argv in (("resolve", name), ("render", "-m", name), ("demo", "-m", name)):
        code, _, err = run(*argv, stdin="{}")
        assert code == 1
        assert err.rstrip("\n").endswith(f"{lead} {HINT}"), err
        assert "pip install granite-formatters" not in err
    _, out, _ = run("resolve", "--json", name)
    assert json.loads(out)["error"]["message"].endswith(f"{lead} {HINT}")


@pytest.mark.parametrize(
    "name", ["granite-3.1-8b-base", "granite-3.2-8b-instruct-x", "granite-vision-3.1-2b", "toy2"]
)
def test_no_31_hint_for_other_names(toy: PluginHost, name: str) -> None:
    _, _, err = run("resolve", name)
    assert "granite31" not in err


def test_models_without_plugins_names_no_unpublished_distribution(
    default_host: PluginHost,
) -> None:
    code, out, _ = run("models")
    assert code == 0
    assert out == (
        "No formatter plugins are installed. From a clone of the repository: "
        "python3 -m pip install ./plugins/granite32 ./plugins/granite33 ./plugins/granite4\n"
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
