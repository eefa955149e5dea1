"""The bundled plugins' hints for names they do not serve: Granite 3.0 and 3.1 point to
the example plugin (declared by the Granite 3.2 plugin, the nearest release)."""

from __future__ import annotations

import pytest

from granite_formatters import UnknownModelError, resolve_model

pytest.importorskip("granite_formatters_granite32", reason="the Granite 3.2 plugin declares it")

WHERE = (
    "provided by the example plugin in examples/granite-formatters-granite31 of the "
    "granite-formatters repository; from a clone, install it with "
    "`python3 -m pip install ./examples/granite-formatters-granite31`."
)


@pytest.mark.parametrize(
    ("name", "lead"),
    [
        ("granite3.1-dense:8b", "Granite 3.1 is"),
        ("ibm-granite/granite-3.1-2b-instruct", "Granite 3.1 is"),
        ("granite3.1-moe:3b", "Granite 3.1 is"),
        ("granite-3.0-8b-instruct", "No plugin formats Granite 3.0; the nearest, Granite 3.1, is"),
    ],
)
def test_granite_31_and_30_point_to_the_example_plugin(name: str, lead: str) -> None:
    with pytest.raises(UnknownModelError) as caught:
        resolve_model(name)
    assert caught.value.hint == f"{lead} {WHERE}"
    assert str(caught.value).endswith(f"\n{lead} {WHERE}")


@pytest.mark.parametrize("name", ["granite-3.1-8b-base", "granite-vision-3.1-2b", "granite-3.4-8b"])
def test_no_hint_for_other_names(name: str) -> None:
    with pytest.raises(UnknownModelError) as caught:
        resolve_model(name)
    assert caught.value.hint is None
    assert "granite31" not in str(caught.value)
