"""``granite-format doctor --backend`` against vLLM: the probe set through a real loopback
server's ``/tokenize`` and ``/detokenize`` (the fake of :mod:`.fake_runtimes`, rendering
with the official templates and their variants), through the doctor's real HTTP code."""

from __future__ import annotations

import datetime
import io
import json
import socket
from collections.abc import Callable, Iterator

import pytest

for _module in ("starlette", "uvicorn", "jinja2"):
    pytest.importorskip(_module, reason='the live doctor tests need pip install "./core[serve]"')

from serve.servers import ServerThread  # noqa: E402

from granite_formatters import _cli as cli  # noqa: E402
from granite_formatters._doctor import DoctorError, diagnose, diagnose_live  # noqa: E402
from granite_formatters._doctor.probes import PROBES  # noqa: E402

from .conftest import official  # noqa: E402
from .fake_runtimes import ToyTokenizer, vllm_app  # noqa: E402
from support import oracle  # noqa: E402

SERVED = "ibm-granite/granite-4.2-8b"
LLAMA_CPP_33 = "variants/granite-3.3-2b-instruct.llama-cpp-modified.jinja"
LAUNCH_42 = "variants/granite-4.2.rev-launch-no-reasoning-effort.jinja"
ALL = len(PROBES)


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


Start = Callable[..., str]


@pytest.fixture
def serve_template() -> Iterator[Start]:
    """Starts a fake vLLM with a template (file name under chat-templates), by call."""
    servers: list[ServerThread] = []

    def start(name: str, served: str = SERVED, skip_special: bool = False) -> str:
        app = vllm_app(official(name), served, ToyTokenizer(skip_special=skip_special))
        servers.append(ServerThread(app))
        return servers[-1].url

    yield start
    for server in servers:
        server.stop()


@pytest.mark.parametrize(
    ("template", "model", "thinking"),
    [
        ("granite-3.3-8b-instruct.jinja", "granite-3.3-8b-instruct", "thinking"),
        ("granite-4.0.jinja", "granite-4.0-h-small", None),
        ("granite-4.2.jinja", "granite-4.2-8b", "enable_thinking"),
    ],
)
def test_the_official_templates_render_as_ours(
    serve_template: Start, template: str, model: str, thinking: str | None
) -> None:
    url = serve_template(template)
    report = diagnose_live(url, model, backend_type="vllm", served=SERVED)
    assert report.kind == "vLLM server"
    (found,) = report.templates
    assert (found.behaviour.summary, found.behaviour.differing) == (
        f"0 of {ALL} probe prompts differ",
        (),
    )
    assert (found.capabilities.tools, found.capabilities.thinking) == (True, thinking)
    assert found.notes == ()


def test_the_command_line_detects_vllm(serve_template: Start) -> None:
    url = serve_template("granite-4.2.jinja")
    code, out, err = run("doctor", "--backend", url + "/v1", "-m", f"granite-4.2-8b={SERVED}")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == f"{url} (vLLM server)"
    assert lines[2].split() == [
        "/tokenize", "-", "-", "0", "of", str(ALL), "(granite-4.2-8b)", "yes", "enable_thinking"
    ]  # fmt: skip
    assert len(lines) == 3


def test_llama_cpp_s_copy_of_the_33_template(serve_template: Start) -> None:
    url = serve_template(LLAMA_CPP_33, served="granite-3.3-2b")
    code, out, err = run(
        "doctor", "--backend", url, "-m", "granite-3.3-8b-instruct=granite-3.3-2b", "--json"
    )
    assert (code, err) == (0, "")
    report = json.loads(out)
    behaviour = report["templates"][0]["behaviour"]
    # the same probes differ as when the doctor renders that template file itself
    by_file = diagnose_live_free(LLAMA_CPP_33, "granite-3.3-8b-instruct")
    assert behaviour["differing"] == list(by_file)
    assert len(behaviour["differing"]) == 13
    first = behaviour["diffs"][0].splitlines()
    today = datetime.date.today()
    assert first[:2] == [
        "--- granite-formatters granite-3.3-8b-instruct (hi)",
        "+++ the server (hi)",
    ]
    assert (
        "+<|start_of_role|>system<|end_of_role|>Knowledge Cutoff Date: April 2024. "
        f"Today's Date: {today.strftime('%B %d, %Y')}. You are Granite, developed by IBM. "
        "You are a helpful AI assistant.<|end_of_text|>"
    ) in first
    assert report["templates"][0]["notes"] == []


def diagnose_live_free(name: str, model: str) -> tuple[str, ...]:
    """The probes that differ when the doctor renders template file ``name`` itself."""
    path = oracle.require_shared() / "chat-templates" / name
    (found,) = diagnose(str(path), model=model).templates
    return found.behaviour.differing


def test_a_changed_default(serve_template: Start) -> None:
    url = serve_template(LAUNCH_42)
    report = diagnose_live(url, "granite-4.2-8b", served=SERVED)
    (found,) = report.templates
    assert found.behaviour.differing == ("reasoning_effort",)
    (diff,) = found.behaviour.diffs
    assert diff[:2] == (
        "--- granite-formatters granite-4.2-8b (reasoning_effort)",
        "+++ the server (reasoning_effort)",
    )
    assert diff[2:] == (
        "@@ -3,5 +3,3 @@",
        " <|im_start|>user",
        "-What's the weather in Boston?",
        "-",
        "-{reasoning effort: low}<|im_end|>",
        "+What's the weather in Boston?<|im_end|>",
        " <|im_start|>assistant",
    )


def test_a_decode_that_skips_special_tokens_makes_no_false_difference(
    serve_template: Start,
) -> None:
    url = serve_template("granite-4.2.jinja", skip_special=True)
    (found,) = diagnose_live(url, "granite-4.2-8b", served=SERVED).templates
    assert (found.behaviour.differing, found.notes) == ((), ())

    url = serve_template(LAUNCH_42, skip_special=True)
    report = diagnose_live(url, "granite-4.2-8b", served=SERVED)
    (found,) = report.templates
    assert found.behaviour.differing == ("reasoning_effort",)
    assert found.notes == (
        "the server's /detokenize does not give back the exact text of reasoning_effort "
        "(its tokenizer's decode settings); the verdict compares token ids, the diffs "
        "show decoded text",
    )
    assert f"/tokenize: note: {found.notes[0]}" in report.to_text().splitlines()


def test_a_wrong_model_is_one_error_line(serve_template: Start) -> None:
    url = serve_template("granite-4.2.jinja")
    code, out, err = run("doctor", "--backend", url, "-m", "granite-4.2-8b")
    assert (code, out) == (1, "")
    assert err == (
        f"granite-format: error: {url}/tokenize answered 404: "
        "'The model `granite-4.2-8b` does not exist.'\n"
    )


def test_a_server_that_is_not_vllm(serve_template: Start) -> None:
    from .fake_runtimes import ollama_app

    server = ServerThread(ollama_app({}))
    try:
        code, out, err = run(
            "doctor", "--backend", server.url, "--backend-type", "vllm", "-m", "granite-4.2-8b"
        )
    finally:
        server.stop()
    assert (code, out) == (1, "")
    assert err == (
        f"granite-format: error: {server.url}/tokenize answered 404: "
        "the backend is not a vLLM server\n"
    )


def test_auto_detection_of_an_unknown_server() -> None:
    from starlette.applications import Starlette

    server = ServerThread(Starlette())
    try:
        code, out, err = run("doctor", "--backend", server.url, "-m", "granite-4.2-8b")
    finally:
        server.stop()
    assert (code, out) == (1, "")
    assert err == (
        f"granite-format: error: {server.url} is not a llama.cpp, vLLM or Ollama server "
        "(it answers none of /props, /api/version, /version); give --backend-type if it is one\n"
    )


def test_an_unreachable_server() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    code, out, err = run("doctor", "--backend", url, "-m", "granite-4.2-8b")
    assert (code, out) == (1, "")
    assert err.startswith(f"granite-format: error: cannot reach {url}/props: ")
    assert err.count("\n") == 1 and "Traceback" not in err
    with pytest.raises(DoctorError, match=r"cannot reach .*/tokenize"):
        diagnose_live(url, "granite-4.2-8b", backend_type="vllm")


def test_the_fake_answers_bad_bodies_as_vllm_does(serve_template: Start) -> None:
    """The fake's own defaults and error shapes (what the doctor relies on)."""
    import urllib.error
    import urllib.request

    url = serve_template("granite-4.2.jinja")

    def post(path: str, body: bytes) -> tuple[int, object]:
        request = urllib.request.Request(url + path, data=body, method="POST")
        try:
            with urllib.request.urlopen(request) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read())

    hi = {"messages": [{"role": "user", "content": "Hi"}]}
    status, answer = post("/tokenize", json.dumps(hi).encode())
    assert status == 200 and isinstance(answer, dict)
    assert set(answer) == {"count", "max_model_len", "tokens", "token_strs"}
    prompt = post("/detokenize", json.dumps({"tokens": answer["tokens"]}).encode())[1]
    assert prompt == {
        "prompt": "<|im_start|>system\n<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n"
        "<|im_start|>assistant\n<think>\n"
    }
    # a text prompt gets the BOS token by default, a chat one does not
    text = post("/tokenize", json.dumps({"prompt": "Hi"}).encode())[1]
    assert isinstance(text, dict) and text["tokens"] == [0, 1000 + ord("H"), 1000 + ord("i")]

    both = {**hi, "continue_final_message": True}
    call = {"id": "c", "type": "function", "function": {"name": "f", "arguments": {"a": 1}}}
    object_arguments = {"messages": [{"role": "assistant", "content": "", "tool_calls": [call]}]}
    for path, body, message in [
        (
            "/tokenize",
            json.dumps(both).encode(),
            "Cannot set both `continue_final_message` and `add_generation_prompt` to True.",
        ),
        (
            "/tokenize",
            json.dumps(object_arguments).encode(),
            "tool_calls.function.arguments: Input should be a valid string",
        ),
        ("/detokenize", b'{"tokens": [999]}', "token id 999 is out of vocabulary"),
    ]:
        assert post(path, body) == (
            400,
            {"object": "error", "message": message, "type": "BadRequestError", "param": None,
             "code": 400},
        )  # fmt: skip
    assert post("/nowhere", b"{}") == (404, {"detail": "Not Found"})
