"""The README's Python example and CLI lines work as written (the 'all' tox envs)."""

from __future__ import annotations

import contextlib
import importlib.util
import inspect
import io
import re
import shlex
from pathlib import Path

import pytest

from granite_formatters import _cli as cli

README = Path(__file__).resolve().parents[2] / "README.md"

pytestmark = pytest.mark.skipif(
    not (
        importlib.util.find_spec("granite_formatters_granite32")
        and importlib.util.find_spec("granite_formatters_granite33")
    ),
    reason="needs both bundled plugins installed (the 'all' tox envs)",
)


def blocks(language: str) -> list[str]:
    """The fenced code blocks of the README whose info string is ``language``."""
    found: list[str] = []
    current: list[str] | None = None
    info = ""
    for line in README.read_text(encoding="utf-8").splitlines(keepends=True):
        if line.startswith("```"):
            if current is None:
                current, info = [], line[3:].strip()
            else:
                if info == language:
                    found.append("".join(current))
                current = None
        elif current is not None:
            current.append(line)
    return found


MODELS_AND_OUTPUTS = {
    # Granite 3.3: the README's own sample output.
    "ibm-granite/granite-3.3-8b-instruct": None,
    "granite3.3:2b": None,
    # Granite 3.2: the same answer in 3.2's <co> format (documents are numbered from 0).
    "ibm-granite/granite-3.2-8b-instruct": (
        "The capital of France is Paris.<co>0</co>\n\n# Citations:\n<co>0</co> Document 0: "
        '"Its capital is Paris."'
    ),
    "granite3.2:2b": (
        "The capital of France is Paris.<co>0</co>\n\n# Citations:\n<co>0</co> Document 0: "
        '"Its capital is Paris."'
    ),
}


def python_example() -> str:
    (example,) = [b for b in blocks("python") if "get_formatter" in b]
    return example


def has_typed_get_formatter() -> bool:
    from granite_formatters import get_formatter

    try:
        inspect.signature(get_formatter).bind("name", object)
    except TypeError:
        return False
    return True


@pytest.mark.parametrize("model", MODELS_AND_OUTPUTS)
def test_python_api_example_runs(model: str) -> None:
    """The example runs end to end: as shown for 3.3, with 3.2's output for 3.2."""
    if not has_typed_get_formatter():
        pytest.xfail("needs the typed get_formatter overload")
    example = python_example()
    shown_model = 'get_formatter("ibm-granite/granite-3.3-8b-instruct", '
    assert shown_model in example
    example = example.replace(shown_model, f"get_formatter({model!r}, ")
    raw_text = MODELS_AND_OUTPUTS[model]
    if raw_text is not None:
        example = re.sub(
            r"^raw_text = \(\n.*?^\)\n",
            lambda _: f"raw_text = {raw_text!r}\n",
            example,
            flags=re.M | re.S,
        )
        assert f"raw_text = {raw_text!r}" in example
    namespace: dict[str, object] = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(example, str(README), "exec"), namespace)
    printed = out.getvalue().split(
        '<|start_of_role|>assistant {"citations": true}<|end_of_role|>\n'
    )
    assert len(printed) == 2, out.getvalue()
    # 3.2 numbers documents from 0 in the prompt; the citation keeps the caller's doc_id.
    assert printed[1] == "The capital of France is Paris.\n1 'Its capital is Paris.' 0 31\n"
    message = namespace["message"]
    (citation,) = message.citations  # type: ignore[attr-defined]
    assert (citation.context_begin, citation.context_end) == (39, 60)
    request = namespace["request"]
    assert request["messages"][-1] == message.to_openai()  # type: ignore[index, attr-defined]
    assert request["messages"][-1]["citations"][0]["context_text"] == "Its capital is Paris."  # type: ignore[index]


def test_python_api_example_passes_mypy_strict(tmp_path: Path) -> None:
    api = pytest.importorskip("mypy.api")
    path = tmp_path / "readme_example.py"
    path.write_text(python_example(), encoding="utf-8")
    stdout, stderr, status = api.run(
        ["--strict", "--no-incremental", "--cache-dir", str(tmp_path / ".mypy"), str(path)]
    )
    assert status == 0, stdout + stderr


def test_install_commands_exist_and_name_nothing_unpublished() -> None:
    """Every `pip install` in the README and docs installs a path of this repository or
    a published tool, never a distribution name that is not on PyPI."""
    root = README.parent
    published = {"tox>=4.65", "build", "twine", "pytest", "hypothesis", "dask", "--upgrade", "-e"}
    pages = [README, *sorted((root / "docs").rglob("*.md"))]
    pages += sorted((root / "examples").glob("*/README.md"))
    found = 0
    for page in pages:
        for line in page.read_text(encoding="utf-8").splitlines():
            for command in re.findall(r"pip install ([^`\n&|;]*)", line):
                for word in shlex.split(command, comments=True):
                    found += 1
                    if word.startswith("-") or word in published:
                        continue
                    if word.startswith(("./", "dist/", ".[")):
                        path = word.split("[", 1)[0]
                        if path.startswith("./") and page == README:
                            # A shell glob (./plugins/*) must match something.
                            assert any(root.glob(path)), f"{page.name}: {word}"
                        continue
                    raise AssertionError(f"{page.relative_to(root)}: pip install {word}")
    assert found > 5


def test_try_it_starts_with_a_virtual_environment() -> None:
    (commands,) = [b for b in blocks("") if "granite-format demo" in b and "venv" in b]
    lines = commands.strip().splitlines()
    # ./plugins/* is every bundled plugin folder, and nothing else pip could not install.
    for entry in (README.parent / "plugins").iterdir():
        assert (entry / "pyproject.toml").is_file(), entry
    assert lines == [
        "python3 -m venv .venv && . .venv/bin/activate",
        "python3 -m pip install ./core ./plugins/* && granite-format demo",
    ]


def test_cli_lines_parse() -> None:
    (cli_block,) = [b for b in blocks("") if b.lstrip().startswith("granite-format demo")]
    assert cli_block.count("granite-format ") >= 8
    parser = cli.build_parser()
    for line in cli_block.splitlines():
        command = line.split("#", 1)[0].strip()
        if not command:
            continue
        # "[--json]" in the README means the option may be given: give it.
        argv = [a.strip("[]") for a in shlex.split(command)]
        assert argv[0] == "granite-format"
        argv = [a for a in argv[1:] if a not in ("<", "out.txt") and not a.endswith(".json")]
        if argv == ["--version"]:
            continue
        parser.parse_args([*argv, *(["-"] if argv[0] in ("render", "parse") else [])])


def test_the_test_command_is_what_ci_runs() -> None:
    (command,) = [b.strip() for b in blocks("") if "tox run-parallel" in b]
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert ci[-1] == command
