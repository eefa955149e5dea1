"""A plugin written against the import paths of the earlier contract gets a load error that names
where the public names went (the modules made private are in ``_moved.MOVED``).

The old import paths here are meant (face_rename: keep old paths).
"""

from __future__ import annotations

import importlib
import importlib.util

import pytest

from granite_formatters._errors import PluginLoadError, PluginWarning
from granite_formatters._moved import MOVED, moved_hint
from granite_formatters._plugins import ENV_LOAD, ENV_STRICT, PluginHost

from support.public_api import CORE, FACE_EXTRAS
from support.toy_plugins import MakeDist

OLD_GRANITE3_PLUGIN = """
from granite_formatters import hookimpl
from granite_formatters.granite3.tokens import GRANITE3_SPECIAL_TOKENS

@hookimpl
def register_formatters(register):
    register("old-model", release="nowhere:NOTHING")
"""

OLD_SYNTAX_NAME_PLUGIN = """
from granite_formatters import hookimpl
from granite_formatters.syntax import Turns

@hookimpl
def register_formatters(register):
    register("old-model", release="nowhere:NOTHING")
"""


def _problem(make_dist: MakeDist, source: str) -> str:
    make_dist("gf-old", source)
    host = PluginHost(environ={ENV_LOAD: "gf-old"})
    with pytest.warns(PluginWarning, match="gf-old"):
        host.registry()
    (error,) = host.plugin_errors()
    return str(error)


def test_an_old_import_path_names_the_public_module(make_dist: MakeDist) -> None:
    problem = _problem(make_dist, OLD_GRANITE3_PLUGIN)
    assert problem.startswith("plugin gf-old 1.0: import failed: ModuleNotFoundError(")
    assert problem.endswith(
        "(granite_formatters.granite3.tokens is private; its public names are in "
        "granite_formatters.granite3)"
    )


def test_a_name_a_public_module_no_longer_exports_points_to_the_list(
    make_dist: MakeDist,
) -> None:
    problem = _problem(make_dist, OLD_SYNTAX_NAME_PLUGIN)
    assert "cannot import name 'Turns' from 'granite_formatters.syntax'" in problem
    assert problem.endswith(
        "(granite_formatters.syntax exports only the names of its __all__; "
        "see docs/api.md, 'The public surface')"
    )


def test_strict_mode_raises_it(make_dist: MakeDist) -> None:
    make_dist("gf-old", OLD_GRANITE3_PLUGIN)
    host = PluginHost(environ={ENV_LOAD: "gf-old", ENV_STRICT: "1"})
    with pytest.raises(PluginLoadError, match=r"granite_formatters\.granite3\)$"):
        host.registry()


OLD_RELEASE_STRING_PLUGIN = """
from granite_formatters import hookimpl

@hookimpl
def register_formatters(register):
    register("old-model", release="granite_formatters.granite3.types:GRANITE32")
"""


def test_a_release_string_naming_an_old_path_names_the_public_module(
    make_dist: MakeDist,
) -> None:
    make_dist("gf-old", OLD_RELEASE_STRING_PLUGIN)
    host = PluginHost(environ={ENV_LOAD: "gf-old"})
    with pytest.raises(PluginLoadError) as info:
        host.registry().get_formatter("old-model")
    assert str(info.value).endswith(
        "(granite_formatters.granite3.types is private; its public names are in "
        "granite_formatters.granite3)"
    )


@pytest.mark.parametrize("old", sorted(MOVED))
def test_every_moved_module_is_gone_and_its_fate_names_public_modules(old: str) -> None:
    extra = FACE_EXTRAS.get(old.rsplit(".", 1)[0])
    if extra and importlib.util.find_spec("starlette") is None:
        # Without the serve extra (the core-only cells) the public face that was the
        # old module's package is what fails, naming the extra to install.
        with pytest.raises(ImportError, match=f"needs the optional '{extra}' extra"):
            importlib.import_module(old)
        return
    assert importlib.util.find_spec(old.rsplit(".", 1)[0]) is not None
    with pytest.raises(ModuleNotFoundError) as info:
        importlib.import_module(old)
    assert moved_hint(info.value) == f" ({old} is {MOVED[old]})"
    named = {word.rstrip(",") for word in MOVED[old].split() if word.startswith("granite_")}
    assert named <= set(CORE)


def test_other_errors_get_no_hint() -> None:
    assert moved_hint(RuntimeError("boom")) == ""
    assert moved_hint(ModuleNotFoundError("No module named 'numpy'", name="numpy")) == ""
