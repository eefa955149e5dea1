"""What a running Ollama server declares about a model's prompts: its ``/api/show``.

Ollama has no endpoint that renders a prompt without running the model, but
``POST /api/show`` answers the model's ``modelfile`` (as ``ollama show --modelfile``
prints it), its Go ``template``, its ``parameters`` (one ``name value`` a line, the stop
strings among them), the ``renderer`` and ``parser`` it uses (newer servers) and the
``capabilities`` it lists. The doctor reports them as it reports a Modelfile, with
Ollama's own capability list, and the ``serve`` command that sends the exact prompt in
raw mode instead.
"""

from __future__ import annotations

from typing import Any

from .._errors import quote
from .modelfile import Modelfile, declared, parameter_stops, read_modelfile
from .remote import HTTPFailure, post, root
from .sources import DoctorError

__all__ = ["live_modelfile", "show"]


def _text(answer: dict[str, Any], key: str) -> str | None:
    value = answer.get(key)
    return value if isinstance(value, str) and value else None


def show(url: str, tag: str, *, api_key: str | None = None) -> dict[str, Any]:
    """Ollama's ``/api/show`` answer for the model ``tag`` (``api_key``: the key of a
    proxy in front of it)."""
    try:
        answer = post(url, "/api/show", {"model": tag}, api_key=api_key)
    except HTTPFailure as exc:
        if exc.status == 404 and "not found" in str(exc):
            raise DoctorError(
                f"the Ollama server at {root(url)} has no model {quote(tag)} "
                f"(ollama pull {tag}, or see ollama list)"
            ) from None
        raise
    if not isinstance(answer, dict):
        raise DoctorError(f"{root(url)}/api/show did not answer a JSON object")
    return answer


def live_modelfile(
    url: str, tag: str, model: str | None, *, api_key: str | None = None
) -> Modelfile:
    """What the Ollama server at ``url`` declares for ``tag``; ``model`` is our name for
    it (for the ``serve`` command)."""
    answer = show(url, tag, api_key=api_key)
    written = read_modelfile(_text(answer, "modelfile") or "")
    template = _text(answer, "template") or written.template
    stops = list(written.stops)
    if not stops:
        for line in (_text(answer, "parameters") or "").splitlines():
            stops += parameter_stops(line)
    capabilities = answer.get("capabilities")
    notes: list[str] = []
    if isinstance(capabilities, list):
        listed = ", ".join(str(c) for c in capabilities) or "none"
        notes.append(f"Ollama lists the capabilities: {listed}")
    if model is None:
        notes.append(
            f"granite-formatters does not know {quote(tag)}: give --model OURS={tag} "
            "(granite-format models lists ours), and OURS in place of MODEL below"
        )
    return declared(
        written.source,
        template,
        _text(answer, "renderer") or written.renderer,
        _text(answer, "parser") or written.parser,
        tuple(stops),
        model=model or "MODEL",
        tag=tag,
        backend=root(url),
        notes=tuple(notes),
    )
