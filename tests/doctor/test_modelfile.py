"""What an Ollama Modelfile declares, and what that means for tools and thinking."""

from __future__ import annotations

from granite_formatters._doctor.modelfile import read_modelfile

GO_TEMPLATE = """{{- if .Tools }}<|start_of_role|>available_tools<|end_of_role|>
{{ range .Tools }}{{ . }}{{ end }}<|end_of_text|>
{{ end }}{{ range .Messages }}<|start_of_role|>{{ .Role }}<|end_of_role|>{{ .Content }}<|end_of_text|>
{{ end }}<|start_of_role|>assistant<|end_of_role|>"""

TEMPLATED = f'''FROM ./granite-3.3-8b-instruct-Q4_K_M.gguf
TEMPLATE """{GO_TEMPLATE}"""
PARAMETER stop "<|end_of_text|>"
PARAMETER stop "<|start_of_role|>"
PARAMETER temperature 0
'''


def test_a_go_template_with_tools_and_stops() -> None:
    found = read_modelfile(TEMPLATED, "granite-3.3-8b-instruct")
    assert found.source == "./granite-3.3-8b-instruct-Q4_K_M.gguf"
    assert found.template == GO_TEMPLATE
    assert (found.renderer, found.parser) == (None, None)
    assert found.stops == ("<|end_of_text|>", "<|start_of_role|>")
    assert (found.tools, found.thinking) == (True, False)
    assert found.notes == (
        "TEMPLATE: a Go template, not the official Jinja one",
        "no PARSER: Ollama finds tool calls by matching the TEMPLATE's shape",
        "no .Think and no PARSER: Ollama does not offer thinking",
        "stop: '<|end_of_text|>', '<|start_of_role|>'",
    )
    assert found.serve_command == (
        "granite-format serve --backend http://127.0.0.1:11434 --backend-type ollama "
        "--model granite-3.3-8b-instruct=./granite-3.3-8b-instruct-Q4_K_M.gguf"
    )


def test_renderer_and_parser_lines() -> None:
    found = read_modelfile("FROM granite4.2:8b\nRENDERER granite42\nPARSER granite42\n")
    assert (found.template, found.renderer, found.parser) == (None, "granite42", "granite42")
    assert (found.tools, found.thinking) == (True, True)
    assert found.notes == (
        "RENDERER granite42: Ollama builds the prompt in Go, not from TEMPLATE",
        "PARSER granite42: Ollama reads tool calls and thinking with it",
    )
    assert found.serve_command.endswith("--model granite4.2:8b=granite4.2:8b")


def test_no_template_no_tools() -> None:
    found = read_modelfile('FROM granite4.2:8b\nTEMPLATE "{{ .Prompt }}"\n# PARSER x\n')
    assert found.template == "{{ .Prompt }}"
    assert found.parser is None
    assert (found.tools, found.thinking) == (False, False)
    assert "no .Tools in TEMPLATE and no RENDERER/PARSER: Ollama lists no tools" in found.notes
