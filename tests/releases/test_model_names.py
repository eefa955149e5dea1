"""Real-world names of each release resolve to the right model; other names do not.

Runs with only the core and the release's plugin loaded (the module fixture restricts
plugin loading to it even when other plugins are installed), so a name of a release of
another plugin must fail here: nothing else could claim it. The names are in
``support.granite3_model_names``, ``support.granite4_model_names`` and
``support.granite42_model_names``; the model ids each release registers in
``support.release_data``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from granite_formatters import UnknownModelError, get_formatter, resolve_model
from granite_formatters import _plugins as plugins
from granite_formatters._plugins import ENV_LOAD, PluginHost

from support import granite3_model_names, granite4_model_names, granite42_model_names, releases
from support.release_data import GRANITE4_MODELS, release_declaration
from support.releases import Release

G4 = granite4_model_names
RESOLVE = {
    **granite3_model_names.RESOLVE,
    "4.0": G4.RESOLVE_40,
    "4.1": G4.RESOLVE_41,
    "4.2": granite42_model_names.RESOLVE_42,
}
UNKNOWN = {
    **granite3_model_names.UNKNOWN,
    "4.0": G4.UNKNOWN_4,
    "4.1": G4.UNKNOWN_4,
    "4.2": granite42_model_names.UNKNOWN_42,
}
TYPOS = {
    **granite3_model_names.TYPOS,
    "4.0": G4.TYPOS_40,
    "4.1": G4.TYPOS_41,
    "4.2": granite42_model_names.TYPOS_42,
}
#: The model ids the table of a release must cover, where the test data lists them.
MODELS = GRANITE4_MODELS


def APPLIES_TO(release: Release) -> bool:
    """The releases whose names the tables above list."""
    return release.version in RESOLVE


RELEASES = tuple(r for r in releases.RELEASES if APPLIES_TO(r))


@pytest.fixture(scope="module", autouse=True)
def only_this_plugin(release: Release) -> Iterator[None]:
    # A fresh process-wide host that loads this release's plugin and nothing else.
    host = PluginHost(environ={ENV_LOAD: release.distribution})
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(plugins, "_default_host", host)
        yield


def _rows(table: Mapping[str, Sequence[object]]) -> list[Any]:
    return [
        pytest.param(r, *(row if isinstance(row, tuple) else (row,)), id=f"{r.version}-{row}")
        for r in RELEASES
        for row in table.get(r.version, ())
    ]


@pytest.mark.parametrize(
    ("release", "name", "model_id", "rule"), _rows(RESOLVE), indirect=["release"]
)
def test_real_world_names_resolve(release: Release, name: str, model_id: str, rule: str) -> None:
    resolution = resolve_model(name)
    assert (resolution.model.model_id, resolution.rule) == (model_id, rule)
    assert resolution.model.plugin.name == release.distribution


def test_the_table_is_large_enough(release: Release) -> None:
    table = RESOLVE[release.version]
    assert len({name for name, _, _ in table}) == len(table)
    # 40 names for a plugin of one release, 20 more for each further release it provides
    siblings = [r for r in RELEASES if r.plugin == release.plugin]
    assert sum(len(RESOLVE[r.version]) for r in siblings) >= 40 + 20 * (len(siblings) - 1)
    if release.version in MODELS:
        assert {model for _, model, _ in table} == set(MODELS[release.version])


@pytest.mark.parametrize(
    ("release", "model_id"),
    [
        pytest.param(r, model_id, id=f"{r.version}-{model_id}")
        for r in RELEASES
        for model_id in MODELS.get(r.version, ())
    ],
    indirect=["release"],
)
def test_models_use_their_releases_format(release: Release, model_id: str) -> None:
    assert get_formatter(model_id).release is release_declaration(release.version)


@pytest.mark.parametrize(
    ("release", "name", "model_id"),
    _rows(G4.BARE_OLLAMA),
    indirect=["release"],
)
def test_bare_ollama_names_are_unknown_or_the_documented_latest(
    release: Release, name: str, model_id: str | None
) -> None:
    if model_id is None:
        with pytest.raises(UnknownModelError):
            resolve_model(name)
    else:
        assert resolve_model(name).model.model_id == model_id


@pytest.mark.parametrize(("release", "name"), _rows(UNKNOWN), indirect=["release"])
def test_other_names_are_unknown(release: Release, name: str) -> None:
    with pytest.raises(UnknownModelError):
        resolve_model(name)


def test_unknown_name_suggests_close_matches_without_quoting_the_message(
    release: Release,
) -> None:
    typos = TYPOS[release.version]
    with pytest.raises(UnknownModelError) as info:
        resolve_model(typos.typo)
    error = info.value
    assert error.suggestions[0] == typos.suggested
    text = str(error)
    assert text.startswith(typos.message_start)
    assert text == error.args[0]


def test_typo_in_an_ollama_tag_suggests_the_model(release: Release) -> None:
    typos = TYPOS[release.version]
    with pytest.raises(UnknownModelError) as info:
        resolve_model(typos.ollama_typo)
    assert typos.ollama_suggested in info.value.suggestions


@given(data=st.data(), tail=st.text(alphabet="-_.:@ 0123456789abgikmnoqrstuxKMQ*?"))
def test_no_other_release_is_ever_claimed(release: Release, data: st.DataObject, tail: str) -> None:
    # Whatever follows "granite-<label>", only a name of this release can reach its plugin.
    label = data.draw(st.sampled_from(TYPOS[release.version].other_releases), label="label")
    name = f"granite-{label}-{tail}"
    with pytest.raises(UnknownModelError):
        resolve_model(name)
