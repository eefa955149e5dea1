"""The Granite 3.1 example plugin's release declaration, loaded by path.

The example (``examples/granite-formatters-granite31``) declares Granite 3.1 as a third
party would, with the public core API only; the main suite does not install it, so the
tests that need a Granite 3 release without a thinking mode load its ``releases.py``
from the file (one declaration in the repository, not a copy per test).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from granite_formatters import Release

__all__ = ["EXAMPLE_RELEASES", "GRANITE31"]

#: The example's declaration module.
EXAMPLE_RELEASES = (
    Path(__file__).resolve().parents[2]
    / "examples"
    / "granite-formatters-granite31"
    / "src"
    / "granite_formatters_granite31"
    / "releases.py"
)


def _load() -> Release:
    spec = importlib.util.spec_from_file_location("_granite31_example_releases", EXAMPLE_RELEASES)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    release: Release = module.GRANITE31
    return release


#: Granite 3.1, as the example declares it.
GRANITE31 = _load()
