"""``granite-format doctor``: which Granite release a runtime's chat template is, and how
it behaves against our formatter.

:func:`diagnose` reads the template(s) at a path (:mod:`.sources`), compares each text
with reference templates (:mod:`.identify`; the package ships none), renders the probe
set (:mod:`.probes`) through it and through every bundled release's formatter
(:mod:`.behaviour`; needs jinja2, the ``doctor`` extra), and for an Ollama Modelfile
says what it declares (:mod:`.modelfile`). :func:`diagnose_live` asks a running server
(:mod:`.remote` tells which runtime it is) to render the probe set itself: llama.cpp's
``/apply-template`` (:mod:`.live`), vLLM's ``/tokenize`` and ``/detokenize``
(:mod:`.vllm`); for Ollama, which renders no prompt without running the model, it reports
what ``/api/show`` declares (:mod:`.ollama`). See docs/runtimes.md.
"""

from __future__ import annotations

from .report import DoctorReport, TemplateReport
from .sources import DoctorError

__all__ = ["DoctorError", "DoctorReport", "TemplateReport", "diagnose", "diagnose_live"]


def _jinja_available() -> None:
    try:
        import jinja2  # noqa: F401
    except ImportError:
        raise DoctorError(
            "rendering a chat template needs jinja2: "
            'python3 -m pip install "./core[doctor]" (from a clone of the repository)'
        ) from None


def _release_models() -> dict[str, str]:
    """The bundled releases whose plugin is installed, by version."""
    from .. import resolve_model
    from .._errors import UnknownModelError
    from .behaviour import RELEASE_MODELS

    found = {}
    for version, model in RELEASE_MODELS.items():
        try:
            resolve_model(model)
        except UnknownModelError:
            continue
        found[version] = model
    return found


def _our_name(source: str | None) -> str | None:
    """Our model name for a Modelfile's ``FROM`` (an Ollama tag or a GGUF path)."""
    from pathlib import PurePath

    from .. import resolve_model
    from .._errors import UnknownModelError

    if not source:
        return None
    for name in (source, PurePath(source).name):
        try:
            return resolve_model(name).model.model_id
        except UnknownModelError:
            continue
    return None


def _template_report(
    name: str, text: str, known: dict[str, str] | None, model: str | None
) -> TemplateReport:
    from .behaviour import capabilities, compare_behaviour
    from .identify import compare

    rendered: dict[str, str] = {}
    releases = _release_models()
    results = {v: compare_behaviour(text, m, rendered=rendered) for v, m in releases.items()}
    if not results and model is None:
        raise DoctorError("no Granite release plugin is installed to compare with")
    per_release = tuple((v, len(b.differing)) for v, b in results.items())
    fewest = min((count for _, count in per_release), default=0)
    nearest = tuple(v for v, count in per_release if count == fewest)
    if model is not None:
        behaviour = compare_behaviour(text, model, rendered=rendered)
    else:
        behaviour = results[nearest[0]]
    match = None if known is None else compare(text, known)
    return TemplateReport(name, match, behaviour, nearest, per_release, capabilities(text))


def diagnose(path: str, *, templates: str | None = None, model: str | None = None) -> DoctorReport:
    """The doctor's report on the chat template(s) at ``path``.

    ``templates`` is a folder of reference templates for the text comparison (default:
    ``$GRANITE_FORMATTERS_SHARED/chat-templates`` when present, else no text
    comparison); ``model`` compares the behaviour with that model's formatter instead of
    the nearest release's. Raises :class:`DoctorError` for a path it cannot read.
    """
    from .identify import reference_folder, references
    from .modelfile import read_modelfile
    from .sources import read_source

    source = read_source(path)
    if source.modelfile is not None:
        parsed = read_modelfile(source.modelfile)
        parsed = read_modelfile(source.modelfile, model or _our_name(parsed.source))
        return DoctorReport(source.path, source.kind, None, modelfile=parsed)
    _jinja_available()
    folder = reference_folder(templates)
    if folder is not None and not folder.is_dir():
        raise DoctorError(f"the reference templates folder {folder} is not a folder")
    known = None if folder is None else references(folder)
    reports = tuple(_template_report(t.name, t.text, known, model) for t in source.templates)
    return DoctorReport(source.path, source.kind, None if folder is None else str(folder), reports)


def diagnose_live(
    url: str,
    model: str,
    *,
    backend_type: str = "auto",
    served: str | None = None,
    api_key: str | None = None,
) -> DoctorReport:
    """The doctor's report on the prompts the server at ``url`` really sends its model,
    against ``model``'s formatter.

    ``backend_type`` is ``llamacpp`` (its ``/apply-template``), ``vllm`` (its
    ``/tokenize`` and ``/detokenize``), ``ollama`` (what its ``/api/show`` declares) or
    ``auto`` (ask the server). ``served`` is the model's name on the server (default:
    ``model``; llama.cpp ignores it). ``api_key`` is sent as ``Authorization: Bearer`` on
    every request (a server started with ``--api-key``); it is in no report or error.
    Raises :class:`DoctorError` for a server that does not answer as that runtime, or for
    a key an HTTP header cannot carry.
    """
    from .remote import BACKEND_TYPES, detect, root

    if backend_type not in BACKEND_TYPES:
        raise DoctorError(f"unknown backend type {backend_type!r}: one of {BACKEND_TYPES}")
    served = served or model
    kind = detect(url, api_key=api_key) if backend_type == "auto" else backend_type
    if kind == "ollama":
        from .ollama import live_modelfile

        ours = model if served != model else _our_name(served)
        found = live_modelfile(url, served, ours, api_key=api_key)
        return DoctorReport(root(url), "Ollama server", None, modelfile=found)
    if kind == "vllm":
        from .vllm import live_behaviour as vllm_behaviour

        behaviour, capabilities, notes = vllm_behaviour(url, model, served, api_key=api_key)
        report = TemplateReport("/tokenize", None, behaviour, (), (), capabilities, notes)
        return DoctorReport(root(url), "vLLM server", None, (report,))
    from .live import live_behaviour

    behaviour, capabilities = live_behaviour(url, model, api_key=api_key)
    report = TemplateReport("/apply-template", None, behaviour, (), (), capabilities)
    return DoctorReport(url, "llama.cpp server", None, (report,))
