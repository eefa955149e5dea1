"""``granite-format doctor --backend`` against servers started with an API key: the key
(``--backend-api-key`` or ``GRANITE_BACKEND_API_KEY``) as ``Authorization: Bearer`` on
every request, a hint when it is missing or refused, and the key shown nowhere. The
servers are the fakes of :mod:`.fake_runtimes` behind each runtime's own key check,
on real loopback ports, through the doctor's real HTTP code."""

from __future__ import annotations

import http.server
import io
import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

for _module in ("starlette", "uvicorn", "jinja2"):
    pytest.importorskip(_module, reason='the live doctor tests need pip install "./core[serve]"')

from serve.servers import ServerThread  # noqa: E402

from granite_formatters import _cli as cli  # noqa: E402
from granite_formatters._doctor import DoctorError, diagnose_live, remote  # noqa: E402
from granite_formatters._doctor.vllm import VllmServer  # noqa: E402

from .conftest import official  # noqa: E402
from .fake_runtimes import (  # noqa: E402
    LLAMACPP_KEY,
    PROXY_KEY,
    VLLM_KEY,
    App,
    KeyCheck,
    llamacpp_app,
    ollama_app,
    recording,
    vllm_app,
    with_key,
)
from .test_live_ollama import GRANITE33  # noqa: E402
from .test_live_vllm import LAUNCH_42, SERVED  # noqa: E402
from .test_modelfile import TEMPLATED  # noqa: E402

KEY = "sk-d0ct0r-K3Y-7a1f"
WRONG = "sk-wrong-K3Y-0000"
ENV = "GRANITE_BACKEND_API_KEY"
WANTS = f"the server wants an API key: give --backend-api-key or set {ENV}"
REFUSED = f"the server refused the key (--backend-api-key or {ENV})"
Seen = list[tuple[str, str, str | None]]


@attrs.frozen
class Runtime:
    """A fake runtime: its app, its key check, the ``--model`` doctor is given, and the
    requests doctor makes to it (method, path)."""

    app: Callable[[], App]
    check: KeyCheck
    model: str
    requests: frozenset[tuple[str, str]]
    #: the refusal's message as the doctor quotes it (None: doctor's requests are open)
    refusal: str | None


RUNTIMES = {
    "llamacpp": Runtime(
        lambda: llamacpp_app(official("granite-4.2.jinja")),
        LLAMACPP_KEY,
        "granite-4.2-8b",
        frozenset({("GET", "/props"), ("POST", "/apply-template")}),
        "'Invalid API Key'",
    ),
    "vllm": Runtime(  # a variant that differs in one probe: /detokenize is asked too
        lambda: vllm_app(official(LAUNCH_42), SERVED),
        VLLM_KEY,
        f"granite-4.2-8b={SERVED}",
        frozenset(
            {
                ("GET", "/props"),
                ("GET", "/api/version"),
                ("GET", "/version"),
                ("POST", "/tokenize"),
                ("POST", "/detokenize"),
            }
        ),
        None,  # vLLM's key guards /v1/* only; /version, /tokenize, /detokenize stay open
    ),
    "ollama": Runtime(
        lambda: ollama_app({"granite3.3:8b": GRANITE33}),
        PROXY_KEY,
        "granite3.3:8b",
        frozenset({("GET", "/props"), ("GET", "/api/version"), ("POST", "/api/show")}),
        "'Unauthorized'",
    ),
}


@attrs.define
class Pair:
    """One runtime twice: ``plain`` without a key, ``keyed`` with :data:`KEY`; ``seen``
    holds the keyed one's requests."""

    name: str
    runtime: Runtime
    plain: str
    keyed: str
    seen: Seen


@pytest.fixture(scope="module", params=sorted(RUNTIMES))
def servers(request: pytest.FixtureRequest) -> Iterator[Pair]:
    runtime = RUNTIMES[request.param]
    seen: Seen = []
    plain = ServerThread(runtime.app())
    keyed = ServerThread(recording(with_key(runtime.app(), KEY, runtime.check), seen))
    yield Pair(request.param, runtime, plain.url, keyed.url, seen)
    plain.stop()
    keyed.stop()


@pytest.fixture
def pair(servers: Pair, monkeypatch: pytest.MonkeyPatch) -> Pair:
    monkeypatch.delenv(ENV, raising=False)
    servers.seen.clear()
    return servers


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def doctor(url: str, pair: Pair, *options: str) -> tuple[int, str, str]:
    return run("doctor", "--backend", url, "--model", pair.runtime.model, *options)


def assert_same_report(keyed_out: str, pair: Pair, *options: str) -> None:
    """``keyed_out`` is the report the unkeyed server gives (the URL aside)."""
    code, plain_out, err = doctor(pair.plain, pair, *options)
    assert (code, err) == (0, "")
    assert keyed_out.replace(pair.keyed, "URL") == plain_out.replace(pair.plain, "URL")


def assert_every_request_carried(pair: Pair, header: str | None) -> None:
    assert {(method, path) for method, path, _ in pair.seen} == pair.runtime.requests
    assert {found for _, _, found in pair.seen} == {header}


@pytest.mark.parametrize("form", [(), ("--json",)])
def test_the_option_s_key_on_every_request(pair: Pair, form: tuple[str, ...]) -> None:
    code, out, err = doctor(pair.keyed, pair, "--backend-api-key", KEY, *form)
    assert (code, err) == (0, "")
    assert_every_request_carried(pair, f"Bearer {KEY}")
    assert KEY not in out
    assert_same_report(out, pair, *form)
    if form:
        assert KEY not in json.dumps(json.loads(out))


def test_the_variable_s_key(pair: Pair, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, KEY)
    code, out, err = doctor(pair.keyed, pair)
    assert (code, err) == (0, "")
    assert_every_request_carried(pair, f"Bearer {KEY}")
    assert KEY not in out


def test_the_option_wins_over_the_variable(pair: Pair, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, WRONG)
    code, _, err = doctor(pair.keyed, pair, "--backend-api-key", KEY)
    assert (code, err) == (0, "")
    assert_every_request_carried(pair, f"Bearer {KEY}")


def test_without_the_key_the_hint(pair: Pair) -> None:
    code, out, err = doctor(pair.keyed, pair)
    if pair.runtime.refusal is None:  # vLLM: doctor asks nothing its key guards
        assert (code, err) == (0, "")
        assert_every_request_carried(pair, None)
        assert_same_report(out, pair)
        return
    # llama-server refuses /props itself: the detection stops there with the hint
    assert (code, out) == (1, "")
    assert err == (
        f"granite-format: error: {pair.keyed}/props answered 401: {pair.runtime.refusal}; {WANTS}\n"
    )
    assert pair.seen == [("GET", "/props", None)]


def test_without_the_key_and_a_backend_type_the_hint(pair: Pair) -> None:
    kind = pair.name  # (the fixture's names are the --backend-type choices)
    code, out, err = doctor(pair.keyed, pair, "--backend-type", kind)
    if pair.runtime.refusal is None:
        assert (code, err) == (0, "")
        return
    path = "/apply-template" if kind == "llamacpp" else "/api/show"
    assert (code, out) == (1, "")
    assert err == (
        f"granite-format: error: {pair.keyed}{path} answered 401: {pair.runtime.refusal}; {WANTS}\n"
    )


def test_a_refused_key_is_not_shown(pair: Pair) -> None:
    code, out, err = doctor(pair.keyed, pair, "--backend-api-key", WRONG)
    assert WRONG not in out + err
    if pair.runtime.refusal is None:
        assert (code, err) == (0, "")
        assert_every_request_carried(pair, f"Bearer {WRONG}")
        return
    assert (code, out) == (1, "")
    assert err == (
        f"granite-format: error: {pair.keyed}/props answered 401: "
        f"{pair.runtime.refusal}; {REFUSED}\n"
    )


def test_the_library_call_takes_the_key(pair: Pair) -> None:
    model, _, served = pair.runtime.model.partition("=")
    report = diagnose_live(pair.keyed, model, served=served or None, api_key=KEY)
    assert_every_request_carried(pair, f"Bearer {KEY}")
    assert KEY not in repr(report) + json.dumps(report.to_json()) + report.to_text()
    plain = diagnose_live(pair.plain, model, served=served or None)
    assert json.dumps(report.to_json()).replace(pair.keyed, "URL") == json.dumps(
        plain.to_json()
    ).replace(pair.plain, "URL")


CHARACTER = (
    "the key holds a character an HTTP header cannot carry (it must be printable ASCII, "
    "without spaces around it)"
)
BAD_KEYS = {
    "": "empty",
    "sk-a\nb": CHARACTER,
    "sk-\r\nX-Injected: 1": CHARACTER,
    "sk-clé-5e2d": CHARACTER,
    " sk-5e2d": CHARACTER,
    "sk-5e2d ": CHARACTER,
    "sk-\t5e2d": CHARACTER,
}


@pytest.mark.parametrize("key", sorted(BAD_KEYS))
def test_a_bad_option_key_is_refused_before_any_request(key: str) -> None:
    # a closed port: a request would fail with "cannot reach" instead
    code, out, err = run(
        "doctor", "--backend", "http://127.0.0.1:9", "-m", "granite-4.2-8b",
        "--backend-api-key", key,
    )  # fmt: skip
    assert (code, out) == (1, "")
    assert err == f"granite-format: error: doctor: --backend-api-key: {BAD_KEYS[key]}\n"


@pytest.mark.parametrize("key", sorted(BAD_KEYS))
def test_a_bad_variable_key_is_refused_naming_the_variable(
    key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV, key)
    code, out, err = run("doctor", "--backend", "http://127.0.0.1:9", "-m", "granite-4.2-8b")
    assert (code, out) == (1, "")
    assert err == f"granite-format: error: doctor: {ENV}: {BAD_KEYS[key]}\n"


@pytest.mark.parametrize("key", sorted(BAD_KEYS))
def test_the_library_refuses_a_bad_key(key: str) -> None:
    with pytest.raises(DoctorError) as refused:
        diagnose_live("http://127.0.0.1:9", "granite-4.2-8b", api_key=key)
    assert str(refused.value) == f"api_key: {BAD_KEYS[key]}"


@given(st.text(max_size=12))
def test_any_key_is_sent_exactly_or_refused_without_being_shown(key: str) -> None:
    try:
        headers = remote._headers(key)
    except DoctorError as exc:
        assert str(exc) in {f"api_key: {problem}" for problem in BAD_KEYS.values()}
    else:
        assert headers["Authorization"] == f"Bearer {key}"
        assert key == key.strip() and key.isascii() and key.isprintable() and key


def test_the_option_goes_with_a_backend_only() -> None:
    code, out, err = run("doctor", "Modelfile", "--backend-api-key", KEY)
    assert (code, out) == (1, "")
    assert err == (
        "granite-format: error: doctor --backend-api-key goes with --backend URL, not a PATH\n"
    )


def test_the_variable_is_not_read_for_a_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "Modelfile"
    path.write_text(TEMPLATED, encoding="utf-8")
    monkeypatch.setenv(ENV, " not a key ")  # machine-wide, for serve: not an error here
    code, out, err = run("doctor", str(path))
    assert (code, err) == (0, "")
    assert "TEMPLATE  present" in out


def test_no_repr_shows_the_key() -> None:
    server = VllmServer("http://127.0.0.1:9", SERVED, KEY)
    assert repr(server) == f"VllmServer(url='http://127.0.0.1:9', model='{SERVED}')"


class _Echo(http.server.BaseHTTPRequestHandler):
    """A proxy that answers 403 quoting the Authorization header it got."""

    def do_GET(self) -> None:
        body = json.dumps({"error": f"revoked: {self.headers['Authorization']}"}).encode()
        self.send_response(403)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def test_a_server_that_echoes_the_key_does_not_show_it() -> None:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        code, out, err = run("doctor", "--backend", url, "-m", "granite-4.2-8b",
                             "--backend-api-key", KEY)  # fmt: skip
    finally:
        server.shutdown()
        server.server_close()
    assert (code, out) == (1, "")
    assert err == (
        f"granite-format: error: {url}/props answered 403: 'revoked: Bearer <the key>'; {REFUSED}\n"
    )
