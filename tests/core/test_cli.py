"""The granite-format command: output, JSON forms and exit codes."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from granite_formatters import _cli as cli
from granite_formatters._plugins import PluginHost

from support.toy_plugins import toy_plugin


def run(*argv: str, stdin: str = "") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(list(argv), stdout=out, stderr=err, stdin=io.StringIO(stdin))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def toy(default_host: PluginHost) -> PluginHost:
    default_host.register_plugin(
        toy_plugin(
            {
                "model_id": "toy-model",
                "aliases": ["toy"],
                "patterns": ["toy-*"],
                "description": "A toy",
            }
        ),
        name="toy-plugin",
    )
    return default_host


def test_render_reads_stdin_and_prints_the_prompt(toy: PluginHost) -> None:
    code, out, err = run(
        "render", "--model", "toy", stdin='{"messages": [{"role": "user", "content": "x"}]}'
    )
    assert (code, out, err) == (0, "[echo]", "")


def test_render_from_file_with_newline(toy: PluginHost, tmp_path: Path) -> None:
    path = tmp_path / "req.json"
    path.write_text('{"messages": [{"role": "user", "content": "x"}]}', encoding="utf-8")
    assert run("render", "-m", "toy-model", str(path), "--newline") == (0, "[echo]\n", "")


def test_parse_prints_the_message_as_json(toy: PluginHost) -> None:
    code, out, _ = run("parse", "--model", "toy", stdin="hello")
    assert code == 0
    data = json.loads(out)
    assert data["content"] == "HELLO" and data["role"] == "assistant"
    code, out, _ = run("parse", "--model", "toy", "--openai", stdin="hi")
    assert json.loads(out) == {"role": "assistant", "content": "HI"}


def test_models_table_and_json(toy: PluginHost) -> None:
    code, out, _ = run("models")
    assert code == 0
    assert out.splitlines() == ["MODEL      PLUGIN      ALIASES", "toy-model  toy-plugin  toy"]
    code, out, _ = run("models", "--json")
    assert json.loads(out) == [
        {
            "id": "toy-model",
            "aliases": ["toy"],
            "patterns": ["toy-*"],
            "description": "A toy",
            "plugin": "toy-plugin",
            "plugin_version": None,
        }
    ]


def test_resolve_says_which_rule_matched(toy: PluginHost) -> None:
    code, out, _ = run("resolve", "toy-extra")
    assert code == 0
    assert out == "toy-extra -> toy-model (rule: pattern, matched 'toy-*'; plugin toy-plugin)\n"
    code, out, _ = run("resolve", "TOY", "--json")
    assert json.loads(out)["rule"] == "normalized"


def test_plugins_lists_name_models_and_problems(toy: PluginHost) -> None:
    _, out, _ = run("plugins", "--json")
    (plugin,) = json.loads(out)
    assert (plugin["name"], plugin["models"], plugin["errors"], plugin["source"]) == (
        "toy-plugin",
        ["toy-model"],
        [],
        "programmatic",
    )
    _, out, _ = run("plugins")
    assert out.splitlines()[1].split() == ["toy-plugin", "-", "1", "-"]


@pytest.mark.parametrize(
    ("argv", "stdin", "message"),
    [
        (("render", "--model", "nope"), "{}", "granite-format: error: Unknown model 'nope'."),
        (
            ("render", "--model", "toy"),
            "not json",
            "granite-format: error: request (stdin) is not valid JSON",
        ),
        (
            ("render", "--model", "toy", "/no/such/file.json"),
            "",
            "granite-format: error: cannot read /no/such/file.json",
        ),
        (
            ("parse", "--model", "toy", "--request", "/no/such.json"),
            "",
            "granite-format: error: cannot read /no/such.json",
        ),
        (("resolve", "granite-99"), "", "granite-format: error: Unknown model 'granite-99'."),
    ],
)
def test_user_errors_exit_1_with_one_line(
    toy: PluginHost, argv: tuple[str, ...], stdin: str, message: str
) -> None:
    code, out, err = run(*argv, stdin=stdin)
    assert code == 1 and out == ""
    assert err.startswith(message) and err.count("\n") == 1


def test_demo_without_plugins_is_a_user_error(default_host: PluginHost) -> None:
    code, _, err = run("demo")
    assert code == 1
    assert err == (
        "granite-format: error: no installed plugin declares a demo; install one (from a "
        "clone of the repository: python3 -m pip install ./plugins/*)\n"
    )


def test_usage_errors_exit_2() -> None:
    with pytest.raises(SystemExit) as info:
        cli.main(["render"], stderr=io.StringIO())
    assert info.value.code == 2
    with pytest.raises(SystemExit) as info:
        cli.main([])
    assert info.value.code == 2


def test_version_lists_plugins(toy: PluginHost, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        cli.main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.splitlines() == [
        "granite-format 0.1.0 (granite-formatters)",
        "plugins:",
        "  toy-plugin",
    ]


def test_console_script_runs_as_a_module_with_no_traceback() -> None:
    env = {"GRANITE_FORMATTERS_LOAD_PLUGINS": "", "PATH": ""}
    proc = subprocess.run(
        [sys.executable, "-m", "granite_formatters", "resolve", "no-such-model"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert proc.returncode == 1
    assert proc.stderr.startswith("granite-format: error: Unknown model 'no-such-model'.")
    assert "Traceback" not in proc.stderr


def test_parse_stream_prints_deltas_then_the_message(toy: PluginHost) -> None:
    code, out, _ = run("parse", "--model", "toy", "--stream", stdin="line one\nline two")
    assert code == 0
    lines = [json.loads(line) for line in out.splitlines()]
    # The toy processor has no incremental parser: the fallback emits one delta at the end.
    # Every line has the same two keys; the first delta carries the role.
    assert lines[0] == {
        "delta": {"role": "assistant", "content": "LINE ONE\nLINE TWO"},
        "message": None,
    }
    assert lines[1]["delta"] is None
    assert lines[1]["message"]["content"] == "LINE ONE\nLINE TWO"
    assert len(lines) == 2
