"""A process that only formats prompts never imports the output side.

For each release, in a fresh interpreter: format a plain dict, then parse. The modules
of the release's output processor (its class and bases, other than the abstract
``granite_formatters._processors``), the streaming module and the pydantic request types
must be imported by the parse, not before it; the output-only stages of the citation
reader (:data:`OUTPUT_ONLY`) are never imported by formatting.
"""

from __future__ import annotations

import json
import subprocess
import sys

from support.releases import Release

#: Modules only the citation reader uses, for every release never imported by formatting.
OUTPUT_ONLY = (
    "granite_formatters.syntax._citations.tag_remover",
    "granite_formatters.syntax._citations.sentences",
)

SCRIPT = """
import json, sys
import granite_formatters
formatter = granite_formatters.get_formatter(sys.argv[1])
formatter.format({"messages": [{"role": "user", "content": "x"}]})
before = sorted(m for m in sys.modules if m.startswith("granite_formatters"))
formatter.parse("Hello.")
after = sorted(m for m in sys.modules if m.startswith("granite_formatters"))
output_side = sorted(
    {
        cls.__module__
        for cls in type(formatter.output_processor).__mro__
        if cls.__module__.startswith("granite_formatters")
        and cls.__module__ != "granite_formatters._processors"
    }
)
print(json.dumps([before, after, output_side]))
"""


def test_formatting_imports_no_output_module(release: Release) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, release.model], capture_output=True, text=True, check=True
    )
    before, after, output_side = json.loads(proc.stdout)
    assert output_side, "the output processor's own module is named"
    expected = [*output_side, "granite_formatters._streaming", "granite_formatters._types"]
    assert not [m for m in before if m in expected or m in OUTPUT_ONLY], before
    assert not [m for m in expected if m not in after], after


LISTING = """
import json, sys
import granite_formatters
granite_formatters.list_models()
print(json.dumps(sorted(sys.modules)))
"""


def test_listing_the_models_imports_no_release_declaration(release: Release) -> None:
    """Registration names each release as a ``"module:attribute"`` string: loading the
    plugins (to list, resolve or describe models) imports no declaration and no engine."""
    proc = subprocess.run(
        [sys.executable, "-c", LISTING], capture_output=True, text=True, check=True
    )
    modules = json.loads(proc.stdout)
    assert release.module in modules, "the plugin was loaded"
    assert f"{release.module}.releases" not in modules
    assert not [m for m in modules if m.startswith("granite_formatters._engine")]
