"""Error messages of the registry and the plugin host quote caller values short:
never megabytes in a message or a field."""

from __future__ import annotations

import pytest

from granite_formatters._errors import (
    AmbiguousModelError,
    InvalidRequestError,
    PluginWarning,
    UnknownModelError,
)
from granite_formatters._plugins import PluginHost

from support.toy_plugins import toy_plugin

HUGE = 4_000_000


def test_a_4mb_unknown_model_name_gives_a_short_message(host: PluginHost) -> None:
    host.register_plugin(toy_plugin({"model_id": "granite-x"}), name="p")
    name = "granite-" + "x" * HUGE
    with pytest.raises(UnknownModelError) as info:
        host.registry().resolve(name)
    text = str(info.value)
    assert len(text) < 1000
    assert f"'{name[:80]}'... ({len(name)} characters)" in text


def test_a_non_string_name_is_quoted_once(host: PluginHost) -> None:
    with pytest.raises(UnknownModelError) as info:
        host.registry().resolve(["a" * HUGE])  # type: ignore[arg-type]
    text = str(info.value)
    assert len(text) < 1000 and text.startswith("Unknown model ['aaa")
    assert "characters as text). A model name must be a string." in text


def test_an_ambiguous_long_name_gives_a_short_message(host: PluginHost) -> None:
    host.register_plugin(toy_plugin({"model_id": "a", "patterns": ["x*"]}), name="p")
    host.register_plugin(toy_plugin({"model_id": "b", "patterns": ["x*"]}), name="q")
    name = "x" * HUGE
    with pytest.raises(AmbiguousModelError) as info:
        host.registry().resolve(name)
    assert len(str(info.value)) < 1000
    assert f"({len(name)} characters) is ambiguous" in str(info.value)


def test_the_field_of_an_invalid_request_error_is_bounded() -> None:
    key = "k" * 10_000_000
    error = InvalidRequestError("unknown key", field=f"tools[0].function.parameters.{key}")
    assert error.field is not None and len(error.field) < 200
    assert error.field.endswith(f"... ({len(key) + 29} characters)")
    assert len(str(error)) < 300
    short = InvalidRequestError("bad", field="messages[0].role")
    assert (short.field, str(short)) == ("messages[0].role", "messages[0].role: bad")


def test_long_plugin_values_are_quoted_short(host: PluginHost) -> None:
    host.register_plugin(toy_plugin({"model_id": "m", "aliases": "a" * HUGE}), name="p")
    with pytest.warns(PluginWarning) as record:
        host.registry()
    assert all(len(str(w.message)) < 1000 for w in record)
    with pytest.raises(LookupError) as info:
        host.unregister_plugin("n" * HUGE)
    assert len(str(info.value)) < 1000


def test_a_long_conflicting_alias_is_quoted_short(host: PluginHost) -> None:
    alias = "granite-" + "y" * HUGE
    host.register_plugin(toy_plugin({"model_id": "one", "aliases": [alias]}), name="p")
    host.register_plugin(toy_plugin({"model_id": "two", "aliases": [alias]}), name="q")
    with pytest.warns(PluginWarning):
        errors = host.plugin_errors()
    assert len(errors) == 1 and len(str(errors[0])) < 1000
