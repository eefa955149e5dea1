"""A pytest kit for formatter plugins (opt-in).

Enable it in your ``conftest.py``::

    pytest_plugins = ["granite_formatters.testing"]

It is never loaded into other pytest runs (there is no ``pytest11`` entry point). It
provides:

``isolated_host`` (fixture)
    Replaces the process-wide plugin host with a fresh one for one test, so a test can
    register plugins without seeing, or disturbing, anything else. Installed entry-point
    plugins stay invisible unless the test asks for them with
    ``isolated_host_factory(entry_points=True)``.
``register_test_plugin`` (fixture)
    ``register_test_plugin(obj, name="...")`` registers a plugin object on the isolated
    host and returns the host.
:class:`FormatterContractTests`
    A base class to subclass in your plugin's tests, with your golden request/prompt
    pairs and output samples. It checks registration, name resolution, prompt
    equality, that ``parse`` never raises on fuzzed output, and that the processors
    honour the interfaces.

Golden cases can be written by hand or loaded from a folder with :func:`load_golden_cases`.
"""

from __future__ import annotations

import datetime
import inspect
import json
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, ClassVar

import attrs
import pytest

from . import plugins as _plugins
from .errors import DroppedInputWarning
from .plugins import PluginHost
from .processors import InputProcessor, OutputProcessor
from .types import AssistantMessage

__all__ = [
    "FUZZ_MARKERS",
    "FormatterContractTests",
    "GoldenCase",
    "isolated_host",
    "isolated_host_factory",
    "load_golden_cases",
    "register_test_plugin",
]


@attrs.frozen
class GoldenCase:
    """A request and the exact prompt the reference chat template renders for it."""

    name: str
    request: Any
    prompt: str
    today: datetime.date | None = None
    add_generation_prompt: bool = True
    special_tokens: str | None = None
    strict: bool = True


def load_golden_cases(folder: str | Path) -> list[GoldenCase]:
    """Load ``<name>.json`` / ``<name>.prompt.txt`` pairs from ``folder``.

    Each JSON file holds ``{"request": {...}, "date": "YYYY-MM-DD",
    "add_generation_prompt": true}`` and optionally ``"special_tokens": "keep"`` (the
    policy to format with) and ``"strict": false`` (a template-compatible mode case);
    the prompt file holds the exact expected prompt (UTF-8,
    nothing appended).
    """
    cases: list[GoldenCase] = []
    for path in sorted(Path(folder).glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        prompt_path = path.with_name(path.stem + ".prompt.txt")
        prompt = prompt_path.read_bytes().decode("utf-8")
        date = data.get("date")
        cases.append(
            GoldenCase(
                name=path.stem,
                request=data["request"],
                prompt=prompt,
                today=datetime.date.fromisoformat(date) if date else None,
                add_generation_prompt=data.get("add_generation_prompt", True),
                special_tokens=data.get("special_tokens"),
                strict=data.get("strict", True),
            )
        )
    return cases


# -- fixtures ---------------------------------------------------------------------------


def _swap_default_host(host: PluginHost) -> Callable[[], None]:
    previous = _plugins._default_host
    _plugins._default_host = host

    def restore() -> None:
        _plugins._default_host = previous

    return restore


@pytest.fixture
def isolated_host_factory() -> Iterator[Callable[..., PluginHost]]:
    """``make(entry_points=False, environ=None)`` installs a fresh default host."""
    restores: list[Callable[[], None]] = []

    def make(*, entry_points: bool = False, environ: dict[str, str] | None = None) -> PluginHost:
        host = PluginHost(entry_points=entry_points, environ=environ)
        restores.append(_swap_default_host(host))
        return host

    yield make
    for restore in reversed(restores):
        restore()


@pytest.fixture
def isolated_host(isolated_host_factory: Callable[..., PluginHost]) -> PluginHost:
    """A fresh process-wide plugin host that sees no installed plugins."""
    return isolated_host_factory()


@pytest.fixture
def register_test_plugin(isolated_host: PluginHost) -> Callable[..., PluginHost]:
    """``register_test_plugin(obj, name=..., override=False)``: register a plugin on the
    isolated host (``override`` as in :func:`granite_formatters.register_plugin`)."""

    def register(plugin: object, *, name: str, override: bool = False) -> PluginHost:
        isolated_host.register_plugin(plugin, name=name, override=override)
        return isolated_host

    return register


# -- contract tests ---------------------------------------------------------------------

#: Strings the Granite formats give meaning to: the alphabet of the fuzzed outputs.
FUZZ_MARKERS = (
    "<|start_of_role|>",
    "<|end_of_role|>",
    "<|end_of_text|>",
    "<|tool_call|>",
    "<tool_call>",
    "<think>",
    "</think>",
    "<response>",
    "</response>",
    "<co>",
    "</co>",
    "# Citations:",
    "# Hallucinations:",
    "Here is my thought process:",
    "Here is my response:",
    '{"document_id": "1"}',
    "<|start_of_cite|>",
    "<|end_of_cite|>",
    "<|start_of_plugin|>",
    "<|end_of_plugin|>",
    '{"id": "citation"}',
    '{"id": "hallucination"}',
    "1. Risk high: ",
    '[{"name": "f", "arguments": {}}]',
    "Document 0: ",
    "\n",
    " ",
    "[",
    "{",
    '"',
)


class FormatterContractTests:
    """Subclass in your plugin's test suite and fill in the class attributes.

    ``plugin_name``
        your entry-point (distribution) name, e.g. ``"granite-formatters-granite31"``;
    ``model_ids``
        the ids your plugin registers;
    ``names``
        ``(name people use, expected model id)`` pairs that must resolve;
    ``golden_cases``
        :class:`GoldenCase` list (see :func:`load_golden_cases`), each for
        ``golden_model`` (default: the first of ``model_ids``);
    ``output_samples``
        ``(raw model output, request or None, expected content)`` triples;
    ``extra_markers``
        strings your format gives meaning to, added to the fuzzer's alphabet;
    ``fuzz_examples``
        how many fuzzed outputs ``parse`` must survive (default 200).

    The tests run against the plugins installed in the environment (your plugin must be
    installed, as it will be for users), with the process-wide host reset around them.
    """

    plugin_name: ClassVar[str] = ""
    model_ids: ClassVar[Sequence[str]] = ()
    names: ClassVar[Sequence[tuple[str, str]]] = ()
    golden_cases: ClassVar[Sequence[GoldenCase]] = ()
    golden_model: ClassVar[str | None] = None
    output_samples: ClassVar[Sequence[tuple[str, Any, str]]] = ()
    extra_markers: ClassVar[Sequence[str]] = ()
    fuzz_examples: ClassVar[int] = 200

    @pytest.fixture(autouse=True)
    def _installed_plugins(self, isolated_host_factory: Callable[..., PluginHost]) -> PluginHost:
        return isolated_host_factory(entry_points=True)

    def _model(self) -> str:
        if self.golden_model:
            return self.golden_model
        if not self.model_ids:
            pytest.fail("FormatterContractTests needs model_ids")
        return self.model_ids[0]

    def test_plugin_is_registered_without_problems(self) -> None:
        import granite_formatters

        plugins = {p.name: p for p in granite_formatters.list_plugins()}
        assert self.plugin_name in plugins, f"{self.plugin_name} is not installed or not found"
        info = plugins[self.plugin_name]
        assert info.errors == (), f"{self.plugin_name} has problems: {info.errors}"
        assert set(self.model_ids) <= set(info.models)

    def test_names_resolve(self) -> None:
        import granite_formatters

        for name, expected in self.names:
            resolution = granite_formatters.resolve_model(name)
            assert resolution.model.model_id == expected, (name, resolution)
            assert resolution.model.plugin.name == self.plugin_name

    def test_golden_prompts(self) -> None:
        import granite_formatters

        formatter = granite_formatters.get_formatter(self._model())
        for case in self.golden_cases:
            with warnings.catch_warnings():
                # A template-compatible case may leave input out, with a warning.
                warnings.simplefilter("ignore", DroppedInputWarning)
                prompt = formatter.format(
                    case.request,
                    add_generation_prompt=case.add_generation_prompt,
                    today=case.today,
                    special_tokens=case.special_tokens,  # type: ignore[arg-type]
                    strict=case.strict,
                )
            assert prompt == case.prompt, f"golden case {case.name} differs"

    def test_output_samples(self) -> None:
        import granite_formatters

        formatter = granite_formatters.get_formatter(self._model())
        for output, request, content in self.output_samples:
            message = formatter.parse(output, request)
            assert message.content == content

    def test_processors_honour_the_interfaces(self) -> None:
        import granite_formatters

        for model_id in self.model_ids:
            formatter = granite_formatters.get_formatter(model_id)
            assert formatter.model_id == model_id
            assert isinstance(formatter.input_processor, InputProcessor)
            assert isinstance(formatter.output_processor, OutputProcessor)
            parameters = inspect.signature(formatter.input_processor.transform).parameters
            assert (
                "today" in parameters and parameters["today"].kind is inspect.Parameter.KEYWORD_ONLY
            )
            request = {"messages": [{"role": "user", "content": "Hello"}]}
            prompt = formatter.format(request, today=datetime.date(2025, 1, 2))
            assert isinstance(prompt, str) and "Hello" in prompt
            assert formatter.format(request, today=datetime.date(2025, 1, 2)) == prompt
            message = formatter.parse("Hello there.")
            assert isinstance(message, AssistantMessage)
            assert message.content == "Hello there."

    def test_parse_never_raises_on_fuzzed_output(self) -> None:
        from hypothesis import HealthCheck, given, settings
        from hypothesis import strategies as st

        import granite_formatters

        formatter = granite_formatters.get_formatter(self._model())
        alphabet = st.sampled_from([*FUZZ_MARKERS, *self.extra_markers])
        pieces = st.one_of(alphabet, st.text(max_size=12))
        outputs = st.lists(pieces, max_size=40).map("".join)
        requests = st.sampled_from([None, *[c.request for c in self.golden_cases[:5]]])

        @settings(
            max_examples=self.fuzz_examples,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow],
        )
        @given(output=outputs, request=requests)
        def check(output: str, request: Any) -> None:
            message = formatter.parse(output, request)
            assert isinstance(message, AssistantMessage)
            assert isinstance(message.content, str)
            if message.content != output:
                assert message.raw_content == output

        check()
