"""Toy processors, toy plugins and fake-distribution sources for the core tests.

They live here, in the support package, so a test module imports them by a name that both
pytest and mypy resolve the same way (``from support.toy_plugins import toy_plugin``);
``tests/core/conftest.py`` holds the fixtures and re-exports these names for the plugin
sources that refer to them as ``conftest:EchoInput``.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

from granite_formatters import hookimpl
from granite_formatters._processors import InputProcessor, OutputProcessor, RequestLike
from granite_formatters._types import AssistantMessage


class EchoInput(InputProcessor):
    """Renders the last message's content, so tests can see which formatter ran."""

    def __init__(self, tag: str = "echo") -> None:
        self.tag = tag

    def transform(
        self,
        chat_completion: RequestLike,
        add_generation_prompt: bool = True,
        *,
        today: datetime.date | None = None,
        special_tokens: str | None = None,
        strict: bool = True,
    ) -> str:
        return f"[{self.tag}]"


class EchoOutput(OutputProcessor):
    def transform(
        self, model_output: str, chat_completion: RequestLike | None = None
    ) -> AssistantMessage:
        return AssistantMessage(content=model_output.upper())


def toy_plugin(*registrations: dict[str, Any]) -> object:
    """A plugin object whose hook registers the given models."""

    class Plugin:
        @hookimpl
        def register_formatters(self, register: Any) -> None:
            for item in registrations:
                item = dict(item)
                model_id = item.pop("model_id")
                item.setdefault("input_processor", EchoInput)
                item.setdefault("output_processor", EchoOutput)
                register(model_id, **item)

    return Plugin()


MakeDist = Callable[..., str]


GOOD_PLUGIN = """
from granite_formatters import AssistantMessage, InputProcessor, OutputProcessor, hookimpl

class In(InputProcessor):
    def transform(self, chat_completion, add_generation_prompt=True, *, today=None, special_tokens=None, strict=True):
        return "{tag}"

class Out(OutputProcessor):
    def transform(self, model_output, chat_completion=None):
        return AssistantMessage(content=model_output)

@hookimpl
def register_formatters(register):
    register("{model}", input_processor=In, output_processor=Out, aliases={aliases!r})
"""


def good_plugin(model: str, tag: str = "ok", aliases: tuple[str, ...] = ()) -> str:
    return GOOD_PLUGIN.format(model=model, tag=tag, aliases=list(aliases))


def counted_lookups(monkeypatch: Any) -> list[str]:
    """The names :meth:`PluginHost._lookup` (a lookup the host's memo did not answer) is
    called with from now on, on every host (``monkeypatch``: pytest's fixture)."""
    from granite_formatters._plugins import PluginHost

    lookups: list[str] = []
    lookup = PluginHost._lookup

    def counted(self: PluginHost, name: str, registry: Any) -> Any:
        lookups.append(name)
        return lookup(self, name, registry)

    monkeypatch.setattr(PluginHost, "_lookup", counted)
    return lookups
