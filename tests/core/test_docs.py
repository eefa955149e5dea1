"""The docs stay in step with the code: every hook and public function is documented."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

import granite_formatters
from granite_formatters import hookspecs

DOCS = Path(__file__).resolve().parents[2] / "docs"

REGISTRY_FUNCTIONS = [
    "get_formatter",
    "resolve_model",
    "list_models",
    "list_plugins",
    "plugin_errors",
    "register_plugin",
    "unregister_plugin",
]


def hook_names() -> list[str]:
    return [
        name
        for name, value in vars(hookspecs).items()
        if inspect.isfunction(value) and hasattr(value, "granite_formatters_spec")
    ]


def test_hooks_are_all_known() -> None:
    assert hook_names() == ["register_formatters"]


@pytest.mark.parametrize("hook", hook_names())
def test_every_hook_is_documented_with_its_signature(hook: str) -> None:
    text = (DOCS / "plugins" / "hooks.md").read_text(encoding="utf-8")
    params = ", ".join(inspect.signature(getattr(hookspecs, hook)).parameters)
    assert f"## `{hook}({params})`" in text


@pytest.mark.parametrize("function", REGISTRY_FUNCTIONS)
def test_every_public_registry_function_is_documented(function: str) -> None:
    assert function in granite_formatters.__all__
    api = (DOCS / "api.md").read_text(encoding="utf-8")
    assert re.search(rf"`{function}\(", api), f"{function} is missing from docs/api.md"


def test_every_public_function_is_in_the_list_above() -> None:
    functions = [
        name
        for name in granite_formatters.__all__
        if inspect.isfunction(getattr(granite_formatters, name))
    ]
    assert sorted(functions) == sorted(REGISTRY_FUNCTIONS)


def test_env_vars_are_documented() -> None:
    from granite_formatters import plugins

    text = (DOCS / "plugins" / "index.md").read_text(encoding="utf-8")
    for var in (plugins.ENV_LOAD, plugins.ENV_DISABLE, plugins.ENV_OVERRIDE, plugins.ENV_STRICT):
        assert f"`{var}=" in text


def test_registration_fields_are_documented() -> None:
    from granite_formatters.hookspecs import Register

    text = (DOCS / "plugins" / "hooks.md").read_text(encoding="utf-8")
    for name in inspect.signature(Register.__call__).parameters:
        if name != "self":
            assert f"| `{name}`" in text, name
