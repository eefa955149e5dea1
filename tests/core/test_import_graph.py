"""No import circles: no module of the package imports one that imports it back.

The graph is read from the source with :mod:`ast`: every ``import`` and ``from ... import``
of a package module, at module level or inside a function alike (a deferred import still
ties the two modules together), except those under ``if TYPE_CHECKING:`` (never run).
Relative imports are resolved against the importing module's package, and
``from pkg import name`` is an edge to ``pkg.name`` when that is a module (and to ``pkg``,
whose ``__init__`` runs first), else to ``pkg``.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Iterator, Mapping
from pathlib import Path

import granite_formatters

PACKAGE = "granite_formatters"
ROOT = Path(granite_formatters.__file__).parent


def _modules(root: Path) -> dict[str, Path]:
    """Every module of the package under ``root``, by dotted name (``pkg`` for its
    ``__init__.py``)."""
    found: dict[str, Path] = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join([PACKAGE, *parts])] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """The import statements under ``node``, at any depth, outside ``if TYPE_CHECKING:``
    bodies (their ``else`` branches run and are kept)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Import | ast.ImportFrom):
            yield child
        elif isinstance(child, ast.If) and _is_type_checking(child.test):
            for each in child.orelse:
                yield from _import_nodes(ast.Module(body=[each], type_ignores=[]))
        else:
            yield from _import_nodes(child)


def _targets(
    node: ast.Import | ast.ImportFrom, module: str, is_package: bool, known: Mapping[str, Path]
) -> Iterator[str]:
    """The package modules one import statement of ``module`` loads."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name in known:
                yield alias.name
        return
    if node.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)]
        source = ".".join(base + ([node.module] if node.module else []))
    else:
        source = node.module or ""
    if source not in known:
        return
    for alias in node.names:
        sub = f"{source}.{alias.name}"
        if sub in known and source != module:
            yield source  # (``from package import submodule`` runs the package first)
        yield sub if sub in known else source


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """Each module of the package and the package modules it imports."""
    known = _modules(root)
    graph: dict[str, set[str]] = {}
    for module, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        is_package = path.name == "__init__.py"
        graph[module] = {
            target
            for node in _import_nodes(tree)
            for target in _targets(node, module, is_package, known)
            if target != module
        }
    return graph


def find_cycle(graph: Mapping[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` (its modules in import order, the first repeated at the
    end), or ``None``: an iterative depth-first search."""
    done: set[str] = set()
    for start in sorted(graph):
        if start in done:
            continue
        path = [start]
        on_path = {start}
        stack = [iter(sorted(graph[start]))]
        while stack:
            following = next(stack[-1], None)
            if following is None:
                stack.pop()
                done.add(path[-1])
                on_path.discard(path.pop())
            elif following in on_path:
                return [*path[path.index(following) :], following]
            elif following not in done:
                path.append(following)
                on_path.add(following)
                stack.append(iter(sorted(graph[following])))
    return None


def test_the_package_has_no_import_cycle() -> None:
    graph = import_graph()
    assert len(graph) > 50  # (the package was found and read)
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_graph_reads_every_kind_of_import(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    files = {
        "__init__.py": "from .b import thing\n",
        "a.py": (
            "from typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n    from .b import Hint\nelse:\n    import granite_formatters.c\n"
            "def later():\n    from .sub import d\n"
        ),
        "b.py": "",
        "c.py": "from . import sub\n",
        "sub/__init__.py": "",
        "sub/d.py": "from ..b import x\nfrom .. import c\n",
    }
    for name, text in files.items():
        (pkg / name).write_text(text, encoding="utf-8")
    graph = import_graph(pkg)
    # (``from package import submodule`` runs the package first: an edge to each.)
    assert graph == {
        PACKAGE: {f"{PACKAGE}.b"},
        f"{PACKAGE}.a": {f"{PACKAGE}.c", f"{PACKAGE}.sub", f"{PACKAGE}.sub.d"},
        f"{PACKAGE}.b": set(),
        f"{PACKAGE}.c": {PACKAGE, f"{PACKAGE}.sub"},
        f"{PACKAGE}.sub": set(),
        f"{PACKAGE}.sub.d": {PACKAGE, f"{PACKAGE}.b", f"{PACKAGE}.c"},
    }
    assert find_cycle(graph) is None
    graph[f"{PACKAGE}.b"].add(f"{PACKAGE}.a")
    cycle = find_cycle(graph)
    assert cycle is not None and cycle[0] == cycle[-1] and f"{PACKAGE}.b" in cycle
    assert all(after in graph[before] for before, after in itertools.pairwise(cycle))
