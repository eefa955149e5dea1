"""What a request's prompt says about the answer to come, as the parser reads it.

The facts are read with the renderer's own readers (:mod:`._engine.request`): a plain
dict as the renderer reads it, any other request (a JSON string or bytes, ``extra_body``,
tools in a tuple or as pydantic or ``openai`` objects, a typed ``ChatCompletion``)
validated as the renderer validates it, the template options and the OpenAI top-level
``reasoning_effort`` applied as the renderer applies them, and vLLM's body flags
``add_generation_prompt`` and ``continue_final_message`` read as
:meth:`~granite_formatters.Formatter.format` reads them. So the parser assumes what the
prompt says: whether the prompt opened the reasoning, which tools (and schemas) it
lists, whether the answer continues the final message.

Unlike the renderer, reading the facts never raises: a value the renderer refuses
counts as not given (the release's default), and a request that does not validate is
read leniently (its options and tools where they are plainly given).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs

from .._errors import InvalidRequestError
from .._types import _tool_data
from .request import (
    VALIDATED_TYPES,
    Problems,
    body_flag,
    body_value,
    plain_fields,
    plain_request,
    request_body,
    top_level_effort,
    typed_options,
    view,
)

if TYPE_CHECKING:
    from ..release import Release

__all__ = ["PromptFacts", "defaults_only", "prompt_facts"]


@attrs.frozen
class PromptFacts:
    """What the prompt of one request says about the answer the model writes next."""

    #: The template options, the release's defaults filled in.
    options: Mapping[str, Any]
    #: The options the request sets (no defaults).
    given: Mapping[str, Any]
    #: The tools the prompt lists (``available_tools`` where it replaces ``tools``).
    tools: list[Mapping[str, Any]] | None
    #: The prompt ends with the generation prompt (the assistant's turn opened).
    generation_prompt: bool
    #: The prompt ends inside the final message, which the answer continues.
    continued: bool

    def opens_reasoning(self, release: Release) -> bool:
        """The prompt ends with the release's reasoning opened (the answer starts in it)."""
        reasoning = release.reasoning
        return (
            reasoning is not None
            and self.generation_prompt
            and not self.continued
            and reasoning.starts_inside(self.options)
        )


#: The body keys that may hold vLLM's flags (see :func:`body_flag`).
_FLAG_KEYS = frozenset({"add_generation_prompt", "continue_final_message", "extra_body"})


def _fields(request: object, release: Release) -> tuple[Any, Any]:
    """The request's tools and ``chat_template_kwargs`` as the renderer reads them."""
    if type(request) is dict:
        fields = plain_fields(request)
        if fields is not None:
            return fields[1], fields[3]
    if type(request) not in VALIDATED_TYPES:
        try:
            request, _ = view(request, Problems(False), release.family)  # type: ignore[arg-type]
        except InvalidRequestError:
            return _loose_fields(request_body(request))
    return getattr(request, "tools", None), getattr(request, "chat_template_kwargs", None)


def _loose_fields(body: Mapping[str, Any] | None) -> tuple[Any, Any]:
    """The tools and options of a request that does not validate, where plainly given."""
    if body is None:
        return None, None
    tools = body.get("tools")
    kwargs = body_value(body, "chat_template_kwargs")
    if not isinstance(tools, (list, tuple)):
        return None, kwargs
    read = []
    for index, tool in enumerate(tools):
        try:
            read.append(_tool_data(tool, index))
        except ValueError:
            continue  # (a tool whose object cannot be read: not listed)
    return read, kwargs


def defaults_only(request: object) -> bool:
    """Whether ``request`` is a plain dict that validation accepts unchanged
    (:func:`plain_request`) and that sets nothing the parser reads: no tools, documents or
    template options, none of vLLM's flags, no ``reasoning_effort``. Its facts are the
    release's defaults (``prompt_facts(release, None)``) and its answer is read for no
    citations (no documents, no citation controls)."""
    if type(request) is not dict or not _FLAG_KEYS.isdisjoint(request):
        return False
    if request.get("reasoning_effort") is not None:
        return False
    plain = plain_request(request)
    return (
        plain is not None
        and plain.tools is None
        and not plain.documents
        and not plain.chat_template_kwargs
    )


def prompt_facts(release: Release, request: object) -> PromptFacts:
    """The :class:`PromptFacts` of ``request`` (``None``: a request of defaults) for
    ``release``."""
    options = {option.name: option.default for option in release.options}
    if request is None:
        return PromptFacts(options, {}, None, True, False)
    if type(request) in VALIDATED_TYPES:
        # A typed request (the usual one of a batch parse): no body keys.
        typed: Any = request
        return _facts(release, options, None, typed.tools, typed.chat_template_kwargs)
    body = request if type(request) is dict else request_body(request)
    continued, generation_prompt = False, True
    if body is not None and not _FLAG_KEYS.isdisjoint(body):
        continued = body_flag(body, "continue_final_message", False, strict=False)
        generation_prompt = body_flag(body, "add_generation_prompt", not continued, strict=False)
        if continued and generation_prompt:
            continued = False  # (refused by format: read as the defaults)
    tools, kwargs = _fields(request, release)
    return _facts(release, options, body, tools, kwargs, generation_prompt, continued)


def _facts(
    release: Release,
    options: dict[str, Any],
    body: Mapping[str, Any] | None,
    tools: Any,
    kwargs: Any,
    generation_prompt: bool = True,
    continued: bool = False,
) -> PromptFacts:
    """The facts of a request's tools and options (``options``: the defaults, filled in
    here) and of its body's ``reasoning_effort``."""
    if kwargs is not None and type(kwargs) is not dict and not isinstance(kwargs, Mapping):
        kwargs = typed_options(kwargs)  # (a Granite3ChatCompletion's options object)
    given: Mapping[str, Any] = kwargs if isinstance(kwargs, Mapping) else {}
    for name, value in given.items():
        option = release.option(name)
        if option is None or value is None:
            continue
        if option.check is not None and option.check(value) is not None:
            continue  # (refused by the renderer: the default)
        if name == "available_tools":
            if value:
                tools = value  # (it replaces the tools in the prompt)
        else:
            options[name] = value
    effort_option = release.option("reasoning_effort")
    if effort_option is not None:
        effort = body_value(body, "reasoning_effort")
        if effort is not None and (
            effort_option.check is None or effort_option.check(effort) is None
        ):
            top_level_effort(release, options, given, effort)
    if not isinstance(tools, list):
        tools = list(tools) if isinstance(tools, tuple) else None
    return PromptFacts(options, given, tools, generation_prompt, continued)
