"""A template's behaviour: the probe set rendered through it and through our formatter.

The template is rendered as transformers' ``apply_chat_template`` renders it
(:mod:`granite_formatters._hf_template`, which needs jinja2), with today pinned; our
prompt is the formatter's, non-strict (it renders what the official template renders,
dropping what that template drops). ``continue_final_message`` is transformers' cut:
the render without a generation prompt, up to the end of the final message's text.
"""

from __future__ import annotations

import datetime
import difflib
import warnings
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import attrs

from .probes import PROBES, TOOL_NAME, Probe

if TYPE_CHECKING:
    from .._processors import Formatter

__all__ = [
    "RELEASE_MODELS",
    "SHOWN_DIFFS",
    "TODAY",
    "Behaviour",
    "Capabilities",
    "capabilities",
    "capabilities_of",
    "compare_behaviour",
    "compare_renders",
    "our_prompt",
    "render_template",
]

#: The date both renders pin (the templates print today's date).
TODAY = datetime.date(2025, 4, 16)
#: How many differing probes are shown as diffs.
SHOWN_DIFFS = 3
#: One model name per bundled release, for "which release behaves like this template".
RELEASE_MODELS = {
    "3.2": "granite-3.2-8b-instruct",
    "3.3": "granite-3.3-8b-instruct",
    "4.0": "granite-4.0-h-small",
    "4.1": "granite-4.1-8b",
    "4.2": "granite-4.2-8b",
}


@attrs.frozen
class Behaviour:
    """How the probe set renders through a template and through one model's formatter."""

    model: str
    total: int
    differing: tuple[str, ...]
    diffs: tuple[tuple[str, ...], ...]

    @property
    def summary(self) -> str:
        return f"{len(self.differing)} of {self.total} probe prompts differ"


@attrs.frozen
class Capabilities:
    """What a runtime would infer from the template: it renders tool definitions; which
    option (if any) switches thinking."""

    tools: bool
    thinking: str | None


def render_template(template: str, probe: Probe) -> str:
    """``probe`` rendered through ``template`` (a template error is raised)."""
    from .. import _hf_template as hf_template

    text = hf_template.render(
        template,
        probe.request,
        add_generation_prompt=probe.add_generation_prompt,
        today=TODAY,
        special_tokens_map={},
    )
    if probe.continue_final_message:
        final = str(probe.request["messages"][-1]["content"]).strip()
        at = text.rfind(final)
        if at < 0:
            raise ValueError("the final message's text is not in the rendered prompt")
        text = text[: at + len(final)]
    return text


def our_prompt(formatter: Formatter, probe: Probe, today: datetime.date = TODAY) -> str:
    """``probe`` as ``formatter`` renders it, non-strict, dated ``today``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return formatter.format(
            probe.request,
            add_generation_prompt=probe.add_generation_prompt,
            continue_final_message=probe.continue_final_message,
            today=today,
            strict=False,
        )


def _theirs(template: str, probe: Probe) -> str:
    try:
        return render_template(template, probe)
    except Exception as exc:  # noqa: BLE001 - a template's own error is its behaviour
        return f"<the template raised {type(exc).__name__}: {exc}>"


def compare_behaviour(
    template: str, model: str, probes: Sequence[Probe] = PROBES, *, rendered: dict[str, str]
) -> Behaviour:
    """The probe set through ``template`` (renders cached in ``rendered``, by probe name)
    against ``model``'s formatter."""

    def theirs(probe: Probe) -> str:
        if probe.name not in rendered:
            rendered[probe.name] = _theirs(template, probe)
        return rendered[probe.name]

    return compare_renders(theirs, model, probes, label="this template")


def compare_renders(
    theirs: Callable[[Probe], str],
    model: str,
    probes: Sequence[Probe] = PROBES,
    *,
    label: str,
    today: datetime.date = TODAY,
) -> Behaviour:
    """The probe set rendered by ``theirs`` (named ``label`` in the diffs) against
    ``model``'s formatter, which renders ``today`` as the date."""
    from .. import get_formatter

    formatter = get_formatter(model)
    differing: list[str] = []
    diffs: list[tuple[str, ...]] = []
    for probe in probes:
        prompt, ours = theirs(probe), our_prompt(formatter, probe, today)
        if prompt == ours:
            continue
        differing.append(probe.name)
        if len(diffs) < SHOWN_DIFFS:
            diffs.append(_diff(ours, prompt, model, probe.name, label))
    return Behaviour(model, len(probes), tuple(differing), tuple(diffs))


def _diff(ours: str, theirs: str, model: str, probe: str, label: str) -> tuple[str, ...]:
    return tuple(
        difflib.unified_diff(
            ours.splitlines(),
            theirs.splitlines(),
            fromfile=f"granite-formatters {model} ({probe})",
            tofile=f"{label} ({probe})",
            lineterm="",
            n=1,
        )
    )


def capabilities(template: str) -> Capabilities:
    """What a runtime infers from ``template``'s renders (see :class:`Capabilities`)."""
    return capabilities_of(lambda probe: _theirs(template, probe))


def capabilities_of(theirs: Callable[[Probe], str]) -> Capabilities:
    """What a runtime infers from the prompts ``theirs`` renders."""
    tool_probe = next(p for p in PROBES if p.name == "tools")
    tools = TOOL_NAME in theirs(tool_probe)
    thinking = None
    ask = {"messages": [{"role": "user", "content": "Hi"}]}
    for option in ("enable_thinking", "thinking"):
        on = Probe("on", {**ask, "chat_template_kwargs": {option: True}})
        off = Probe("off", {**ask, "chat_template_kwargs": {option: False}})
        if theirs(on) != theirs(off):
            thinking = option
            break
    return Capabilities(tools, thinking)
