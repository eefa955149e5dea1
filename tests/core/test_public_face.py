"""Every package's public face: one ``__all__`` per module, exactly what the module holds.

A module (not a package) publishes exactly the names it defines at its top level (as
httpx checks its root), plus any it is the public face of (imported from a private
module): nothing else it imports, nothing it defines without listing. A package root
publishes names of its modules: each resolves, and what it defines, it lists. Read with ``ast`` for modules, so importing is not needed to find
definitions; type variables are not published names.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
from collections.abc import Iterator
from pathlib import Path

import pytest

#: Modules whose ``__all__`` is a facade over private modules, and why they stay one.
FACADES = {
    "granite_formatters.granite3._citations": (
        "the Granite 3 citation toolkit, gathered for the 3.x plugins from the syntax "
        "modules of granite_formatters.syntax._citations under its documented name"
    ),
    "granite_formatters.granite3._co_format": (
        "the documented name of CO_CITATIONS, declared in granite_formatters.syntax._citations"
    ),
    "granite_formatters.granite3._cite_format": (
        "the documented name of CITE_TOKEN_CITATIONS, declared in "
        "granite_formatters.syntax._citations"
    ),
}


def _packages() -> list[str]:
    names = ["granite_formatters"]
    for folder in ("plugins", "examples"):
        for pyproject in sorted((Path(__file__).parents[2] / folder).glob("*/pyproject.toml")):
            for package in sorted((pyproject.parent / "src").glob("*/__init__.py")):
                name = package.parent.name
                if importlib.util.find_spec(name) is not None:
                    names.append(name)
    return names


def _modules() -> Iterator[tuple[str, Path]]:
    for package in _packages():
        spec = importlib.util.find_spec(package)
        assert spec is not None and spec.origin is not None
        root = Path(spec.origin).parent
        for path in sorted(root.rglob("*.py")):
            parts = path.relative_to(root.parent).with_suffix("").parts
            if any(part.startswith("_") and part != "__init__" for part in parts):
                continue
            if parts[-1] == "__init__":
                parts = parts[:-1]
            yield ".".join(parts), path


MODULES = dict(_modules())


def _is_type_var(value: ast.expr | None) -> bool:
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id in ("TypeVar", "ParamSpec", "DefaultTypeVar")
    )


def _defined(body: list[ast.stmt]) -> set[str]:
    names: set[str] = set()
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign) and not _is_type_var(node.value):
            for target in node.targets:
                elements = target.elts if isinstance(target, ast.Tuple) else [target]
                names.update(e.id for e in elements if isinstance(e, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            if not _is_type_var(node.value):
                names.add(node.target.id)
        elif isinstance(node, ast.If):
            names |= _defined(node.body) | _defined(node.orelse)
    return {n for n in names if not n.startswith("_") and n != "TYPE_CHECKING"}


def _from_private(body: list[ast.stmt]) -> set[str]:
    """Names imported from a private module (``from ._x import y``): a public module may
    be their public face."""
    names: set[str] = set()
    for node in body:
        if isinstance(node, ast.ImportFrom) and node.level and node.module:
            if node.module.split(".")[-1].startswith("_"):
                names.update(alias.asname or alias.name for alias in node.names)
        elif isinstance(node, ast.If):
            names |= _from_private(node.body)
    return names


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


@pytest.mark.parametrize("name", sorted(MODULES))
def test_each_module_publishes_one_list(name: str) -> None:
    path = MODULES[name]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    published = _declared_all(tree)
    assert published is not None, f"{name} has no __all__"
    assert len(published) == len(set(published)), f"{name}.__all__ repeats a name"
    defined = _defined(tree.body)
    if path.name == "__init__.py":
        # A package root also publishes names of its modules; what it defines, it lists.
        assert defined <= set(published), (
            f"{name} defines unlisted {sorted(defined - set(published))}"
        )
    elif name not in FACADES:
        faced = _from_private(tree.body)
        assert defined <= set(published) <= defined | faced, (
            f"{name}: listed, not defined here or in a private module: "
            f"{sorted(set(published) - defined - faced)}; "
            f"defined, not listed: {sorted(defined - set(published))}"
        )
    if (
        # (granite-format batch sends its requests with serve's backend code.)
        name.startswith(("granite_formatters.serve", "granite_formatters._batch"))
        and importlib.util.find_spec("starlette") is None
    ):
        pytest.skip("the names resolve only with the serve extra installed")
    module = importlib.import_module(name)
    for item in published:
        assert getattr(module, item, None) is not None, f"{name}.{item} does not resolve"


def test_the_facades_are_still_modules() -> None:
    assert set(FACADES) <= set(MODULES)


def test_the_syntax_package_re_exports_every_public_syntax_name() -> None:
    """Every name of the syntax package's own modules; the Granite 3 citation syntaxes
    (the ``syntax.citations`` subpackage, loaded only by a release that declares one)
    are gathered by ``granite3.citations``."""
    import granite_formatters.syntax as syntax

    published: set[str] = set()
    for name, path in MODULES.items():
        own = name.startswith("granite_formatters.syntax.") and path.name != "__init__.py"
        if own and not name.startswith("granite_formatters.syntax._citations."):
            published.update(importlib.import_module(name).__all__)
    assert sorted(syntax.__all__) == sorted(published)


def test_the_root_publishes_release_from_its_module() -> None:
    import granite_formatters
    from granite_formatters import release

    assert release.__all__ == ["Option", "Release"]
    assert granite_formatters.Release is release.Release
