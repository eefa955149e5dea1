"""The plugin as users get it: installed, found through its entry point, lazy, core-only.

These tests run the command line in a fresh interpreter, so they check the real
installation (its metadata and entry point), not objects registered by the tests.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

GOLDEN = Path(__file__).parent / "golden"
DIST = "granite-formatters-granite31"
MODELS = [
    "granite-3.1-2b-instruct",
    "granite-3.1-8b-instruct",
    "granite-3.1-1b-a400m-instruct",
    "granite-3.1-3b-a800m-instruct",
]


def run(*args: str, env: dict[str, str] | None = None) -> str:
    """``granite-format ARGS`` (as ``python -m granite_formatters``) in a fresh process."""
    environ = {**os.environ, "GRANITE_FORMATTERS_STRICT_PLUGINS": "1", **(env or {})}
    environ.pop("GRANITE_FORMATTERS_LOAD_PLUGINS", None)
    environ.pop("GRANITE_FORMATTERS_DISABLE_PLUGINS", None)
    result = subprocess.run(
        [sys.executable, "-m", "granite_formatters", *args],
        capture_output=True,
        env=environ,
        check=False,
    )
    assert result.returncode == 0, result.stderr.decode("utf-8", "replace")
    return result.stdout.decode("utf-8")


def test_the_distribution_depends_on_the_core_only() -> None:
    # Requirements without an environment marker (extras such as [test] have one).
    runtime = [text for text in metadata.requires(DIST) or [] if ";" not in text]
    assert runtime == ["granite-formatters<0.2,>=0.1"]
    entry_points = metadata.distribution(DIST).entry_points
    assert [(ep.group, ep.name, ep.value) for ep in entry_points] == [
        ("granite_formatters", DIST, "granite_formatters_granite31")
    ]


def test_granite_format_models_lists_the_plugin() -> None:
    listed = json.loads(run("models", "--json"))
    ours = {entry["id"]: entry for entry in listed if entry["plugin"] == DIST}
    assert sorted(ours) == sorted(MODELS)
    table = run("models")
    for model_id in MODELS:
        assert model_id in table


def test_granite_format_plugins_shows_no_problem() -> None:
    plugins = {entry["name"]: entry for entry in json.loads(run("plugins", "--json"))}
    assert plugins[DIST]["errors"] == []
    assert plugins[DIST]["version"] == metadata.version(DIST)


@pytest.mark.parametrize(
    "name",
    ["plain", "tools_and_documents_citations", "tool_results", "keep_special_tokens_in_user"],
)
def test_granite_format_render_gives_the_golden_prompt(name: str, tmp_path: Path) -> None:
    case = json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))
    request = tmp_path / "request.json"
    request.write_text(json.dumps(case["request"]), encoding="utf-8")
    args = ["render", "-m", "granite-3.1-8b-instruct", "--date", case["date"], str(request)]
    if not case["add_generation_prompt"]:
        args.append("--no-generation-prompt")
    if "special_tokens" in case:
        args += ["--special-tokens", case["special_tokens"]]
    assert run(*args) == (GOLDEN / f"{name}.prompt.txt").read_bytes().decode("utf-8")


LAZY_CHECK = """
import sys
import granite_formatters
granite_formatters.list_models()
assert "granite_formatters_granite31" in sys.modules
assert "granite_formatters_granite31.releases" not in sys.modules
granite_formatters.get_formatter("granite3.1-moe:3b").format(
    {"messages": [{"role": "user", "content": "Hi"}]})
assert "granite_formatters_granite31.releases" in sys.modules
"""


def test_the_release_is_imported_only_when_a_model_is_used() -> None:
    subprocess.run([sys.executable, "-c", LAZY_CHECK], check=True, env=dict(os.environ))
