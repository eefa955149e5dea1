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

:class:`granite_formatters.testing.granite3.Granite3InputContractTests`
    The checks every Granite 3-family release's prompts must pass (golden prompts, the
    official template's render of them, refusals naming their field, the special-token
    policy, sanitising), for a plugin that declares a Granite 3-family
    :class:`~granite_formatters.Release`.
:func:`render_chat_template`
    A chat template rendered exactly as transformers renders it (needs jinja2), the
    reference the Granite 3 contract compares golden prompts with.
"""

from __future__ import annotations

import datetime
import inspect
import json
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import attrs
import pytest

from .. import _plugins as _plugins
from .._errors import DroppedInputWarning
from .._plugins import PluginHost
from .._processors import InputProcessor, OutputProcessor
from .._types import AssistantMessage

__all__ = [
    "FUZZ_MARKERS",
    "FormatterContractTests",
    "GoldenCase",
    "isolated_host",
    "isolated_host_factory",
    "load_golden_cases",
    "register_test_plugin",
    "render_chat_template",
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


def load_golden_cases(folder: str | Path, *, prompts: str | Path | None = None) -> list[GoldenCase]:
    """Load golden cases: ``<name>.json`` requests with their ``<name>.prompt.txt`` prompts.

    Each JSON file holds ``{"request": {...}, "date": "YYYY-MM-DD",
    "add_generation_prompt": true}`` and optionally ``"special_tokens": "keep"`` (the
    policy to format with) and ``"strict": false`` (a template-compatible mode case);
    the prompt file holds the exact expected prompt (UTF-8, nothing appended).

    Without ``prompts`` both files are in ``folder``, and every request must have its
    prompt. With ``prompts`` (a folder of one release's expected prompts, beside a
    folder of requests shared by several releases) the requests come from ``folder`` and
    the prompts from ``prompts``; only the requests that have a prompt there are loaded,
    and a prompt without a request raises :class:`ValueError`. Cases come in name order.
    """
    requests = Path(folder)
    if prompts is None:
        names = [path.stem for path in sorted(requests.glob("*.json"))]
        prompt_dir = requests
    else:
        prompt_dir = Path(prompts)
        names = sorted(path.name[: -len(".prompt.txt")] for path in prompt_dir.glob("*.prompt.txt"))
        orphans = [name for name in names if not (requests / f"{name}.json").is_file()]
        if orphans:
            listed = ", ".join(f"{name}.prompt.txt" for name in orphans)
            raise ValueError(
                f"golden prompts without a request in {requests}: {listed} "
                f"(add <name>.json there or delete the prompt from {prompt_dir})"
            )
    return [_load_case(name, requests, prompt_dir) for name in names]


def _load_case(name: str, requests: Path, prompts: Path) -> GoldenCase:
    data = json.loads((requests / f"{name}.json").read_text(encoding="utf-8"))
    prompt = (prompts / f"{name}.prompt.txt").read_bytes().decode("utf-8")
    date = data.get("date")
    return GoldenCase(
        name=name,
        request=data["request"],
        prompt=prompt,
        today=datetime.date.fromisoformat(date) if date else None,
        add_generation_prompt=data.get("add_generation_prompt", True),
        special_tokens=data.get("special_tokens"),
        strict=data.get("strict", True),
    )


def render_chat_template(
    template: str,
    request: Mapping[str, Any],
    add_generation_prompt: bool = True,
    *,
    today: datetime.date,
    special_tokens_map: Mapping[str, str] | None = None,
) -> str:
    """``template`` (a Hugging Face chat template's text) rendered for ``request``.

    The render is the one transformers' ``apply_chat_template`` gives (same jinja2
    sandbox, filters and globals, ``strftime_now`` pinned to midnight of ``today``),
    for the template variables vLLM makes of ``request``, an OpenAI chat-completions
    body (text parts joined with newlines, ``extra_body`` merged,
    ``chat_template_kwargs`` passed as variables). ``special_tokens_map`` is the
    tokenizer's (``bos_token``, ...), passed as variables too (template options win
    over it). Needs jinja2
    (>= 3.1); without it this raises :class:`ImportError` saying so.
    """
    try:
        from .. import _hf_template as _chat_template
    except ImportError as missing:
        raise ImportError(
            "render_chat_template needs jinja2 (>= 3.1) to render the official chat "
            "template: python3 -m pip install jinja2"
        ) from missing
    return _chat_template.render(
        template,
        request,
        add_generation_prompt=add_generation_prompt,
        today=today,
        special_tokens_map=special_tokens_map or {},
    )


def _required(test: object, contract: str, attribute: str, example: str) -> Any:
    """``test``'s class attribute ``attribute``; fails the test, saying what to set, when
    it is empty (a contract test must never pass without checking anything)."""
    value = getattr(test, attribute)
    if not value:
        pytest.fail(
            f"{contract} subclass {type(test).__name__} has no {attribute}: "
            f"set {attribute} = {example}",
            pytrace=False,
        )
    return value


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

    ``plugin_name``, ``model_ids``, ``names``, ``golden_cases`` and ``output_samples``
    are required: a test whose attribute is left empty fails, saying what to set.

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

    def _required(self, attribute: str, example: str) -> Any:
        return _required(self, "FormatterContractTests", attribute, example)

    def _model(self) -> str:
        if self.golden_model:
            return self.golden_model
        model_ids: Sequence[str] = self._required("model_ids", '["your-model-id", ...]')
        return model_ids[0]

    def test_plugin_is_registered_without_problems(self) -> None:
        import granite_formatters

        plugin_name = self._required("plugin_name", '"your-distribution-name"')
        model_ids = self._required("model_ids", '["your-model-id", ...]')
        plugins = {p.name: p for p in granite_formatters.list_plugins()}
        assert plugin_name in plugins, f"{plugin_name} is not installed or not found"
        info = plugins[plugin_name]
        assert info.errors == (), f"{plugin_name} has problems: {info.errors}"
        assert set(model_ids) <= set(info.models)

    def test_names_resolve(self) -> None:
        import granite_formatters

        plugin_name = self._required("plugin_name", '"your-distribution-name"')
        names = self._required("names", '[("name people use", "expected-model-id"), ...]')
        for name, expected in names:
            resolution = granite_formatters.resolve_model(name)
            assert resolution.model.model_id == expected, (name, resolution)
            assert resolution.model.plugin.name == plugin_name

    def test_golden_prompts(self) -> None:
        import granite_formatters

        cases: Sequence[GoldenCase] = self._required(
            "golden_cases", "[GoldenCase(...), ...] or load_golden_cases(folder)"
        )
        formatter = granite_formatters.get_formatter(self._model())
        for case in cases:
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

        samples = self._required(
            "output_samples", '[("raw model output", request or None, "expected content"), ...]'
        )
        formatter = granite_formatters.get_formatter(self._model())
        for output, request, content in samples:
            message = formatter.parse(output, request)
            assert message.content == content

    def test_processors_honour_the_interfaces(self) -> None:
        import granite_formatters

        for model_id in self._required("model_ids", '["your-model-id", ...]'):
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
