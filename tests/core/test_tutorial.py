"""The plugin tutorial (docs/plugins/tutorial.md) is true: its quotes and its steps.

The tutorial quotes the worked example (examples/granite-formatters-granite31) and
tells the reader to build a wheel, install it and check it with ``granite-format``.
These tests check that every quote still matches the example's files, then follow the
steps: the example is copied, built into a wheel, and installed into a temporary folder
that only subprocesses see (on ``PYTHONPATH``), so nothing is installed into this
environment and the tests need only the core. When no wheel can be built (no build
backend here and no network for an isolated build) the steps are skipped with the
reason.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from importlib import metadata
from pathlib import Path

import pytest

from support import oracle

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "granite-formatters-granite31"
TUTORIAL = REPO / "docs" / "plugins" / "tutorial.md"
TESTING = REPO / "docs" / "plugins" / "testing.md"
DIST = "granite-formatters-granite31"
MODELS = [
    "granite-3.1-1b-a400m-instruct",
    "granite-3.1-2b-instruct",
    "granite-3.1-3b-a800m-instruct",
    "granite-3.1-8b-instruct",
]

# A fenced block announced by an HTML comment: <!-- example-file: PATH --> (a verbatim
# quote of PATH in the example) or <!-- run-with-plugin --> (Python to run with the
# plugin installed).
_ANNOUNCED = re.compile(
    r"^<!-- (?:example-file: (?P<path>\S+)|(?P<run>run-with-plugin)) -->\n"
    r"```[a-z]*\n(?P<body>.*?)^```$",
    re.MULTILINE | re.DOTALL,
)


def announced_blocks() -> list[re.Match[str]]:
    return list(_ANNOUNCED.finditer(TUTORIAL.read_text(encoding="utf-8")))


# ----------------------------------------------------------------------------- the text


def test_every_quote_matches_the_example() -> None:
    quotes = [m for m in announced_blocks() if m["path"]]
    assert len(quotes) >= 9, "the tutorial lost its quotes of the example"
    for quote in quotes:
        source = (EXAMPLE / quote["path"]).read_text(encoding="utf-8")
        assert quote["body"] in source, f"the tutorial's quote of {quote['path']} is stale"


def test_the_tutorial_covers_every_step() -> None:
    text = TUTORIAL.read_text(encoding="utf-8")
    for step in [
        "[project.entry-points.granite_formatters]",
        'granite-formatters-granite31 = "granite_formatters_granite31"',
        "@hookimpl",
        "release=_RELEASE",
        "GRANITE31.output_processor",
        "python3 tests/make_goldens.py",
        'pytest_plugins = ["granite_formatters.testing"]',
        "FormatterContractTests",
        "granite-format plugins",
        "granite-format models",
        "granite-format resolve",
        "GRANITE_FORMATTERS_STRICT_PLUGINS=1",
        "python3 -m build",
        "python3 -m pip wheel --no-deps -w dist .",
        "python3 -m twine check dist/*",
        "python3 -m twine upload dist/*",
        "(testing.md)",
    ]:
        assert step in text, step
    assert (REPO / "docs" / "plugins" / "testing.md").is_file()


def test_the_testing_page_documents_the_kit() -> None:
    from granite_formatters import testing

    text = TESTING.read_text(encoding="utf-8")
    for name in ("isolated_host", "isolated_host_factory", "register_test_plugin"):
        assert f"| `{name}` |" in text, name
    for name, value in vars(testing.FormatterContractTests).items():
        if name.startswith("test_"):
            assert f"`{name}`" in text, name
        elif not name.startswith("_") and not callable(value) and name != "pytestmark":
            assert f"| `{name}` |" in text, name
    for field in testing.GoldenCase.__attrs_attrs__:
        key = "date" if field.name == "today" else field.name
        assert key in text, field.name
    assert "load_golden_cases(requests, prompts=folder)" in text
    assert "`render_chat_template(template, request, add_generation_prompt=True, *, today," in text


def test_the_testing_page_documents_the_granite3_input_contract() -> None:
    from granite_formatters.testing.granite3 import Granite3InputContractTests

    text = TESTING.read_text(encoding="utf-8")
    assert "## Granite 3 input contract: `Granite3InputContractTests`" in text
    for name, value in vars(Granite3InputContractTests).items():
        if name.startswith("test_"):
            assert f"`{name}`" in text, name
        elif not name.startswith("_") and not callable(value) and not isinstance(value, property):
            assert f"| `{name}` |" in text, name
    assert "`reference_template()`" in text


# ----------------------------------------------------------------------------- the steps


def _pip(*args: str, cwd: Path, isolated: bool) -> subprocess.CompletedProcess[str]:
    environ = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_RETRIES": "0"}
    environ.setdefault("PIP_TIMEOUT", "15")
    command = [sys.executable, "-m", "pip", *args]
    if not isolated:
        command.append("--no-build-isolation")
    try:
        return subprocess.run(
            command, cwd=cwd, env=environ, capture_output=True, text=True, timeout=180
        )
    except subprocess.TimeoutExpired as expired:
        return subprocess.CompletedProcess(command, 1, "", f"timed out: {expired}")


@pytest.fixture(scope="module")
def plugin_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example, built as a wheel and installed into a folder of its own."""
    try:
        metadata.distribution(DIST)
    except metadata.PackageNotFoundError:
        pass
    else:
        pytest.skip(f"{DIST} is installed here; this test installs and checks its own copy")
    root = tmp_path_factory.mktemp("tutorial")
    project = root / "granite-formatters-granite31"
    shutil.copytree(
        EXAMPLE,
        project,
        ignore=shutil.ignore_patterns(
            "build", "dist", "*.egg-info", "__pycache__", ".hypothesis", ".pytest_cache"
        ),
    )
    wheels = root / "dist"
    failures: list[str] = []
    # Offline first (the build backend of this environment), then an isolated build,
    # which installs setuptools from the package index.
    for isolated, how in (
        (False, "with this environment's setuptools (needs setuptools>=77)"),
        (True, "in an isolated build environment (needs setuptools>=77 from the index)"),
    ):
        built = _pip("wheel", "--no-deps", "-w", str(wheels), ".", cwd=project, isolated=isolated)
        if built.returncode == 0:
            break
        errors = [line for line in built.stderr.splitlines() if line.startswith("error")]
        failures.append(f"{how}: {errors[0] if errors else 'failed'}")
    else:
        pytest.skip("cannot build the example's wheel here, " + "; ".join(failures))
    [wheel] = wheels.glob("granite_formatters_granite31-*.whl")
    site = root / "site"
    installed = _pip(
        "install",
        "--no-deps",
        "--no-index",
        "--target",
        str(site),
        str(wheel),
        cwd=root,
        isolated=True,
    )
    assert installed.returncode == 0, installed.stderr
    assert (site / "granite_formatters_granite31" / "py.typed").is_file()
    return site


def _environment(site: Path) -> dict[str, str]:
    environ = dict(os.environ)
    environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(site), environ.get("PYTHONPATH")]))
    # Strict, as the tutorial recommends; only this plugin, whatever else is installed.
    environ["GRANITE_FORMATTERS_STRICT_PLUGINS"] = "1"
    environ["GRANITE_FORMATTERS_LOAD_PLUGINS"] = DIST
    environ.pop("GRANITE_FORMATTERS_DISABLE_PLUGINS", None)
    # The copied example looks for the official templates beside itself; point it at the
    # reference folder this suite uses (required in CI).
    shared = oracle.shared_dir()
    if shared is not None:
        environ["GRANITE_FORMATTERS_SHARED"] = str(shared)
    return environ


def granite_format(site: Path, *args: str) -> str:
    """``granite-format ARGS`` with the plugin installed; its standard output."""
    script = Path(sysconfig.get_path("scripts")) / "granite-format"
    command = [str(script)] if script.is_file() else [sys.executable, "-m", "granite_formatters"]
    result = subprocess.run(
        [*command, *args], env=_environment(site), capture_output=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr.decode("utf-8", "replace")
    return result.stdout.decode("utf-8")


def test_granite_format_models_lists_the_plugin(plugin_site: Path) -> None:
    header, *rows = granite_format(plugin_site, "models").splitlines()
    assert header.split() == ["MODEL", "PLUGIN", "ALIASES"]
    assert [row.split()[:3] for row in rows] == [[model, DIST, "0.1.0"] for model in MODELS]


def test_granite_format_plugins_reports_no_problem(plugin_site: Path) -> None:
    plugins = {p["name"]: p for p in json.loads(granite_format(plugin_site, "plugins", "--json"))}
    assert plugins[DIST]["errors"] == []
    assert plugins[DIST]["source"] == "entry point"
    assert sorted(plugins[DIST]["models"]) == MODELS


@pytest.mark.parametrize(
    ("name", "model"),
    [
        ("plain", "granite-3.1-8b-instruct"),
        ("citations_and_hallucinations", "granite3.1-dense:8b"),
        ("tool_results", "ibm-granite/granite-3.1-2b-instruct"),
        ("multi_turn_no_generation_prompt", "granite3.1-moe:3b"),
    ],
)
def test_granite_format_render_gives_the_golden_prompt(
    plugin_site: Path, tmp_path: Path, name: str, model: str
) -> None:
    golden = EXAMPLE / "tests" / "golden"
    case = json.loads((golden / f"{name}.json").read_text(encoding="utf-8"))
    request = tmp_path / "request.json"
    request.write_text(json.dumps(case["request"]), encoding="utf-8")
    args = ["render", "-m", model, "--date", case["date"], str(request)]
    if not case["add_generation_prompt"]:
        args.append("--no-generation-prompt")
    expected = (golden / f"{name}.prompt.txt").read_bytes().decode("utf-8")
    assert granite_format(plugin_site, *args) == expected


def test_the_tutorial_python_runs(plugin_site: Path) -> None:
    snippets = [m["body"] for m in announced_blocks() if m["run"]]
    assert snippets, "the tutorial has no runnable example"
    for snippet in snippets:
        result = subprocess.run(
            [sys.executable, "-c", snippet],
            env=_environment(plugin_site),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert result.returncode == 0, result.stderr


def test_the_example_tests_pass_against_the_wheel(plugin_site: Path) -> None:
    pytest.importorskip("hypothesis")
    project = plugin_site.parent / "granite-formatters-granite31"
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=project,
        env={**_environment(plugin_site), "HYPOTHESIS_PROFILE": "ci"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert " passed" in result.stdout
