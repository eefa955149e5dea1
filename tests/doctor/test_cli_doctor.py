"""``granite-format doctor`` end to end: a GGUF file, a model folder, a Modelfile, JSON,
errors without tracebacks, and jinja2 kept off the import path."""

from __future__ import annotations

import http.server
import io
import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from granite_formatters import _cli as cli
from granite_formatters._doctor import DoctorError, diagnose

from .conftest import official
from .test_modelfile import TEMPLATED

pytest.importorskip("jinja2", reason="rendering a chat template needs jinja2 (the doctor extra)")


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_a_gguf_with_a_patched_template(tmp_path: Path, reference_dir: Path) -> None:
    gguf = pytest.importorskip("gguf", reason="the gguf package writes the test's GGUF file")
    path = tmp_path / "granite-4.2-8b-Q4_K_M.gguf"
    writer = gguf.GGUFWriter(str(path), "granitehybrid")
    writer.add_chat_template(
        [
            {"name": "default", "template": official("granite-4.2.jinja")},
            {
                "name": "launch",
                "template": official(
                    "variants/granite-4.2.rev-launch-no-reasoning-effort.jinja"
                ).replace("\n", "\r\n"),
            },
        ]
    )
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    code, out, err = run("doctor", str(path), "--templates", str(reference_dir))
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == f"{path} (gguf)"
    assert lines[1].split() == [
        "template", "text", "behaves", "as", "probes", "differ", "tools", "thinking"
    ]  # fmt: skip
    assert lines[2].split() == [
        "default", "exact:", "granite-4.2.jinja", "4.2", "0", "of", "15", "(granite-4.2-8b)",
        "yes", "enable_thinking",
    ]  # fmt: skip
    assert lines[3].split() == [
        "launch", "variants/granite-4.2.rev-launch-no-reasoning-effort.jinja", "but", "for",
        "whitespace", "nearest", "4.2", "1", "of", "15", "(granite-4.2-8b)", "yes", "enable_thinking",
    ]  # fmt: skip
    assert "launch: 1 of 15 probe prompts differ from granite-4.2-8b's: reasoning_effort" in lines
    assert "\x1b[" not in out  # colour only on a terminal

    code, out, err = run("doctor", str(path), "--templates", str(reference_dir), "--json")
    report = json.loads(out)
    assert report["kind"] == "gguf"
    launch = report["templates"][1]
    assert launch["text"]["verdict"] == "whitespace"
    assert launch["behaves_as"] == ["4.2"]
    assert launch["behaviour"]["differing"] == ["reasoning_effort"]
    assert launch["per_release"]["4.2"] == 1
    assert launch["capabilities"] == {"tools": True, "thinking": "enable_thinking"}


def test_a_model_folder_against_a_chosen_model_without_references(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = official("granite-4.1.jinja")
    monkeypatch.delenv("GRANITE_FORMATTERS_SHARED", raising=False)
    (tmp_path / "tokenizer_config.json").write_text(
        json.dumps({"chat_template": text}), encoding="utf-8"
    )
    report = diagnose(str(tmp_path), model="granite-4.0-h-small")
    (template,) = report.templates
    assert report.references is None and template.text is None
    assert template.nearest == ("4.1",)
    assert template.behaviour.model == "granite-4.0-h-small"
    assert template.behaviour.summary == "8 of 15 probe prompts differ"
    assert "(no reference templates: give --templates DIR" in report.to_text()


def test_a_modelfile(tmp_path: Path) -> None:
    path = tmp_path / "Modelfile"
    path.write_text(TEMPLATED, encoding="utf-8")
    code, out, err = run("doctor", str(path))
    assert (code, err) == (0, "")
    assert "TEMPLATE  present" in out
    assert (
        "  granite-format serve --backend http://127.0.0.1:11434 --backend-type ollama "
        "--model granite-3.3-8b-instruct=./granite-3.3-8b-instruct-Q4_K_M.gguf"
    ) in out.splitlines()


def test_errors_are_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "tokenizer_config.json"
    bad.write_text("[1", encoding="utf-8")
    code, out, err = run("doctor", str(bad))
    assert (code, out) == (1, "")
    assert err == f"granite-format: error: {bad} is not JSON: Expecting ',' delimiter (line 1)\n"
    code, out, err = run("doctor", str(tmp_path), "--templates", str(tmp_path / "none"))
    assert code == 1 and err.startswith("granite-format: error: ") and "Traceback" not in err


def test_without_jinja2_the_error_names_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    template = tmp_path / "chat_template.jinja"
    template.write_text("{{ messages[0].content }}", encoding="utf-8")
    monkeypatch.setitem(sys.modules, "jinja2", None)
    with pytest.raises(DoctorError, match=r'pip install "\./core\[doctor\]"'):
        diagnose(str(template))


def test_formatting_never_imports_jinja2() -> None:
    code = (
        "import sys, granite_formatters, granite_formatters._doctor\n"
        "granite_formatters.get_formatter('granite-4.2-8b').format("
        "{'messages': [{'role': 'user', 'content': 'Hi'}]})\n"
        "assert 'jinja2' not in sys.modules, 'jinja2 imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


class _Answer(http.server.BaseHTTPRequestHandler):
    """A loopback server that is not llama.cpp: 404, or 200 with what the path names."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        bodies = {
            "/bad/apply-template": b"not json",
            "/none/apply-template": b'{"text": "Hi"}',
            "/num/apply-template": b'{"prompt": 3}',
        }
        body = bodies.get(self.path)
        self.send_response(404 if body is None else 200)
        self.end_headers()
        self.wfile.write(body or b"Not Found")

    def log_message(self, *args: object) -> None:
        pass


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("", "answered 404: the backend is not a llama.cpp llama-server"),
        ("/bad", "did not answer JSON"),
        ("/none", "did not answer a JSON object with a prompt"),
        ("/num", "answered a prompt that is not a string"),
    ],
)
def test_a_backend_that_is_not_llama_cpp(path: str, message: str) -> None:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Answer)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}{path}"
        code, out, err = run(
            "doctor", "--backend", url, "--backend-type", "llamacpp", "-m", "granite-4.2-8b"
        )
    finally:
        server.shutdown()
        server.server_close()
    assert (code, out) == (1, "")
    assert err == f"granite-format: error: {url}/apply-template {message}\n"


def test_path_or_backend() -> None:
    assert run("doctor")[2] == (
        "granite-format: error: doctor needs a PATH or --backend URL (one of them)\n"
    )
    assert run("doctor", "--backend", "http://127.0.0.1:1")[2] == (
        "granite-format: error: doctor --backend needs --model NAME (the model it serves)\n"
    )


def test_colour_marks_the_diff_lines_only_when_asked(tmp_path: Path, reference_dir: Path) -> None:
    path = tmp_path / "chat_template.jinja"
    path.write_text(
        official("granite-3.3-8b-instruct.jinja").replace("tojson(indent=4)", "tojson"),
        encoding="utf-8",
    )
    report = diagnose(str(path), templates=str(reference_dir))
    coloured = report.to_text(colour=True).splitlines()
    assert "\x1b[31m-     {{- available_tools | tojson(indent=4) }}\x1b[0m" in coloured
    assert "\x1b[32m+     {{- available_tools | tojson }}\x1b[0m" in coloured
    assert "--- granite-3.3-8b-instruct.jinja" in coloured  # file headers stay plain
    plain = report.to_text()
    assert "\x1b[" not in plain
    assert "-     {{- available_tools | tojson(indent=4) }}" in plain.splitlines()
    row = plain.splitlines()[2].split()
    assert row[:4] == ["default", "drifted", "from", "granite-3.3-8b-instruct.jinja"]
    assert row[4:10] == ["(98.0%", "of", "lines)", "nearest", "3.3", "4"]
