"""The release table's ``features`` agree with each release's declaration.

The tests choose releases by the ``features`` a plugin folder lists in its
``pyproject.toml`` (read without importing anything, so tox and the benchmarks can use
it); the declaration (the plugin's :class:`~granite_formatters.Release`) is what the
engine runs. This holds the two equal, so a test never runs, or skips, a release for a
feature its format does not have.
"""

from __future__ import annotations

import importlib

from granite_formatters import Release as Declaration
from granite_formatters.syntax import (
    JSON_BLOCKS,
    JSON_LIST,
    OPENED_THINK,
    THINK_RESPONSE,
    THOUGHT_PHRASES,
    XML_FUNCTIONS,
    DatedLayout,
)

from support.releases import FEATURES, Release

TOOL_CALL_FEATURES = (
    (JSON_LIST, "json-list-tool-calls"),
    (JSON_BLOCKS, "json-tool-call-blocks"),
    (XML_FUNCTIONS, "xml-tool-calls"),
)
REASONING_FEATURES = (
    (THOUGHT_PHRASES, "thought-phrases"),
    (THINK_RESPONSE, "think-response-tags"),
    (OPENED_THINK, "opened-think"),
)


def declaration(release: Release) -> Declaration:
    """The plugin's declaration of ``release`` (in its ``releases`` module)."""
    module = importlib.import_module(release.module + ".releases")
    found = [
        value
        for value in vars(module).values()
        if isinstance(value, Declaration) and value.name == f"Granite {release.version}"
    ]
    assert len(found) == 1, (
        f"{module.__name__} declares Granite {release.version} {len(found)} times"
    )
    return found[0]


def declared_features(value: Declaration) -> set[str]:
    """The feature names of :data:`support.releases.FEATURES` a declaration has."""
    features = {name for syntax, name in TOOL_CALL_FEATURES if value.tool_calls == syntax}
    features |= {name for syntax, name in REASONING_FEATURES if value.reasoning == syntax}
    if value.citations is not None:
        features.add("citations")
    layout = value.layout
    if isinstance(layout, DatedLayout):
        features.add("dated-prompt")
        if layout.controls is not None:
            features.add("controls")
        if layout.documents_turns is not None:
            features.add("documents")
    elif layout.documents_block is not None:
        features.add("documents")
    if value.option("reasoning_effort") is not None:
        features.add("reasoning-effort")
    return features


def test_the_table_lists_what_the_declaration_has(release: Release) -> None:
    assert set(release.features) == declared_features(declaration(release))


def test_every_feature_is_derived_from_a_declaration() -> None:
    named = {name for _, name in TOOL_CALL_FEATURES + REASONING_FEATURES}
    derived = named | {"citations", "controls", "documents", "dated-prompt", "reasoning-effort"}
    assert derived == set(FEATURES)
