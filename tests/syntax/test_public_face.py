"""The syntax package's public face: one ``__all__``, exactly what its modules publish."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import granite_formatters.syntax as syntax


def _modules() -> list[str]:
    return [info.name for info in pkgutil.iter_modules(syntax.__path__)]


def test_each_module_publishes_exactly_what_it_defines() -> None:
    for name in _modules():
        module = importlib.import_module(f"{syntax.__name__}.{name}")
        defined = {
            key
            for key, value in vars(module).items()
            if not key.startswith("_")
            and not inspect.ismodule(value)
            and getattr(value, "__module__", module.__name__) == module.__name__
            and key not in ("annotations", "TYPE_CHECKING", "Any")
        }
        assert set(module.__all__) == defined, name


def test_the_package_re_exports_every_public_module_name() -> None:
    published = set()
    for name in _modules():
        if not name.startswith("_"):
            published.update(importlib.import_module(f"{syntax.__name__}.{name}").__all__)
    assert sorted(syntax.__all__) == sorted(published)
    for name in syntax.__all__:
        assert getattr(syntax, name) is not None


def test_the_release_module_publishes_release_and_option() -> None:
    import granite_formatters
    from granite_formatters import release

    assert release.__all__ == ["Option", "Release"]
    assert granite_formatters.Release is release.Release
