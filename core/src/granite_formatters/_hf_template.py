"""Render a Hugging Face chat template as transformers' ``apply_chat_template`` does.

Imported only for a reference render: by the testing kit and by ``granite-format
doctor`` (it needs jinja2, the ``doctor`` and ``testing`` extras). The
environment is the one transformers compiles chat templates in: an immutable sandbox
with ``trim_blocks`` and ``lstrip_blocks``, the ``loopcontrols`` extension and the
``{% generation %}`` tag, a ``tojson`` filter that is :func:`json.dumps` (not jinja's
HTML-escaping one), the globals ``raise_exception`` and ``strftime_now`` (here reading
a pinned clock), and the restricted ``dict`` and ``namespace`` of transformers 5. The
messages are passed as transformers 5 passes them: keys whose value is ``None``
dropped, and a reasoning field copied to ``thinking`` and ``reasoning_content``.

The request is turned into template variables the way vLLM hands an OpenAI
chat-completions body to the template: text parts joined with newlines,
``extra_body`` merged, ``chat_template_kwargs`` passed as template variables (a
``null`` option counts as not given), ``documents`` read from the body, its
``extra_body`` or the template options.
"""

from __future__ import annotations

import datetime
import functools
import json
from collections.abc import Callable, Mapping
from typing import Any

import jinja2
import jinja2.ext
import jinja2.nodes
import jinja2.parser
import jinja2.utils
from jinja2.sandbox import ImmutableSandboxedEnvironment

__all__ = ["render"]

#: Message fields transformers 5 treats as the reasoning of an assistant turn.
_REASONING_KEYS = ("reasoning_content", "thinking", "reasoning")


class _Generation(jinja2.ext.Extension):
    """``{% generation %}...{% endgeneration %}`` renders its body unchanged."""

    tags = {"generation"}

    def parse(self, parser: jinja2.parser.Parser) -> jinja2.nodes.Node:
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
        call = self.call_method("_body")
        return jinja2.nodes.CallBlock(call, [], [], body).set_lineno(lineno)

    def _body(self, caller: Callable[[], str]) -> str:
        return caller()


class _Dict:
    """The template's ``dict``: calling it and ``dict.fromkeys``, nothing else."""

    def __call__(self, *args: Any, **kwargs: Any) -> dict[Any, Any]:
        return dict(*args, **kwargs)

    def fromkeys(self, *args: Any) -> dict[Any, Any]:
        return dict.fromkeys(*args)


def _check_attribute(name: object) -> None:
    if isinstance(name, str) and name.startswith("_"):
        raise jinja2.exceptions.SecurityError(f"namespace attribute {name!r} starts with '_'")


class _Namespace(jinja2.utils.Namespace):
    """jinja's ``namespace`` without attributes whose name starts with an underscore."""

    def __init__(*args: Any, **kwargs: Any) -> None:
        self, rest = args[0], args[1:]
        for name in dict(*rest, **kwargs):
            _check_attribute(name)
        jinja2.utils.Namespace.__init__(self, *rest, **kwargs)

    def __setitem__(self, name: str, value: Any) -> None:
        _check_attribute(name)
        super().__setitem__(name, value)


@functools.lru_cache(maxsize=16)
def _compiled(template: str) -> jinja2.Template:
    """``template`` compiled once (the clock is a render variable, not baked in)."""

    def raise_exception(message: str) -> None:
        raise jinja2.exceptions.TemplateError(message)

    def tojson(
        value: Any,
        ensure_ascii: bool = False,
        indent: int | None = None,
        separators: tuple[str, str] | None = None,
        sort_keys: bool = False,
    ) -> str:
        return json.dumps(
            value,
            ensure_ascii=ensure_ascii,
            indent=indent,
            separators=separators,
            sort_keys=sort_keys,
        )

    environment = ImmutableSandboxedEnvironment(
        trim_blocks=True,
        lstrip_blocks=True,
        extensions=[_Generation, jinja2.ext.loopcontrols],
    )
    environment.filters["tojson"] = tojson
    environment.globals["raise_exception"] = raise_exception
    environment.globals["dict"] = _Dict()
    environment.globals["namespace"] = _Namespace
    return environment.from_string(template)


def _text(content: Any) -> Any:
    """A message's content as vLLM gives it to the template: text parts joined."""
    if not isinstance(content, list):
        return content
    return "\n".join(part if isinstance(part, str) else str(part["text"]) for part in content)


def _template_message(message: Mapping[str, Any]) -> dict[str, Any]:
    passed = {key: value for key, value in message.items() if value is not None}
    if "content" in passed:
        passed["content"] = _text(passed["content"])
    reasoning = next((passed[key] for key in _REASONING_KEYS if key in passed), None)
    if reasoning is not None:
        passed = {"thinking": reasoning, **passed, "reasoning_content": reasoning}
    return passed


def render(
    template: str,
    request: Mapping[str, Any],
    *,
    add_generation_prompt: bool,
    today: datetime.date,
    special_tokens_map: Mapping[str, str],
) -> str:
    """``template`` rendered for ``request`` (see the module docstring)."""
    extra_body = dict(request.get("extra_body") or {})
    options = dict(
        request.get("chat_template_kwargs") or extra_body.get("chat_template_kwargs") or {}
    )
    documents = (
        request.get("documents") or extra_body.get("documents") or options.pop("documents", None)
    )
    options = {key: value for key, value in options.items() if value is not None}
    variables: dict[str, Any] = {**special_tokens_map, **options}
    now = datetime.datetime.combine(today, datetime.time(0, 0))
    return _compiled(template).render(
        variables,
        # transformers' strftime_now reads the clock; here it reads the pinned one.
        strftime_now=now.strftime,
        messages=[_template_message(message) for message in request["messages"]],
        tools=request.get("tools"),
        documents=documents,
        add_generation_prompt=add_generation_prompt,
    )
