"""The generation options of an OpenAI chat request, validated (the prompt is the formatter's)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import InvalidRequestError

#: Stop strings every Granite release ends its turn with (also its EOS token).
GRANITE_STOP = ("<|end_of_text|>",)

__all__ = ["GRANITE_STOP", "GenerationParams", "StreamOptions", "read_params"]


class StreamOptions(BaseModel):
    model_config = ConfigDict(extra="ignore")

    include_usage: bool = False


class GenerationParams(BaseModel):
    """Sampling and streaming options; the rest of the body goes to the formatter."""

    model_config = ConfigDict(extra="ignore")

    model: str = Field(min_length=1)
    stream: bool | None = False
    stream_options: StreamOptions | None = None
    temperature: float | None = Field(default=None, ge=0)
    top_p: float | None = Field(default=None, ge=0, le=1)
    max_tokens: int | None = Field(default=None, ge=1)
    max_completion_tokens: int | None = Field(default=None, ge=1)
    stop: str | list[str] | None = None
    seed: int | None = None
    n: int | None = Field(default=None, ge=1, le=1)
    logprobs: bool | None = None
    top_logprobs: int | None = Field(default=None, ge=0, le=20)

    @property
    def token_limit(self) -> int | None:
        return self.max_completion_tokens if self.max_completion_tokens else self.max_tokens

    @property
    def stop_list(self) -> list[str]:
        if self.stop is None:
            return []
        return [self.stop] if isinstance(self.stop, str) else list(self.stop)

    def sampling(self, limit_key: str) -> dict[str, Any]:
        """The stop strings (Granite's own first) and the sampling options that were set,
        with the token limit under the backend's name for it (``limit_key``)."""
        options: dict[str, Any] = {"stop": [*GRANITE_STOP, *self.stop_list]}
        for key in ("temperature", "top_p", "seed"):
            value = getattr(self, key)
            if value is not None:
                options[key] = value
        if self.token_limit is not None:
            options[limit_key] = self.token_limit
        return options

    @property
    def include_usage(self) -> bool:
        return bool(self.stream_options and self.stream_options.include_usage)


def read_params(body: dict[str, Any]) -> GenerationParams:
    """Validate the generation options; an :class:`InvalidRequestError` names the field."""
    try:
        return GenerationParams.model_validate(body)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        loc = first.get("loc", ())
        field = ".".join(str(part) for part in loc if not str(part).startswith(("list[", "str")))
        if first.get("type") == "missing":
            message = "this field is required"
        elif loc and loc[0] == "n":
            message = "only n=1 is supported"
        else:
            message = str(first.get("msg", "invalid value"))
        raise InvalidRequestError(message, field=field or None) from None
