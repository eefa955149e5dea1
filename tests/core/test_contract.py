"""The plugin contract is one module, and the core modules around it form no import cycle."""

from __future__ import annotations

import ast
import inspect
import subprocess
import sys
from pathlib import Path

import pytest

import granite_formatters
from granite_formatters import _hookspecs as hookspecs
from granite_formatters import _plugins as plugins

PACKAGE = Path(granite_formatters.__file__).parent
CORE = [
    "_hookspecs",
    "_registry",
    "_processors",
    "_records",
    "_plugin_records",
    "_errors",
    "_names",
    "_plugins",
    "_api",
]


def package_imports(module: str) -> set[str]:
    """Every package module that ``module`` imports, TYPE_CHECKING blocks and
    function-level imports included."""
    tree = ast.parse((PACKAGE / f"{module}.py").read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                found.add(node.module.split(".")[0])
            else:
                found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
            "granite_formatters."
        ):
            found.add((node.module or "").split(".")[1])
    return found


def test_no_import_cycle_not_even_under_type_checking() -> None:
    graph = {module: package_imports(module) & set(CORE) for module in CORE}
    state: dict[str, int] = {}

    def visit(module: str, path: list[str]) -> None:
        if state.get(module) == 2:
            return
        assert state.get(module) != 1, " -> ".join([*path, module])
        state[module] = 1
        for target in sorted(graph[module]):
            visit(target, [*path, module])
        state[module] = 2

    for module in CORE:
        visit(module, [])
    # The direction that keeps it so: records and errors are leaves below everything.
    assert graph["_records"] <= {"_errors", "_plugin_records"} and graph["_errors"] == set()
    assert graph["_plugin_records"] <= {"_errors"}


@pytest.mark.parametrize("module", CORE)
def test_each_core_module_imports_alone(module: str) -> None:
    subprocess.run(
        [sys.executable, "-c", f"import granite_formatters.{module}"], check=True, timeout=60
    )


def test_hookspecs_is_the_whole_contract() -> None:
    for name in ("Register", "PLUGIN_API_VERSION", "check_api_version", "hookimpl"):
        assert name in hookspecs.__all__ and hasattr(hookspecs, name)
    # The recorder has no copy of the callback's shape: it binds the protocol's signature.
    assert inspect.signature(hookspecs.Register.__call__) == plugins._register_signature()
    recorder_params = inspect.signature(plugins._Recorder.__call__).parameters
    assert [p.kind for p in recorder_params.values()] == [
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
        inspect.Parameter.VAR_POSITIONAL,
        inspect.Parameter.VAR_KEYWORD,
    ]
    assert "Register" not in vars(__import__("granite_formatters._registry")._registry)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        ({"model_id": "m", "no_such_option": 1}, "unexpected keyword argument 'no_such_option'"),
        ({"model_id": "m", "input_processor": None, "output_processor": "a:b"}, "input_processor"),
    ],
)
def test_register_calls_are_checked_against_the_protocol(
    call: dict[str, object], message: str
) -> None:
    recorder = plugins._Recorder("p")
    call = {"input_processor": "a:b", "output_processor": "a:b", **call}
    with pytest.raises(TypeError, match=message):
        recorder(**call)


def test_check_api_version() -> None:
    assert hookspecs.check_api_version(None) is None
    assert hookspecs.check_api_version(hookspecs.PLUGIN_API_VERSION) is None
    major, minor = hookspecs.PLUGIN_API_VERSION
    assert "requires plugin API" in (hookspecs.check_api_version((major + 1, 0)) or "")
    assert "requires plugin API" in (hookspecs.check_api_version((major, minor + 1)) or "")
