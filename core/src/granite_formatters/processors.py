"""The two interfaces every formatter implements, and the pair that binds them to a model."""

from __future__ import annotations

import datetime
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .types import AssistantMessage, ChatCompletion

if TYPE_CHECKING:
    from .records import PluginInfo
    from .special_tokens import SpecialTokenPolicy
    from .streaming import StreamParser

__all__ = ["Formatter", "InputProcessor", "OutputProcessor", "RequestLike"]

#: What a formatter accepts as a request: a typed request, a dict, or a JSON string.
RequestLike = ChatCompletion | dict[str, Any] | str


class InputProcessor(ABC):
    """Turns a chat request into the exact prompt string a model was trained on."""

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
        :class:`~granite_formatters.errors.DroppedInputWarning` naming what was left out,
        where strict mode raises.

        Every processor accepts all of these options.

        Raises :class:`~granite_formatters.errors.InvalidRequestError` for a request
        the format cannot express.
        """


class OutputProcessor(ABC):
    """Turns a model's raw output text into a structured assistant message."""

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
        from .streaming import BufferedStreamParser

        return BufferedStreamParser(lambda text: self.transform(text, chat_completion))


class Formatter:
    """An input and an output processor for one model, as ``get_formatter`` returns it."""

    __slots__ = ("_lock", "_output", "_output_factory", "input_processor", "model_id", "plugin")

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

    def __repr__(self) -> str:
        plugin = f" from {self.plugin.name} {self.plugin.version}" if self.plugin else ""
        return f"<Formatter {self.model_id}{plugin}>"

    def format(
        self,
        request: RequestLike,
        *,
        add_generation_prompt: bool = True,
        today: datetime.date | None = None,
        special_tokens: SpecialTokenPolicy | None = None,
        strict: bool = True,
    ) -> str:
        """Render ``request`` as this model's prompt string.

        ``special_tokens`` (``"error"``, ``"strip"`` or ``"keep"``; ``None``: the
        processor's default) and ``strict`` are described in
        :meth:`InputProcessor.transform`.
        """
        return self.input_processor.transform(
            request,
            add_generation_prompt,
            today=today,
            special_tokens=special_tokens,
            strict=strict,
        )

    def parse(self, model_output: str, request: RequestLike | None = None) -> AssistantMessage:
        """Parse raw model output into a structured assistant message."""
        return self.output_processor.transform(model_output, request)

    def stream_parser(self, request: RequestLike | None = None) -> StreamParser:
        """A parser for one output streamed in chunks: ``feed(chunk)``, ``close()``, ``message``.

        See :mod:`granite_formatters.streaming`.
        """
        return self.output_processor.stream_parser(request)
