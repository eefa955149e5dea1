"""Importing the package is cheap: no plugin, no pydantic-heavy plugin module, no jinja2."""

from __future__ import annotations

import json
import subprocess
import sys

CHECK = """
import json, sys
import granite_formatters
prefixes = ("granite_formatters", "jinja2", "pydantic")
loaded = sorted(m for m in sys.modules if m.startswith(prefixes))
print(json.dumps(loaded))
"""


def test_import_loads_no_plugin_and_no_heavy_module() -> None:
    proc = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, check=True)
    loaded = json.loads(proc.stdout)
    assert not [m for m in loaded if m.startswith(("granite_formatters_", "jinja2", "pydantic"))]
    assert "granite_formatters._plugins" not in loaded
    assert "granite_formatters._registry" not in loaded


def test_public_names_resolve() -> None:
    import granite_formatters

    for name in granite_formatters.__all__:
        assert getattr(granite_formatters, name) is not None


def test_the_root_surface_is_small_and_truthful() -> None:
    import granite_formatters

    assert len(granite_formatters.__all__) == 21
    assert "Release" in granite_formatters.__all__
    assert sorted(dir(granite_formatters)) == sorted(granite_formatters.__all__)


def test_the_granite3_root_holds_what_a_user_or_plugin_needs() -> None:

    from granite_formatters import granite3
    from granite_formatters.granite3 import _citations as citations
    from granite_formatters.granite3 import prompt_format

    assert len(granite3.__all__) == 15  # (the Granite 3 pipeline's four names removed)
    for name in granite3.__all__:
        assert getattr(granite3, name) is not None
    assert not [name for name in granite3.__all__ if name.startswith("_")]
    # The wording and the citation-format toolkit live in their public modules.
    assert not hasattr(granite3, "TagGrammar") and not hasattr(granite3, "PREAMBLE")
    # The Granite 3 pipeline is gone: every release is parsed by the one parser.
    assert not hasattr(granite3, "Granite3OutputProcessor")
    assert citations.TagGrammar.__name__ == "TagGrammar"
    assert prompt_format.PREAMBLE.startswith("Knowledge Cutoff Date")
