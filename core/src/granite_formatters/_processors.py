"""The two interfaces every formatter implements, and the pair that binds them to a model.

Importing this module does not import pydantic: the request and message types are
imported when something needs them (:data:`RequestLike`, a parsed message, a check of a
message type), so that formatting a plain dict never loads them.
"""

from __future__ import annotations

import datetime
import inspect
import threading
import typing
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar, cast

if TYPE_CHECKING:
    from typing_extensions import TypeVar as DefaultTypeVar

    from ._records import PluginInfo
    from ._special_tokens import SpecialTokenPolicy
    from ._streaming import Delta, StreamParser
    from ._types import AssistantMessage, ChatCompletion
    from .release import Release

    #: What a formatter accepts as a request: a typed request, a dict, or a JSON string.
    RequestLike = ChatCompletion | dict[str, Any] | str

__all__ = [
    "Formatter",
    "InputProcessor",
    "MessageStream",
    "OutputProcessor",
    "RequestLike",
    "declared_message_type",
]

#: The message type a formatter parses into (a subclass of :class:`AssistantMessage`).
M = TypeVar("M", bound="AssistantMessage")
if TYPE_CHECKING:
    M_co = DefaultTypeVar(
        "M_co", bound="AssistantMessage", covariant=True, default="AssistantMessage"
    )
else:
    # The default (PEP 696) matters to type checkers only; ``typing.TypeVar`` takes it
    # from Python 3.13, and importing ``typing_extensions`` for it costs a first prompt.
    M_co = TypeVar("M_co", bound="AssistantMessage", covariant=True)


def __getattr__(name: str) -> Any:
    # ``RequestLike`` names the pydantic request type: built on first access.
    if name == "RequestLike":
        from ._types import ChatCompletion

        value = ChatCompletion | dict[str, Any] | str
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _DefaultMessageType:
    """``OutputProcessor.message_type``: :class:`AssistantMessage`, imported on first read."""

    def __get__(self, instance: object, owner: type | None = None) -> type[AssistantMessage]:
        from ._types import AssistantMessage

        return AssistantMessage


class InputProcessor(ABC):
    """Turns a chat request into the exact prompt string a model was trained on.

    ``release`` is the :class:`~granite_formatters.Release` the processor renders (set
    by the engine's processors, built with ``register(..., release=...)``); ``None`` for
    a processor written by hand.
    """

    release: Release | None = None

    @abstractmethod
    def transform(
        self,
        chat_completion: RequestLike,
        add_generation_prompt: bool = True,
        *,
        today: datetime.date | None = None,
        special_tokens: SpecialTokenPolicy | None = None,
        strict: bool = True,
    ) -> str:
        """Render ``chat_completion`` as a prompt.

        ``add_generation_prompt`` appends the assistant header that asks the model to
        answer. ``today`` pins the date that some formats print; when it is ``None``
        the current date is read at each call. ``special_tokens`` is the policy for
        special tokens in caller text (``"error"``, ``"strip"`` or ``"keep"``; ``None``:
        the processor's default). ``strict=False`` asks for the official template's
        exact behaviour on requests it would render only in part: the processor renders
        what the template renders and issues a
        :class:`~granite_formatters._errors.DroppedInputWarning` naming what was left out,
        where strict mode raises.

        Every processor accepts all of these options.

        Raises :class:`~granite_formatters._errors.InvalidRequestError` for a request
        the format cannot express.
        """


class OutputProcessor(ABC):
    """Turns a model's raw output text into a structured assistant message.

    ``message_type`` declares the class of the messages :meth:`transform` returns (a
    subclass of :class:`AssistantMessage`); ``get_formatter(name, message_type)``
    checks it. A processor that does not set it declares the return annotation of its
    ``transform`` when that names a subclass (see :func:`declared_message_type`).
    """

    message_type: ClassVar[type[AssistantMessage]] = _DefaultMessageType()  # type: ignore[assignment]

    @abstractmethod
    def transform(
        self, model_output: str, chat_completion: RequestLike | None = None
    ) -> AssistantMessage:
        """Parse ``model_output``, optionally using the request that produced it.

        ``model_output`` may be an incomplete prefix of a stream. Implementations never
        raise on model output: they return the best message they can, keep the raw
        text, and record what they could not interpret in ``notes``.
        """

    def stream_parser(self, chat_completion: RequestLike | None = None) -> StreamParser:
        """A parser for one output that arrives in chunks.

        The default buffers the whole output and parses it on ``close()``; processors
        that can parse incrementally override it (the bundled Granite ones do).
        """
        from ._streaming import BufferedStreamParser

        return BufferedStreamParser(lambda text: self.transform(text, chat_completion))


class MessageStream(Protocol[M_co]):
    """What :meth:`Formatter.stream_parser` returns, typed with the formatter's message
    type: a :class:`~granite_formatters._streaming.StreamParser` (see there)."""

    def feed(self, chunk: str) -> list[Delta]: ...

    def close(
        self, finish_reason: str | None = None, *, stop_reason: str | None = None
    ) -> list[Delta]: ...

    @property
    def message(self) -> M_co | None: ...


def declared_message_type(
    processor: OutputProcessor | type[OutputProcessor],
) -> type[AssistantMessage]:
    """The message class an output processor declares.

    Its ``message_type`` when a class below :class:`OutputProcessor` sets it, else the
    return annotation of the most derived ``transform`` when that is an
    :class:`AssistantMessage` subclass, else :class:`AssistantMessage`.
    """
    from ._types import AssistantMessage

    cls = processor if isinstance(processor, type) else type(processor)
    for klass in cls.__mro__:
        if klass is OutputProcessor:
            break
        explicit = vars(klass).get("message_type")
        if isinstance(explicit, type) and issubclass(explicit, AssistantMessage):
            return explicit
        transform = vars(klass).get("transform")
        if transform is not None:
            try:
                returned = typing.get_type_hints(transform).get("return")
            except Exception:  # noqa: BLE001 - an unresolvable annotation declares nothing
                returned = None
            if isinstance(returned, type) and issubclass(returned, AssistantMessage):
                return returned
    return OutputProcessor.message_type


#: What :func:`_declared_options` returns for a ``transform`` that takes every option.
_OPTIONS = ("today", "special_tokens", "strict")
_ALL_OPTIONS: frozenset[str] = frozenset(_OPTIONS)


def _declared_options(processor: InputProcessor) -> frozenset[str]:
    """The options of :data:`_OPTIONS` that ``processor.transform`` declares (all of
    them when it takes ``**kwargs``)."""
    try:
        parameters = inspect.signature(processor.transform).parameters.values()
    except (TypeError, ValueError):
        return _ALL_OPTIONS
    names = set()
    for parameter in parameters:
        if parameter.kind is inspect.Parameter.VAR_KEYWORD:
            return _ALL_OPTIONS
        if parameter.kind is not inspect.Parameter.POSITIONAL_ONLY:
            names.add(parameter.name)
    declared = frozenset(names.intersection(_OPTIONS))
    return _ALL_OPTIONS if declared == _ALL_OPTIONS else declared


def _check_options(
    add_generation_prompt: object, today: object, special_tokens: object, strict: object
) -> None:
    """The shared formatting options, checked once for every release."""
    if (
        add_generation_prompt.__class__ is bool
        and strict.__class__ is bool
        and today is None
        and special_tokens is None
    ):
        return  # (the usual call: nothing to check further)
    from ._errors import InvalidRequestError, quote

    if type(add_generation_prompt) is not bool:
        raise InvalidRequestError(
            f"must be True or False, not {quote(add_generation_prompt)}",
            field="add_generation_prompt",
        )
    if type(strict) is not bool:
        raise InvalidRequestError(f"must be True or False, not {quote(strict)}", field="strict")
    if today is not None and not isinstance(today, datetime.date):
        raise InvalidRequestError(
            f"must be a datetime.date, not {type(today).__name__}", field="today"
        )
    if special_tokens is not None and special_tokens not in _POLICIES:
        raise InvalidRequestError(
            f"must be 'error', 'strip' or 'keep', not {quote(special_tokens)}",
            field="special_tokens",
        )


_POLICIES = ("error", "strip", "keep")

#: The body keys :meth:`Formatter.format` reads from a request dict (vLLM's flags).
_BODY_FLAGS = frozenset({"add_generation_prompt", "continue_final_message", "extra_body"})

_DATE = datetime.date

#: Request classes seen that are not mappings (typed requests: no body flags to read).
_TYPED_CLASSES: set[type] = set()


def _is_typed(request: object) -> bool:
    """``request`` is not a mapping nor JSON bytes (its class remembered: an ABC check
    costs ~1 µs)."""
    if isinstance(request, (Mapping, bytes, bytearray)):
        return False
    if len(_TYPED_CLASSES) < 64:
        _TYPED_CLASSES.add(request.__class__)
    return True


#: The flags :func:`_body` looks for in a request given as JSON text (as text, as bytes).
_FLAG_NAMES = ("add_generation_prompt", "continue_final_message")
_FLAG_BYTES = tuple(name.encode() for name in _FLAG_NAMES)


def _body(request: object) -> Mapping[str, Any] | None:
    """The request body a flag may be read from: a mapping, or a JSON object (a string
    or bytes) that mentions one (typed requests keep no OpenAI parameters)."""
    if isinstance(request, Mapping):
        return request
    if isinstance(request, (str, bytes, bytearray)):
        names: tuple[Any, ...] = _FLAG_NAMES if isinstance(request, str) else _FLAG_BYTES
        if any(name in request for name in names):
            from ._engine.request import request_body

            return request_body(request)  # (None when it is not JSON: reported later)
    return None


def _body_flag(body: Mapping[str, Any] | None, key: str, default: bool) -> bool:
    """``body[key]`` (else ``body["extra_body"][key]``) when given and not null, checked
    to be a bool; else ``default``."""
    if body is None:
        return default
    from ._engine.request import body_flag

    return body_flag(body, key, default, strict=True)


def _flag(value: object, field: str) -> bool:
    """``value``, which must be ``True`` or ``False``."""
    if type(value) is not bool:
        from ._errors import InvalidRequestError, quote

        raise InvalidRequestError(f"must be True or False, not {quote(value)}", field=field)
    return value


def _final_text(request: RequestLike) -> tuple[RequestLike, str]:
    """The request (its messages read once, when an iterator) and its final message's
    text, as transformers finds it (the last text part of a list)."""
    from ._errors import InvalidRequestError

    messages: Any
    if isinstance(request, Mapping):
        messages = request.get("messages")
        if messages is not None and not isinstance(messages, (list, tuple, str, Mapping)):
            messages = list(messages)
            request = {**request, "messages": messages}
    elif isinstance(request, (str, bytes, bytearray)):
        import json

        try:
            messages = json.loads(request).get("messages")
        except (ValueError, RecursionError, AttributeError):
            messages = None
    else:
        messages = getattr(request, "messages", None)
    final = messages[-1] if isinstance(messages, (list, tuple)) and messages else None
    content = (
        final.get("content") if isinstance(final, Mapping) else getattr(final, "content", None)
    )
    if isinstance(content, (list, tuple)) and content:
        last = content[-1]
        content = last.get("text") if isinstance(last, Mapping) else last
    if not isinstance(content, str):
        raise InvalidRequestError(
            "needs a final message with text to continue", field="continue_final_message"
        )
    return request, content


def _continued(prompt: str, final: str) -> str:
    """``prompt`` cut right after the final message's text (as transformers cuts it, a
    second try with the text stripped, as some templates print it)."""
    for text in (final, final.strip()):
        found = prompt.rfind(text)
        if found != -1:
            return prompt[: found + len(text)]
    from ._errors import InvalidRequestError

    raise InvalidRequestError(
        "the final message's text is not in the prompt (special tokens stripped?), so it "
        "cannot be continued",
        field="continue_final_message",
    )


class Formatter(Generic[M_co]):
    """An input and an output processor for one model, as ``get_formatter`` returns it.

    Generic in the message type that :meth:`parse` returns: ``get_formatter(name)`` is a
    ``Formatter[AssistantMessage]``, ``get_formatter(name, Granite3AssistantMessage)``
    a ``Formatter[Granite3AssistantMessage]`` (checked against the output processor's
    declared ``message_type``). A formatter pickles (its lock is not part of its
    state) and compares equal by model, plugin and processor classes.
    """

    __slots__ = (
        "_accepts",
        "_lock",
        "_output",
        "_output_factory",
        "input_processor",
        "model_id",
        "plugin",
    )

    def __init__(
        self,
        model_id: str,
        input_processor: InputProcessor,
        output_processor: OutputProcessor | Callable[[], OutputProcessor],
        plugin: PluginInfo | None = None,
    ) -> None:
        """``output_processor`` may also be a zero-argument factory, called on first use
        (so that a process that only formats never imports the output side)."""
        self.model_id = model_id
        self.input_processor = input_processor
        self.plugin = plugin
        self._lock = threading.Lock()
        self._accepts: frozenset[str] | None = None
        self._output: OutputProcessor | None = None
        self._output_factory: Callable[[], OutputProcessor] | None = None
        if isinstance(output_processor, OutputProcessor):
            self._output = output_processor
        else:
            self._output_factory = output_processor

    @property
    def output_processor(self) -> OutputProcessor:
        """The output processor (created on first use when given as a factory)."""
        output = self._output
        if output is None:
            with self._lock:
                if self._output is None:
                    assert self._output_factory is not None
                    self._output = self._output_factory()
                output = self._output
        return output

    def expecting(self, message_type: type[M]) -> Formatter[M]:
        """This formatter, typed as parsing into ``message_type``.

        Raises :class:`TypeError` unless the output processor declares
        ``message_type`` or a subclass of it (this creates the output processor).
        """
        from ._types import AssistantMessage

        if not (isinstance(message_type, type) and issubclass(message_type, AssistantMessage)):
            raise TypeError(
                f"message_type must be an AssistantMessage subclass, got {message_type!r}"
            )
        declared = declared_message_type(self.output_processor)
        if not issubclass(declared, message_type):
            raise TypeError(
                f"{self.model_id} parses into {declared.__qualname__}, which is not a "
                f"{message_type.__qualname__}"
            )
        return cast("Formatter[M]", self)

    # -- pickling and equality ---------------------------------------------------------

    def __getstate__(self) -> dict[str, Any]:
        return {
            "model_id": self.model_id,
            "input_processor": self.input_processor,
            "plugin": self.plugin,
            "_output": self._output,
            "_output_factory": self._output_factory if self._output is None else None,
        }

    def __setstate__(self, state: Mapping[str, Any]) -> None:
        for name, value in state.items():
            object.__setattr__(self, name, value)
        self._lock = threading.Lock()
        self._accepts = None

    def _identity(self) -> tuple[object, ...]:
        return (self.model_id, self.plugin, type(self.input_processor))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Formatter):
            return NotImplemented
        return self._identity() == other._identity()

    def __hash__(self) -> int:
        return hash((self.model_id, type(self.input_processor)))

    def __repr__(self) -> str:
        plugin = f" from {self.plugin.name} {self.plugin.version}" if self.plugin else ""
        return f"<Formatter {self.model_id}{plugin}>"

    # -- formatting and parsing -----------------------------------------------------------

    def format(
        self,
        request: RequestLike,
        *,
        add_generation_prompt: bool | None = None,
        continue_final_message: bool | None = None,
        today: datetime.date | None = None,
        special_tokens: SpecialTokenPolicy | None = None,
        strict: bool = True,
    ) -> str:
        """Render ``request`` as this model's prompt string.

        ``add_generation_prompt`` and ``continue_final_message`` not given (``None``)
        are read from the request body as vLLM's chat endpoint reads them (top level,
        then ``extra_body``), else default to ``True`` and ``False``; an argument given
        wins over the body. ``continue_final_message`` leaves the final message open
        (cut after its text, as transformers does) with no generation prompt; with
        ``add_generation_prompt=True`` it is an error. See ``docs/api.md``.

        ``special_tokens`` (``"error"``, ``"strip"`` or ``"keep"``; ``None``: the
        processor's default) and ``strict`` are described in
        :meth:`InputProcessor.transform`. The options are checked here, for every
        release alike (:class:`~granite_formatters._errors.InvalidRequestError` naming
        the option); a processor is passed only the options its ``transform`` declares,
        and asking one for an option it does not declare is a
        :class:`~granite_formatters._errors.FormatterError`.
        """
        kind = type(request)
        if (
            continue_final_message is None
            and (
                # a plain dict without the body flags, or a typed request (which keeps no
                # OpenAI parameters): nothing to read from the body
                (kind is dict and _BODY_FLAGS.isdisjoint(request))
                or kind in _TYPED_CLASSES
                or (kind is not dict and kind is not str and _is_typed(request))
            )
            and (today is None or type(today) is _DATE)
            and (add_generation_prompt is None or type(add_generation_prompt) is bool)
            and (strict is True or strict is False)
            and (special_tokens is None or special_tokens in _POLICIES)
            and self._accepts is _ALL_OPTIONS
        ):
            # The usual call (a plain dict without body flags or a typed request, valid
            # options, a processor of the current contract): what the steps below come
            # to, without them.
            return self.input_processor.transform(
                request,
                True if add_generation_prompt is None else add_generation_prompt,
                today=today,
                special_tokens=special_tokens,
                strict=strict,
            )
        body = None
        if (add_generation_prompt is None or continue_final_message is None) and (
            request.__class__ is not dict
            or "add_generation_prompt" in request
            or "continue_final_message" in request
            or "extra_body" in request
        ):
            body = _body(request)
        if continue_final_message is None:
            continue_final_message = _body_flag(body, "continue_final_message", False)
        else:
            continue_final_message = _flag(continue_final_message, "continue_final_message")
        if add_generation_prompt is None:
            add_generation_prompt = _body_flag(
                body, "add_generation_prompt", not continue_final_message
            )
        final: str | None = None
        if continue_final_message:
            from ._errors import InvalidRequestError

            if add_generation_prompt is True:
                raise InvalidRequestError(
                    "cannot be combined with add_generation_prompt=True (as in vLLM): the "
                    "final message is continued, so no generation prompt follows it",
                    field="continue_final_message",
                )
            request, final = _final_text(request)
        _check_options(add_generation_prompt, today, special_tokens, strict)
        given = self._given(today, special_tokens, strict)
        # (The processor is called from here, one frame below the caller, so that the
        # warnings it issues with stacklevel=3 point at the caller.)
        if given is None:
            prompt = self.input_processor.transform(
                request,
                add_generation_prompt,
                today=today,
                special_tokens=special_tokens,
                strict=strict,
            )
        else:
            prompt = self.input_processor.transform(request, add_generation_prompt, **given)
        return prompt if final is None else _continued(prompt, final)

    def _given(
        self, today: datetime.date | None, special_tokens: SpecialTokenPolicy | None, strict: bool
    ) -> dict[str, Any] | None:
        """The options to pass to a processor that does not declare them all (``None``:
        it declares them all); asking for one it lacks is a FormatterError."""
        accepts = self._accepts
        if accepts is None:
            accepts = self._accepts = _declared_options(self.input_processor)
        if accepts is _ALL_OPTIONS:
            return None
        given: dict[str, Any] = {}
        for name, value, asked in (
            ("today", today, today is not None),
            ("special_tokens", special_tokens, special_tokens is not None),
            ("strict", strict, strict is not True),
        ):
            if name in accepts:
                given[name] = value
            elif asked:
                from ._errors import FormatterError

                plugin = f"plugin {self.plugin.label}" if self.plugin else "its plugin"
                raise FormatterError(
                    f"{self.model_id}: the input processor "
                    f"{type(self.input_processor).__qualname__} of {plugin} does not support "
                    f"the option {name!r} (it was written against an earlier plugin "
                    "contract); leave the option out or upgrade the plugin"
                )
        return given

    @property
    def release(self) -> Release | None:
        """The :class:`~granite_formatters.Release` this model was registered with
        (``register(..., release=...)``), ``None`` for a model given as processors."""
        found: Release | None = getattr(self.input_processor, "release", None)
        return found

    @property
    def stop_strings(self) -> tuple[str, ...]:
        """Strings that end a generation of this model (its release's), ``()`` when the
        input processor declares none."""
        found = getattr(self.input_processor, "stop_strings", ())
        return tuple(found) if isinstance(found, (tuple, list)) else ()

    def apply_chat_template(
        self,
        messages: Iterable[Any],
        tools: Iterable[Any] | None = None,
        documents: Iterable[Any] | None = None,
        add_generation_prompt: bool = False,
        *,
        continue_final_message: bool = False,
        today: datetime.date | None = None,
        special_tokens: SpecialTokenPolicy | None = None,
        strict: bool = True,
        **template_kwargs: Any,
    ) -> str:
        """Render a prompt the way ``tokenizer.apply_chat_template(..., tokenize=False)``
        is called, so a transformers user changes one call.

        ``messages``, ``tools`` and ``documents`` become the request's fields; any other
        keyword (``thinking=True``, ``controls={...}``, ...) goes into
        ``chat_template_kwargs``. ``add_generation_prompt`` defaults to ``False``, as in
        transformers. The keyword-only options are those of :meth:`format`.
        """
        request: dict[str, Any] = {"messages": list(messages)}
        if tools is not None:
            request["tools"] = list(tools)
        if documents is not None:
            request["documents"] = list(documents)
        if template_kwargs:
            request["chat_template_kwargs"] = dict(template_kwargs)
        return self.format(
            request,
            add_generation_prompt=add_generation_prompt,
            continue_final_message=continue_final_message,
            today=today,
            special_tokens=special_tokens,
            strict=strict,
        )

    def parse(self, model_output: str, request: RequestLike | None = None) -> M_co:
        """Parse raw model output into a structured assistant message."""
        return cast("M_co", self.output_processor.transform(model_output, request))

    def stream_parser(self, request: RequestLike | None = None) -> MessageStream[M_co]:
        """A parser for one output streamed in chunks: ``feed(chunk)``, ``close()``, ``message``.

        The object is the output processor's
        :class:`~granite_formatters._streaming.StreamParser` (wrapped, when a plugin's
        parser overrides ``close``, so that ``close``'s arguments are checked the same
        for every parser); see :mod:`granite_formatters._streaming`.
        """
        from ._streaming import _checked_stream

        parser: StreamParser = _checked_stream(self.output_processor.stream_parser(request))
        return cast("MessageStream[M_co]", parser)
