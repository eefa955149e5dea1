"""Failure isolation with real installed plugin distributions.

Runs in the ``isolation`` tox env, which installs the core, the bundled Granite 3.2
plugin and the deliberately broken fixture plugins from ``tests/fixtures/plugins``.
Elsewhere these tests skip.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
from typing import Any

import pytest

FIXTURES = [
    "granite-formatters-broken-import",
    "granite-formatters-broken-hook",
    "granite-formatters-id-taken",
    "granite-formatters-misspelt-hook",
    "granite-formatters-twin-a",
    "granite-formatters-twin-b",
    "granite-formatters-aaa-impostor",
    "granite-formatters-sys-exit",
]


def _installed(name: str) -> bool:
    try:
        importlib.metadata.distribution(name)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


pytestmark = pytest.mark.skipif(
    not all(_installed(name) for name in [*FIXTURES, "granite-formatters-granite32"]),
    reason="the broken fixture plugins are installed only in the 'isolation' tox env",
)


def granite_format(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("GRANITE_FORMATTERS_")}
    environ.update(env)
    return subprocess.run(
        [sys.executable, "-m", "granite_formatters", *args],
        capture_output=True,
        text=True,
        env=environ,
        check=False,
    )


@pytest.fixture(scope="module")
def plugins() -> dict[str, dict[str, Any]]:
    proc = granite_format("plugins", "--json")
    assert proc.returncode == 0, proc.stderr
    return {p["name"]: p for p in json.loads(proc.stdout)}


def test_the_bundled_plugin_still_works() -> None:
    request = json.dumps({"messages": [{"role": "user", "content": "Hi"}]})
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "granite_formatters",
            "render",
            "-m",
            "granite3.2:8b",
            "--date",
            "2025-04-16",
        ],
        input=request,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.endswith(
        "<|start_of_role|>user<|end_of_role|>Hi<|end_of_text|>\n<|start_of_role|>assistant<|end_of_role|>"
    )
    assert (
        "Today's Date: April 16, 2025." in proc.stdout
    )  # the real 3.2 formatter, not the impostor


def test_plugin_that_raises_at_import(plugins: dict[str, dict[str, Any]]) -> None:
    info = plugins["granite-formatters-broken-import"]
    assert info["version"] == "0.0.1" and info["models"] == []
    assert (
        "import failed: RuntimeError('gf_fixture_broken_import cannot be imported"
        in info["errors"][0]
    )


def test_plugin_whose_hook_raises(plugins: dict[str, dict[str, Any]]) -> None:
    info = plugins["granite-formatters-broken-hook"]
    assert info["models"] == []
    assert info["errors"] == [
        "register_formatters hook raised "
        "ValueError('deliberate failure inside register_formatters')"
    ]


def test_plugin_registering_a_taken_id(plugins: dict[str, dict[str, Any]]) -> None:
    info = plugins["granite-formatters-id-taken"]
    assert info["models"] == ["fixture-id-taken-model"]
    assert any(
        "'granite-3.2-8b-instruct' is claimed by plugin granite-formatters-granite32" in e
        for e in info["errors"]
    )
    assert any(
        "'granite3.2:8b' is claimed by plugin granite-formatters-granite32" in e
        for e in info["errors"]
    )
    proc = granite_format("resolve", "fixture-own-alias")
    assert "fixture-id-taken-model" in proc.stdout


def test_plugin_with_a_misspelt_hook(plugins: dict[str, dict[str, Any]]) -> None:
    info = plugins["granite-formatters-misspelt-hook"]
    assert info["hooks"] == [] and info["models"] == []
    assert "implements unknown hook 'register_formatter' (misspelt?)" in info["errors"][0]


def test_two_distributions_sharing_an_entry_point_name(plugins: dict[str, dict[str, Any]]) -> None:
    info = plugins["granite-formatters-twin"]
    assert info["models"] == ["fixture-twin-a-model"]
    assert (
        "is used by distributions granite-formatters-twin-a and granite-formatters-twin-b 0.0.1"
        in info["errors"][0]
    )


def test_plugin_that_calls_sys_exit_at_import(plugins: dict[str, dict[str, Any]]) -> None:
    info = plugins["granite-formatters-sys-exit"]
    assert info["models"] == []
    assert info["errors"] == [
        "import failed: SystemExit('gf_fixture_sys_exit exits at import (deliberate test failure)')"
    ]
    proc = granite_format("resolve", "granite3.2:8b")
    assert proc.returncode == 0 and "granite-3.2-8b-instruct" in proc.stdout


def test_an_impostor_of_the_bundled_entry_point_is_reported_not_loaded(
    plugins: dict[str, dict[str, Any]],
) -> None:
    info = plugins["granite-formatters-aaa-impostor"]
    assert info["version"] == "0.0.1" and info["models"] == []
    assert info["errors"][0].startswith(
        "declares the entry point 'granite-formatters-granite32', which belongs to the "
        "bundled plugin distribution granite-formatters-granite32; it was not loaded."
    )
    real = plugins["granite-formatters-granite32"]
    assert real["errors"] == [] and "granite-3.2-8b-instruct" in real["models"]
    # The allowlist names the bundled plugin, not whatever claims its entry-point name.
    only = granite_format(
        "plugins", "--json", GRANITE_FORMATTERS_LOAD_PLUGINS="granite-formatters-granite32"
    )
    listed = {p["name"]: p for p in json.loads(only.stdout)}
    assert list(listed) == ["granite-formatters-granite32"] and only.stderr == ""
    assert "granite-3.2-8b-instruct" in listed["granite-formatters-granite32"]["models"]


def test_warnings_name_each_plugin_and_version() -> None:
    proc = granite_format("models")
    assert proc.returncode == 0
    for name in (
        "broken-import 0.0.1",
        "broken-hook 0.0.1",
        "misspelt-hook 0.0.1",
        "twin 0.0.1",
        "aaa-impostor 0.0.1",
        "sys-exit 0.0.1",
    ):
        assert f"granite-formatters-{name}" in proc.stderr


@pytest.mark.parametrize(
    "fixture",
    ["broken-import", "broken-hook", "misspelt-hook", "twin", "id-taken", "sys-exit"],
)
def test_strict_mode_makes_each_problem_an_error(fixture: str) -> None:
    # Load only the bundled plugin and one broken fixture, so each case is seen alone.
    names = "granite-formatters-granite32,granite-formatters-" + fixture
    relaxed = granite_format("models", GRANITE_FORMATTERS_LOAD_PLUGINS=names)
    assert relaxed.returncode == 0
    strict = granite_format(
        "models", GRANITE_FORMATTERS_LOAD_PLUGINS=names, GRANITE_FORMATTERS_STRICT_PLUGINS="1"
    )
    assert strict.returncode == 1
    assert strict.stderr.startswith(f"granite-format: error: plugin granite-formatters-{fixture}")
    assert "Traceback" not in strict.stderr


def test_disabling_the_broken_plugins_silences_them() -> None:
    disabled = ",".join(
        f"granite-formatters-{n}"
        for n in (
            "broken-import",
            "broken-hook",
            "misspelt-hook",
            "twin",
            "id-taken",
            "aaa-impostor",
            "sys-exit",
        )
    )
    proc = granite_format("plugins", "--json", GRANITE_FORMATTERS_DISABLE_PLUGINS=disabled)
    bundled = [
        name
        for name in ("granite-formatters-granite32", "granite-formatters-granite33")
        if _installed(name)
    ]
    assert [p["name"] for p in json.loads(proc.stdout)] == bundled
    assert proc.stderr == ""
