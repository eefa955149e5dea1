"""The docs stay in step with the code: every hook and public function is documented, and the
checklist for a bundled release matches the plugin folders (what they contain, what they import)."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import re
import sys
from pathlib import Path

import pytest

import granite_formatters
from granite_formatters import _hookspecs as hookspecs

from support import oracle, releases

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
    from granite_formatters import _plugins as plugins

    text = (DOCS / "plugins" / "index.md").read_text(encoding="utf-8")
    for var in (plugins.ENV_LOAD, plugins.ENV_DISABLE, plugins.ENV_OVERRIDE, plugins.ENV_STRICT):
        assert f"`{var}=" in text


def test_registration_fields_are_documented() -> None:
    from granite_formatters._hookspecs import Register

    text = (DOCS / "plugins" / "hooks.md").read_text(encoding="utf-8")
    for name in inspect.signature(Register.__call__).parameters:
        if name != "self":
            assert f"| `{name}`" in text, name


# --- docs/plugins/adding-a-release.md stays in step with the bundled plugin folders ---

ROOT = DOCS.parent
ADDING = DOCS / "plugins" / "adding-a-release.md"


def plugin_folders() -> list[Path]:
    return sorted(p for p in (ROOT / "plugins").iterdir() if (p / "pyproject.toml").is_file())


def test_adding_a_release_is_linked_from_the_indexes() -> None:
    assert "(plugins/adding-a-release.md)" in (DOCS / "index.md").read_text(encoding="utf-8")
    assert "(adding-a-release.md)" in (DOCS / "plugins" / "index.md").read_text(encoding="utf-8")


def test_adding_a_release_names_what_exists() -> None:
    """The files, scripts and names the checklist mentions exist where it says."""
    from granite_formatters import granite3
    from granite_formatters._plugins import BUNDLED_PLUGINS

    text = ADDING.read_text(encoding="utf-8")
    for path in re.findall(r"`((?:core|tests|fuzz)/[\w/.-]+\.py)`", text):
        assert (ROOT / path).is_file(), path
    for script in re.findall(r"`python (tests/[\w.]+\.py)", text):
        assert (ROOT / script).is_file(), script
    assert (ROOT / "toxfile.py").is_file()
    for module, name in [("cite_format", "CITE_TOKEN_CITATIONS"), ("co_format", "CO_CITATIONS")]:
        assert f"`{name}` in `granite_formatters/syntax/_citations/{module}.py`" in text
        assert name in granite3.__all__
        declared = getattr(
            __import__(f"granite_formatters.syntax._citations.{module}", fromlist=[name]), name
        )
        assert getattr(granite3, name) is declared
        assert (
            getattr(__import__(f"granite_formatters.granite3._{module}", fromlist=[name]), name)
            is declared
        )
    assert "`BUNDLED_PLUGINS`" in text
    assert {f"granite-formatters-{p.name}" for p in plugin_folders()} <= BUNDLED_PLUGINS


@pytest.mark.parametrize("folder", plugin_folders(), ids=lambda p: p.name)
def test_every_bundled_plugin_folder_follows_the_checklist(folder: Path) -> None:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib

    plugin = folder.name
    package = folder / "src" / f"granite_formatters_{plugin}"
    data = tomllib.loads((folder / "pyproject.toml").read_text(encoding="utf-8"))
    assert data["project"]["name"] == f"granite-formatters-{plugin}"
    assert data["project"]["entry-points"]["granite_formatters"] == {
        f"granite-formatters-{plugin}": f"granite_formatters_{plugin}.plugin"
    }
    # The model catalogue (its agreement with the hook: tests/core/test_catalog.py).
    assert data["project"]["entry-points"]["granite_formatters.models"]
    assert data["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"] == [
        f"src/granite_formatters_{plugin}"
    ]
    table = data["tool"]["granite-formatters"]
    assert (DOCS.parent / "tests" / "golden" / table["goldens"] / "requests").is_dir()
    assert table["oracle"] in oracle.ORACLE_INPUTS
    assert set(table["features"]) <= releases.FEATURES
    assert table["releases"]
    for entry in table["releases"].values():
        assert set(entry) == {"template", "model"}
    for name in ("__init__.py", "plugin.py", "py.typed"):
        assert (package / name).is_file(), f"{plugin}: {name}"
    if (package / "releases.py").is_file() and not (package / "input.py").is_file():
        # A folder of release declarations: no renderer or parser of its own.
        for source in package.rglob("*.py"):
            text = source.read_text(encoding="utf-8")
            for method in ("def transform(", "def feed(", "def close("):
                assert method not in text, f"{plugin}: {source.name} has {method}"
        assert "release=" in (package / "plugin.py").read_text(encoding="utf-8")
    else:
        # (The Granite 3 family, until its prompts move onto its release declarations:
        # its releases.py is rendered by the engine in the tests, and parses its output.)
        assert (package / "input.py").is_file(), f"{plugin}: input.py"
        assert not (package / "output.py").exists(), f"{plugin}: output.py"
    assert "def register_formatters(" in (package / "plugin.py").read_text(encoding="utf-8")
    # The package imports nothing, so the catalogue reaches the releases without the hook.
    init = ast.parse((package / "__init__.py").read_text(encoding="utf-8"))
    assert not [n for n in ast.walk(init) if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert (folder / "README.md").is_file()


def _imports(path: Path) -> list[tuple[str, list[str]]]:
    """(module, imported names) of every import in ``path``; names are [] for ``import m``."""
    found: list[tuple[str, list[str]]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.extend((alias.name, []) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.module, [alias.name for alias in node.names]))
    return found


@pytest.mark.parametrize("folder", plugin_folders(), ids=lambda p: p.name)
def test_a_plugin_imports_only_public_names_of_the_core(folder: Path) -> None:
    """What the page says a plugin may import: public granite_formatters names, no other plugin."""
    own = f"granite_formatters_{folder.name}"
    sources = sorted((folder / "src").rglob("*.py"))
    assert sources
    checked = 0
    for source in sources:
        where = source.relative_to(ROOT)
        for module, names in _imports(source):
            top = module.split(".")[0]
            if top == own:
                continue
            assert not top.startswith("granite_formatters_"), f"{where} imports {module}"
            if top != "granite_formatters":
                continue
            checked += 1
            assert not any(part.startswith("_") for part in module.split(".")), (
                f"{where} imports the private module {module}"
            )
            public = getattr(importlib.import_module(module), "__all__", None)
            for name in names:
                assert not name.startswith("_"), f"{where} imports {module}.{name}"
                if public is not None:
                    assert name in public or importlib.util.find_spec(f"{module}.{name}"), (
                        f"{where} imports {module}.{name}, not in {module}.__all__"
                    )
    assert checked


def _reasoning_examples() -> list[list[str]]:
    text = (DOCS / "output-formats.md").read_text(encoding="utf-8")
    section = text[text.index("## Reasoning: the rules per release") :]
    rows = []
    for line in section.splitlines():
        if re.match(r"\| 3\.\d \|", line):
            cells = [cell.strip() for cell in line.strip().strip("|").split(" | ")]
            rows.append([cell[1:-1] if cell.startswith("`") else cell for cell in cells])
    return rows


@pytest.mark.parametrize("row", _reasoning_examples(), ids=lambda row: f"{row[0]}-{row[2][:30]}")
def test_the_reasoning_examples_hold(row: list[str]) -> None:
    version, request_kind, output, content, reasoning, note = row
    release = f"granite_formatters_granite{version.replace('.', '')}"
    if importlib.util.find_spec(release) is None:
        pytest.skip(f"{release} is not installed")
    messages = [{"role": "user", "content": "Hi"}]
    request = {
        "none": None,
        "no thinking key": {"messages": messages},
        "thinking: true": {"messages": messages, "chat_template_kwargs": {"thinking": True}},
        "thinking: false": {"messages": messages, "chat_template_kwargs": {"thinking": False}},
    }[request_kind]
    formatter = granite_formatters.get_formatter(f"granite-{version}-8b-instruct")
    message = formatter.output_processor.transform(output, request)
    assert message.content == content
    assert message.reasoning_content == (None if reasoning == "null" else reasoning)
    assert message.notes == ([note] if note else [])
