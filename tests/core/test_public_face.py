"""The public face is one checked-in list, and the packages match it exactly.

``support.public_api`` names every public module (a path with no component starting
with an underscore) of the core and of each bundled plugin package, with its names.
These tests find the public modules of the installed packages, read each one's
``__all__`` with ``ast`` and import it, and compare with the list: a module or a name
added or removed in the code without the list (or the other way round) fails here. No
module is exempt. The docs name everything the list holds ("documented = public").
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import re
from pathlib import Path

import pytest

from support.public_api import CORE, FACE_EXTRAS, PLUGINS, PUBLIC_API

ROOT = Path(__file__).resolve().parents[2]


def _packages() -> list[str]:
    """The core, the bundled plugin packages and the example plugin when installed."""
    names = ["granite_formatters"]
    for folder in ("plugins", "examples"):
        for pyproject in sorted((ROOT / folder).glob("*/pyproject.toml")):
            for package in sorted((pyproject.parent / "src").glob("*/__init__.py")):
                if importlib.util.find_spec(package.parent.name) is not None:
                    names.append(package.parent.name)
    return names


def _public_modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for package in _packages():
        spec = importlib.util.find_spec(package)
        assert spec is not None and spec.origin is not None
        root = Path(spec.origin).parent
        for path in sorted(root.rglob("*.py")):
            parts = path.relative_to(root.parent).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            if not any(part.startswith("_") for part in parts):
                found[".".join(parts)] = path
    return found


MODULES = _public_modules()


def _installed(module: str) -> bool:
    """Whether the distribution holding ``module`` is installed (a tox cell installs the
    core with one bundled plugin, or none, and the example plugin only in its own env)."""
    return importlib.util.find_spec(module.partition(".")[0]) is not None


#: The listed modules of the installed distributions.
INSTALLED = {name: names for name, names in PUBLIC_API.items() if _installed(name)}


def _is_type_var(value: ast.expr | None) -> bool:
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id in ("TypeVar", "ParamSpec")
    )


def _bound(body: list[ast.stmt]) -> tuple[set[str], set[str]]:
    """The public names a module body defines, and those it imports from the package
    (its own modules, public or private): what it may re-export."""
    defined: set[str] = set()
    imported: set[str] = set()
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, ast.Assign) and not _is_type_var(node.value):
            for target in node.targets:
                elements = target.elts if isinstance(target, ast.Tuple) else [target]
                defined.update(e.id for e in elements if isinstance(e, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            if not _is_type_var(node.value):
                defined.add(node.target.id)
        elif isinstance(node, ast.ImportFrom):
            if node.level or (node.module or "").startswith("granite_formatters"):
                imported.update(alias.asname or alias.name for alias in node.names)
        elif isinstance(node, (ast.If, ast.Try)):
            branches = [node.body, node.orelse]
            if isinstance(node, ast.Try):
                branches += [handler.body for handler in node.handlers] + [node.finalbody]
            for branch in branches:
                inner_defined, inner_imported = _bound(branch)
                defined |= inner_defined
                imported |= inner_imported
    public = {n for n in defined | imported if not n.startswith("_")}
    return defined & public, imported & public


def _declared_all(tree: ast.Module) -> list[str] | None:
    for node in tree.body:
        if isinstance(node, ast.Assign):
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        else:
            continue
        if isinstance(target, ast.Name) and target.id == "__all__":
            return list(ast.literal_eval(value))
    return None


def test_the_public_modules_are_the_listed_ones() -> None:
    assert sorted(MODULES) == sorted(INSTALLED), (
        f"public, not listed: {sorted(set(MODULES) - set(INSTALLED))}; "
        f"listed, not public: {sorted(set(INSTALLED) - set(MODULES))} "
        "(list a new public module in tests/support/public_api.py, or name it with a "
        "leading underscore)"
    )


@pytest.mark.parametrize("name", sorted(INSTALLED))
def test_each_module_publishes_exactly_its_listed_names(name: str) -> None:
    path = MODULES[name]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    published = _declared_all(tree)
    assert published is not None, f"{name} has no __all__"
    assert len(published) == len(set(published)), f"{name}.__all__ repeats a name"
    assert sorted(published) == sorted(INSTALLED[name]), (
        f"{name}.__all__ and tests/support/public_api.py differ: "
        f"only in __all__ {sorted(set(published) - set(INSTALLED[name]))}, "
        f"only listed {sorted(set(INSTALLED[name]) - set(published))}"
    )
    # What the module defines, it publishes; what it publishes, it defines or imports
    # from the package (the face of a private module).
    defined, imported = _bound(tree.body)
    assert defined <= set(published), f"{name} defines unlisted {sorted(defined - set(published))}"
    # (A dunder such as __version__ may be listed, as the root lists it; it must resolve.)
    listed = {item for item in published if not item.startswith("__")}
    assert listed <= defined | imported, (
        f"{name} lists names it neither defines nor imports: {sorted(listed - defined - imported)}"
    )
    extra = FACE_EXTRAS.get(name)
    if extra and importlib.util.find_spec("starlette") is None:
        # Without the serve extra (the core-only tox cells) it names its extra instead.
        with pytest.raises(ImportError, match=f"needs the optional '{extra}' extra"):
            importlib.import_module(name)
        return
    module = importlib.import_module(name)
    for item in published:
        assert getattr(module, item, None) is not None, f"{name}.{item} does not resolve"


def test_the_surface_fits_on_a_page() -> None:
    """At most 25 names at the root and 120 distinct names in all: a name the root
    re-exports from a public module (``Release``, the three everyday errors ...) is one
    thing to learn, counted once."""
    assert len(CORE["granite_formatters"]) <= 25
    distinct = {
        (names_module, item)
        for names_module, names in CORE.items()
        for item in names
        if names_module != "granite_formatters"
    }
    elsewhere = {item for _, item in distinct}
    root_only = [item for item in CORE["granite_formatters"] if item not in elsewhere]
    assert len(distinct) + len(root_only) <= 120
    assert sum(len(names) for names in PLUGINS.values()) <= 20


def _docs_text() -> str:
    pages = [ROOT / "docs" / "api.md", *sorted((ROOT / "docs" / "plugins").glob("*.md"))]
    return "\n".join(page.read_text(encoding="utf-8") for page in pages)


def test_the_docs_name_every_public_module_and_name() -> None:
    """docs/api.md and docs/plugins/ document the listed modules and names (each named
    in code spans or prose); an undocumented public name is a defect either way."""
    docs = _docs_text()
    missing_modules = [m for m in PUBLIC_API if not re.search(rf"\b{re.escape(m)}\b", docs)]
    assert missing_modules == []
    missing_names = sorted(
        {
            f"{module}.{name}"
            for module, names in PUBLIC_API.items()
            for name in names
            if not re.search(rf"(?<![\w.]){re.escape(name)}\b", docs)
        }
    )
    assert missing_names == []


def test_the_root_publishes_release_from_its_module() -> None:
    import granite_formatters
    from granite_formatters import release

    assert release.__all__ == ["Option", "Release"]
    assert granite_formatters.Release is release.Release


def test_a_public_face_is_the_private_module_s_own_object() -> None:
    """The faces re-export; they do not copy: ``except errors.InvalidRequestError``
    catches what the engine raises."""
    from granite_formatters import _errors, _types, errors, types

    assert errors.InvalidRequestError is _errors.InvalidRequestError
    assert types.ChatCompletion is _types.ChatCompletion
