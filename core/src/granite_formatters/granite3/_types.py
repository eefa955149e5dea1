"""Types shared by the Granite 3 family of formatters (3.1, 3.2, 3.3, ...)."""

from __future__ import annotations

from typing import Any, Literal, Union

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    ValidationError,
    field_validator,
)

from .._types import AssistantMessage, ChatCompletion, Document

__all__ = [
    "Citation",
    "Granite3AssistantMessage",
    "Granite3ChatCompletion",
    "Granite3Controls",
    "Granite3Kwargs",
    "Hallucination",
]


class Hallucination(BaseModel):
    """A sentence of the response that the model flagged as possibly hallucinated.

    ``response_begin``/``response_end`` index the cleaned response (the message's
    ``content``); they are ``None`` when the flagged text could not be found there.
    """

    model_config = ConfigDict(defer_build=True)

    hallucination_id: str
    risk: str
    reasoning: str | None = None
    response_text: str
    response_begin: int | None = None
    response_end: int | None = None


class Citation(BaseModel):
    """A citation parsed from model output.

    ``response_begin``/``response_end`` index the cleaned response (``content``), and
    ``context_begin``/``context_end`` index the full text of the cited input document.
    A span that could not be located is ``None`` (never a fake ``0``).
    ``doc_id`` is the cited document's own ``doc_id``, with the type the caller gave
    it (``str`` or ``int``), so citations join ``documents`` on equality; a document
    the request does not have is named as the model wrote it (a ``str``).
    """

    model_config = ConfigDict(defer_build=True)

    citation_id: str
    doc_id: Union[StrictStr, StrictInt]  # noqa: UP007 - pydantic smart union
    context_text: str
    context_begin: int | None = None
    context_end: int | None = None
    response_text: str = ""
    response_begin: int | None = None
    response_end: int | None = None


class Granite3Controls(BaseModel):
    """Output controls for Granite 3.x models, as given in ``chat_template_kwargs.controls``."""

    model_config = ConfigDict(extra="forbid")

    citations: StrictBool | None = None
    hallucinations: StrictBool | None = None
    length: Literal["short", "long"] | None = None
    originality: Literal["extractive", "abstractive"] | None = None


class Granite3Kwargs(BaseModel):
    """The ``chat_template_kwargs`` the Granite 3 templates understand.

    ``controls`` keeps the caller's dict (key order and ``false`` values matter: the
    template prints it verbatim) after checking it against :class:`Granite3Controls`.
    A misspelt option is an error, not silently ignored.
    """

    model_config = ConfigDict(extra="forbid")

    thinking: StrictBool = False
    controls: dict[str, Any] | None = None

    @field_validator("controls")
    @classmethod
    def _check_controls(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        if value is not None:
            Granite3Controls.model_validate(value)
        return value


class Granite3ChatCompletion(ChatCompletion):
    """A chat request with its Granite 3 template options validated."""

    # A factory, not a shared default instance: pydantic deep-copies a default model
    # instance on every validation, which cost more than validating the whole request.
    chat_template_kwargs: Granite3Kwargs = Field(default_factory=Granite3Kwargs)  # type: ignore[assignment]

    @field_validator("chat_template_kwargs", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return Granite3Kwargs() if value is None else value

    @classmethod
    def from_chat_completion(cls, request: ChatCompletion) -> Granite3ChatCompletion:
        """``request`` with its ``chat_template_kwargs`` checked as Granite 3 options.

        The other fields were validated when ``request`` was built and are reused as
        they are (no round trip through dicts).
        """
        raw = request.chat_template_kwargs
        kwargs = (
            raw
            if isinstance(raw, Granite3Kwargs)
            else Granite3Kwargs()
            if raw is None
            else Granite3Kwargs.model_validate(raw)
        )
        return cls.model_construct(
            messages=request.messages,
            tools=request.tools,
            documents=request.documents,
            chat_template_kwargs=kwargs,
            model=request.model,
        )

    def controls(self) -> Granite3Controls:
        """The validated controls (empty when none were given)."""
        raw = self.chat_template_kwargs.controls
        if not raw:
            return Granite3Controls()
        try:
            return Granite3Controls.model_validate(raw)
        except ValidationError:  # pragma: no cover - validated on construction
            return Granite3Controls()

    def thinking(self) -> bool:
        """Whether chain-of-thought ("thinking") mode was requested."""
        return self.chat_template_kwargs.thinking


class Granite3AssistantMessage(AssistantMessage):
    """An assistant message with the Granite 3 extras parsed out of the raw text."""

    citations: list[Citation] = Field(default_factory=list)
    documents: list[Document] = Field(default_factory=list)
    hallucinations: list[Hallucination] = Field(default_factory=list)

    def to_openai(self) -> dict[str, Any]:
        """The OpenAI chat message dict, with the RAG results as extension fields.

        On top of :meth:`AssistantMessage.to_openai` (``content``, ``tool_calls``,
        ``reasoning_content`` and ``reasoning``), non-empty ``citations``,
        ``hallucinations`` and ``documents`` are added as lists of plain JSON objects
        with the same keys as :class:`Citation`, :class:`Hallucination` and
        :class:`~granite_formatters._types.Document`. The OpenAI types allow extra
        fields, so the dict still validates as ``openai.types.chat.ChatCompletionMessage``,
        and the formatters ignore these fields when the message is sent back in
        ``messages``.
        """
        message = super().to_openai()
        if self.citations:
            message["citations"] = [c.model_dump(mode="json") for c in self.citations]
        if self.hallucinations:
            message["hallucinations"] = [h.model_dump(mode="json") for h in self.hallucinations]
        if self.documents:
            message["documents"] = [
                d.model_dump(mode="json", exclude_none=True) for d in self.documents
            ]
        return message
