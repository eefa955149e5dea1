"""``granite-format doctor --backend`` against Ollama: what its ``/api/show`` declares,
from a real loopback server (the fake of :mod:`.fake_runtimes`), through the doctor's
real HTTP code."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator

import pytest

for _module in ("starlette", "uvicorn", "jinja2"):
    pytest.importorskip(_module, reason='the live doctor tests need pip install "./core[serve]"')

from serve.servers import ServerThread  # noqa: E402

from granite_formatters import _cli as cli  # noqa: E402
from granite_formatters._doctor import diagnose_live  # noqa: E402

from .fake_runtimes import OllamaModel, ollama_app  # noqa: E402
from .test_modelfile import GO_TEMPLATE  # noqa: E402

#: Granite 3.3 as Ollama's library ships it: a Go template with tools, stop strings.
GRANITE33 = OllamaModel(
    GO_TEMPLATE, ("<|end_of_text|>", "<|start_of_role|>"), ("completion", "tools")
)
#: A 4.2 build without tools in its template (ibm-granite/granite-4.2-language-models #4).
GRANITE42_PLAIN = OllamaModel("{{ .Prompt }}", (), ("completion",))
#: A build with Ollama's built-in renderer and parser.
GRANITE42_RENDERED = OllamaModel(
    "{{ .Prompt }}", ("<|im_end|>",), ("completion", "tools", "thinking"), "granite42", "granite42"
)


@pytest.fixture(scope="module")
def ollama() -> Iterator[str]:
    models = {
        "granite3.3:8b": GRANITE33,
        "granite4.2:8b": GRANITE42_PLAIN,
        "my-granite": GRANITE42_RENDERED,
    }
    server = ServerThread(ollama_app(models))
    yield server.url
    server.stop()


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_a_go_template_with_tools(ollama: str) -> None:
    code, out, err = run("doctor", "--backend", ollama, "--model", "granite3.3:8b")
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        f"{ollama} (Ollama server)",
        "FROM      /root/.ollama/models/blobs/sha256-5c3a1b2e9f0d",
        "TEMPLATE  present",
        "RENDERER  -",
        "PARSER    -",
        "stop      '<|end_of_text|>', '<|start_of_role|>'",
        "tools     yes",
        "thinking  no",
        "",
        "TEMPLATE: a Go template, not the official Jinja one",
        "no PARSER: Ollama finds tool calls by matching the TEMPLATE's shape",
        "no .Think and no PARSER: Ollama does not offer thinking",
        "stop: '<|end_of_text|>', '<|start_of_role|>'",
        "Ollama lists the capabilities: completion, tools",
        "",
        "to send the exact prompt instead (Ollama's raw mode):",
        f"  granite-format serve --backend {ollama} --backend-type ollama "
        "--model granite-3.3-8b-instruct=granite3.3:8b",
    ]


def test_a_template_without_tools(ollama: str) -> None:
    report = diagnose_live(ollama, "granite4.2:8b", backend_type="ollama")
    assert report.modelfile is not None
    found = report.modelfile
    assert (found.template, found.stops, found.tools, found.thinking) == (
        "{{ .Prompt }}",
        (),
        False,
        False,
    )
    assert found.notes == (
        "TEMPLATE: a Go template, not the official Jinja one",
        "no .Tools in TEMPLATE and no RENDERER/PARSER: Ollama lists no tools",
        "no .Think and no PARSER: Ollama does not offer thinking",
        "Ollama lists the capabilities: completion",
    )
    assert found.serve_command.endswith("--model granite-4.2-8b=granite4.2:8b")


def test_renderer_and_parser_with_our_name_given(ollama: str) -> None:
    code, out, err = run(
        "doctor", "--backend", ollama + "/", "-m", "granite-4.2-8b=my-granite", "--json"
    )
    assert (code, err) == (0, "")
    report = json.loads(out)
    assert (report["kind"], report["templates"]) == ("Ollama server", [])
    found = report["modelfile"]
    assert (found["renderer"], found["parser"], found["stop"]) == (
        "granite42",
        "granite42",
        ["<|im_end|>"],
    )
    assert (found["tools"], found["thinking"]) == (True, True)
    assert found["notes"][-1] == "Ollama lists the capabilities: completion, tools, thinking"
    assert found["serve_command"] == (
        f"granite-format serve --backend {ollama} --backend-type ollama "
        "--model granite-4.2-8b=my-granite"
    )


def test_an_unknown_model_is_one_error_line(ollama: str) -> None:
    code, out, err = run("doctor", "--backend", ollama, "-m", "granite9:1b")
    assert (code, out) == (1, "")
    assert err == (
        f"granite-format: error: the Ollama server at {ollama} has no model 'granite9:1b' "
        "(ollama pull granite9:1b, or see ollama list)\n"
    )


def test_a_tag_we_do_not_know(ollama: str) -> None:
    report = diagnose_live(ollama, "my-granite")
    assert report.modelfile is not None
    assert report.modelfile.notes[-1] == (
        "granite-formatters does not know 'my-granite': give --model OURS=my-granite "
        "(granite-format models lists ours), and OURS in place of MODEL below"
    )
    assert report.modelfile.serve_command == (
        f"granite-format serve --backend {ollama} --backend-type ollama --model MODEL=my-granite"
    )
