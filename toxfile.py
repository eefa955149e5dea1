"""tox's inline plugin: the per-release parts of the matrix come from the table of bundled releases.

tox loads this file because it sits beside ``tox.ini``. It reads the bundled plugin
folders from ``tests/support/releases.py`` (each ``plugins/<plugin>/pyproject.toml``
declares its releases in ``[tool.granite-formatters]``) and gives ``tox.ini``:

* the cells: every ``env_list`` entry with the placeholder factor ``PLUGIN``
  (``py3{10,11,12,13}-{core,PLUGIN,all}``) becomes one entry per bundled plugin folder,
  in release order (``py310-granite32``, ``py310-granite33``, ...);
* ``{[tox]bundled_plugins}``: the folders of every bundled plugin, one per line (for the
  ``deps`` of the environments that install them all);
* ``{[tox]bundled_coverage}``: one ``--cov=<module>`` option per bundled plugin;
* ``{plugin_under_test}``: in a cell named after a plugin folder (``py310-granite32``), that
  folder; empty anywhere else.

So a new bundled plugin folder gets its cells, and is installed, measured and type-checked
wherever every plugin is, without editing ``tox.ini`` (docs/plugins/adding-a-release.md).
Hooks used: ``tox_add_core_config`` and ``tox_add_env_config`` (tox 4.0); the tox
requirement in ``tox.ini`` is higher for other reasons (see there).
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from tox.config.types import EnvList
from tox.plugin import impl

if TYPE_CHECKING:
    from types import ModuleType

    from tox.config.sets import ConfigSet, EnvConfigSet
    from tox.session.state import State

ROOT = Path(__file__).resolve().parent
#: The ``env_list`` factor that stands for "each bundled plugin folder".
PLACEHOLDER = "PLUGIN"


def _load_table() -> ModuleType:
    """``tests/support/releases.py``, loaded by path (it is not an installed module)."""
    name = "_granite_formatters_release_table"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / "tests" / "support" / "releases.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


TABLE = _load_table()
PLUGIN_NAMES: tuple[str, ...] = TABLE.PLUGIN_NAMES


def _folder(plugin: str) -> str:
    return str(TABLE.PLUGINS / plugin)


def _expand(names: list[str]) -> list[str]:
    expanded: list[str] = []
    for name in names:
        factors = name.split("-")
        if PLACEHOLDER not in factors:
            expanded.append(name)
            continue
        at = factors.index(PLACEHOLDER)
        expanded.extend(
            "-".join([*factors[:at], plugin, *factors[at + 1 :]]) for plugin in PLUGIN_NAMES
        )
    return expanded


@impl
def tox_add_core_config(core_conf: ConfigSet, state: State) -> None:
    env_list = core_conf["env_list"]
    assert isinstance(env_list, EnvList)
    env_list.envs[:] = _expand(env_list.envs)
    core_conf.add_constant(
        keys=["bundled_plugins"],
        desc="the folder of every bundled plugin (tests/support/releases.py)",
        value=[_folder(plugin) for plugin in PLUGIN_NAMES],
    )
    core_conf.add_constant(
        keys=["bundled_mypy_path"],
        desc="MYPYPATH for the type env: every bundled plugin's src folder",
        value=os.pathsep.join(str(TABLE.PLUGINS / plugin / "src") for plugin in PLUGIN_NAMES),
    )
    core_conf.add_constant(
        keys=["bundled_coverage"],
        desc="a --cov option for every bundled plugin's module",
        value=[f"--cov=granite_formatters_{plugin}" for plugin in PLUGIN_NAMES],
    )


@impl
def tox_add_env_config(env_conf: EnvConfigSet, state: State) -> None:
    plugins = [factor for factor in env_conf.name.split("-") if factor in PLUGIN_NAMES]
    env_conf.add_constant(
        keys=["plugin_under_test"],
        desc="the bundled plugin folder this cell tests (its name is a factor of the env name)",
        value=_folder(plugins[0]) if plugins else "",
    )
