"""Fixtures for the core tests: toy processors, toy plugins and fake installed distributions."""

from __future__ import annotations

import datetime
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from granite_formatters import hookimpl, plugins
from granite_formatters.plugins import PluginHost
from granite_formatters.processors import InputProcessor, OutputProcessor, RequestLike
from granite_formatters.types import AssistantMessage


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


@pytest.fixture
def host() -> PluginHost:
    """A plugin host that ignores installed entry points."""
    return PluginHost(entry_points=False)


@pytest.fixture
def default_host(monkeypatch: pytest.MonkeyPatch) -> Iterator[PluginHost]:
    """Replace the process-wide host with one that loads no entry points."""
    fresh = PluginHost(environ={plugins.ENV_LOAD: ""})
    monkeypatch.setattr(plugins, "_default_host", fresh)
    yield fresh


MakeDist = Callable[..., str]


@pytest.fixture
def make_dist(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[MakeDist]:
    """Create a real (unpacked) installed distribution with a granite_formatters entry point.

    ``make_dist(dist_name, source, ep_name=None, version="1.0")`` writes a module and a
    ``.dist-info`` folder on a fresh ``sys.path`` entry, exactly what pip would leave.
    Returns the module name.
    """
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    made: list[str] = []

    def make(dist_name: str, source: str, ep_name: str | None = None, version: str = "1.0") -> str:
        module = dist_name.replace("-", "_") + "_mod"
        (site / f"{module}.py").write_text(textwrap.dedent(source), encoding="utf-8")
        info = site / f"{dist_name.replace('-', '_')}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {dist_name}\nVersion: {version}\n", encoding="utf-8"
        )
        (info / "entry_points.txt").write_text(
            f"[granite_formatters]\n{ep_name or dist_name} = {module}\n", encoding="utf-8"
        )
        made.append(module)
        return module

    yield make
    for module in made:
        sys.modules.pop(module, None)


GOOD_PLUGIN = """
from granite_formatters import hookimpl
from granite_formatters.processors import InputProcessor, OutputProcessor
from granite_formatters.types import AssistantMessage

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
