"""Test support for the Granite 3.2/3.3 input processors: request strategies and checks.

``valid_requests(release)`` draws requests the Granite 3.2/3.3 formatters accept and
render (every role, unicode, text-part lists, tools in both forms with arbitrary JSON,
documents, controls in any key order, thinking where the template honours it, options
at the top level or in ``extra_body``). ``policy_violations(release)`` draws requests the
formatters reject because the template would silently ignore an option, together with
the field the error must name. The ``assert_*`` functions are the differential checks
against the official template (through :mod:`oracle`).
"""

from __future__ import annotations

import functools
import json
import random
import re
import types
import warnings
from collections.abc import Sequence
from datetime import date
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from granite_formatters._errors import DroppedInputWarning, InvalidRequestError
from granite_formatters._processors import InputProcessor

from support import oracle

# The complete special-token sets of the 3.2 and 3.3 tokenizers, written out independently
# (shared/reference/special-tokens.md).
#: The 18 code-corpus special tokens of the Granite 3.x tokenizers.
CODE_TOKENS = (
    "<fim_prefix>",
    "<fim_middle>",
    "<fim_suffix>",
    "<fim_pad>",
    "<filename>",
    "<gh_stars>",
    "<issue_start>",
    "<issue_comment>",
    "<issue_closed>",
    "<jupyter_start>",
    "<jupyter_text>",
    "<jupyter_code>",
    "<jupyter_output>",
    "<empty_output>",
    "<commit_before>",
    "<commit_msg>",
    "<commit_after>",
    "<reponame>",
)
GRANITE32_TOKENS = (
    "<|start_of_role|>",
    "<|end_of_role|>",
    "<|end_of_text|>",
    "<|tool_call|>",
    *CODE_TOKENS,
)
GRANITE33_TOKENS = (
    *GRANITE32_TOKENS,
    "<|start_of_cite|>",
    "<|end_of_cite|>",
    "<|start_of_plugin|>",
    "<|end_of_plugin|>",
)
TOKENS = {"3.2": GRANITE32_TOKENS, "3.3": GRANITE33_TOKENS}

# Pieces that stress the template and the JSON writer: Jinja syntax, quotes, escapes,
# newlines, wide characters, markers of the Granite output format.
FRAGMENTS = (
    "<|",
    "|>",
    "<",
    ">",
    "|",
    "\n",
    "\n\n",
    "\r\n",
    "\t",
    " ",
    "{",
    "}",
    "{{",
    "}}",
    "{%",
    "%}",
    '"',
    "'",
    "\\",
    "&",
    "<co>",
    "</co>",
    "<think>",
    "Document 0",
    "system",
    "é",
    "日本語",
    "👩\u200d👩\u200d👧",
    "\u2028",
    "\x00",
    "\x1f",
    "\ud83d",  # lone surrogates: a str can hold them (a JSON escape decodes to one)
    "\udc00",
)

#: A fixed day and two plain conversations, for tests of one release's prompts.
DAY = date(2025, 4, 6)
HI = [{"role": "user", "content": "Hi"}]
QUESTION = [{"role": "user", "content": "What is the capital of France?"}]

ROLES = ("user", "assistant", "system", "tool", "tool_response", "document 1")


def _no_special_token(text: str) -> bool:
    return not any(token in text for token in GRANITE33_TOKENS)


@functools.cache
def plain_texts(max_size: int) -> st.SearchStrategy[str]:
    """Random text holding no special token of any 3.x release.

    Hypothesis also draws string constants it finds in the code under test, so plain
    ``st.text()`` can produce a token such as ``<gh_stars>``: a request meant to be
    valid would then be refused, or the oracle's render would differ on purpose.
    """
    return st.text(max_size=max_size).filter(_no_special_token)


@functools.cache
def texts(tokens: tuple[str, ...] = ()) -> st.SearchStrategy[str]:
    """Strings made of random text, tricky fragments and (optionally) special tokens.

    Without ``tokens`` the result holds no special token, even where two pieces meet.
    """
    pieces = st.one_of(plain_texts(10), st.sampled_from(FRAGMENTS + tokens))
    joined = st.lists(pieces, max_size=4).map("".join)
    return joined if tokens else joined.filter(_no_special_token)


@functools.cache
def contents(tokens: tuple[str, ...]) -> st.SearchStrategy[Any]:
    part = texts(tokens).map(lambda text: {"type": "text", "text": text})
    return st.one_of(texts(tokens), texts(tokens), st.lists(part, max_size=3))


@functools.cache
def messages(tokens: tuple[str, ...]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {"role": st.one_of(st.sampled_from(ROLES), texts(tokens)), "content": contents(tokens)},
        optional={
            "name": plain_texts(5),
            "tool_call_id": plain_texts(5),
            "tool_calls": st.just(
                [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]
            ),
            "reasoning_content": texts(),
        },
    )


@functools.cache
def json_values(tokens: tuple[str, ...]) -> st.SearchStrategy[Any]:
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(),
        texts(tokens),
    )
    return st.recursive(
        scalars,
        lambda children: st.one_of(
            st.lists(children, max_size=3), st.dictionaries(texts(tokens), children, max_size=3)
        ),
        max_leaves=6,
    )


def _shuffled(pair: tuple[dict[str, Any], random.Random]) -> dict[str, Any]:
    items, rng = pair
    keys = list(items)
    rng.shuffle(keys)
    return {key: items[key] for key in keys}


def shuffled(items: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    """Dicts drawn from ``items`` with their keys in a random order."""
    return st.tuples(items, st.randoms(use_true_random=False)).map(_shuffled)


@functools.cache
def tools(tokens: tuple[str, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """One tool, flat ``{name, description, parameters}`` or OpenAI-wrapped."""
    function = shuffled(
        st.fixed_dictionaries(
            {"name": texts(tokens)},
            optional={
                "description": texts(tokens),
                "parameters": st.dictionaries(texts(tokens), json_values(tokens), max_size=4),
                "x-vendor": json_values(tokens),
                "x-more": json_values(tokens),
            },
        )
    )
    wrapped = shuffled(st.fixed_dictionaries({"type": st.just("function"), "function": function}))
    return st.one_of(function, wrapped)


@functools.cache
def documents(release: str, tokens: tuple[str, ...]) -> st.SearchStrategy[dict[str, Any]]:
    ids = st.one_of(texts(tokens), st.integers())
    required: dict[str, Any] = {"text": texts(tokens)}
    optional: dict[str, Any] = {"title": texts(tokens), "source": texts(tokens)}
    if release == "3.3":
        required["doc_id"] = ids
    else:
        optional["doc_id"] = st.one_of(ids, st.none())
    return shuffled(st.fixed_dictionaries(required, optional=optional))


@functools.cache
def controls(allow_true: bool) -> st.SearchStrategy[dict[str, Any]]:
    """A controls dict: any subset of the four keys, in any order, with any valid values."""
    flags = st.sampled_from([True, False, None] if allow_true else [False, None])
    return shuffled(
        st.fixed_dictionaries(
            {},
            optional={
                "citations": flags,
                "hallucinations": flags,
                "length": st.sampled_from(["short", "long", None]),
                "originality": st.sampled_from(["extractive", "abstractive", None]),
            },
        )
    )


@st.composite
def valid_requests(draw: st.DrawFn, release: str, with_tokens: bool = False) -> dict[str, Any]:
    """A request the formatter renders (no policy violation).

    With ``with_tokens`` the caller text may contain the release's special tokens.
    """
    tokens = TOKENS[release] if with_tokens else ()
    request: dict[str, Any] = {"messages": draw(st.lists(messages(tokens), min_size=1, max_size=4))}
    for message in request["messages"]:
        if message["role"] != "assistant":
            # OpenAI tool calls belong to assistant messages (strict mode refuses others).
            message.pop("tool_calls", None)
    tool_list = draw(st.none() | st.lists(tools(tokens), max_size=2))
    document_list = draw(st.none() | st.lists(documents(release, tokens), max_size=3))
    custom_system = request["messages"][0]["role"] == "system"
    options: dict[str, Any] = {}
    if draw(st.booleans()):
        # Thinking is honoured only with the default system prompt and no tools or documents.
        allowed = not (custom_system or tool_list or document_list)
        options["thinking"] = draw(st.booleans()) if allowed else False
    if draw(st.booleans()):
        allow_true = bool(document_list) and not custom_system
        options["controls"] = draw(st.none() | controls(allow_true))
    if tool_list is not None:
        request["tools"] = tool_list
    where = draw(st.sampled_from(["top", "extra_body", "kwargs"]))
    if document_list is not None:
        if where == "top":
            request["documents"] = document_list
        elif where == "extra_body":
            request.setdefault("extra_body", {})["documents"] = document_list
        else:
            options["documents"] = document_list
    if bool(options) or draw(st.booleans()):
        if draw(st.booleans()):
            request["chat_template_kwargs"] = options
        else:
            request.setdefault("extra_body", {})["chat_template_kwargs"] = options
    if draw(st.booleans()):
        request["model"] = "granite"
        request["temperature"] = 0.0
    return request


@st.composite
def policy_violations(draw: st.DrawFn, release: str) -> tuple[dict[str, Any], str]:
    """A request the template would render while ignoring an option, and the field to name."""
    request = draw(valid_requests(release))
    valid = {**request, "messages": list(request["messages"])}
    options = dict(request.pop("chat_template_kwargs", None) or {})
    request.pop("extra_body", None)
    options.pop("documents", None)
    system = {"role": "system", "content": draw(texts())}
    messages = [message for message in request["messages"] if message["role"] != "system"]
    user = {"role": "user", "content": draw(texts())}
    kind = draw(
        st.sampled_from(
            [
                "thinking+system",
                "thinking+tools",
                "thinking+documents",
                "flag+system",
                "flag-without-documents",
                "developer-role",
                *(["document-without-id"] if release == "3.3" else []),
            ]
        )
    )
    document = draw(documents(release, ()))
    if kind == "developer-role":
        # The OpenAI role the Granite 3 models never saw: printed verbatim by the template.
        # Added to the valid request as it was drawn, so that it is the only violation.
        valid["messages"].append({"role": "developer", "content": draw(texts())})
        return valid, f"messages[{len(valid['messages']) - 1}].role"
    if kind == "document-without-id":
        options.pop("thinking", None)
        missing = {key: value for key, value in document.items() if key != "doc_id"}
        if draw(st.booleans()):
            missing["doc_id"] = None  # (null, printed "None", unlike a missing id)
        request["messages"] = messages or [user]
        request["documents"] = [*(request.get("documents") or []), missing]
        request["chat_template_kwargs"] = options
        return request, f"documents[{len(request['documents']) - 1}].doc_id"
    if kind.startswith("thinking"):
        options = {**options, "thinking": True}
        options.pop("controls", None)
        field = "chat_template_kwargs.thinking"
        if kind == "thinking+system":
            request["messages"] = [system, *messages]
        else:
            request["messages"] = messages or [user]
            if kind == "thinking+tools":
                request["tools"] = draw(st.lists(tools(()), min_size=1, max_size=2))
            else:
                request["documents"] = [document]
    else:
        flag = draw(st.sampled_from(["citations", "hallucinations"]))
        extra = draw(controls(allow_true=False))
        options = {"controls": {**extra, flag: True}}
        field = f"chat_template_kwargs.controls.{flag}"
        if kind == "flag+system":
            request["messages"] = [system, *messages]
            if draw(st.booleans()):
                request["documents"] = [document]
        else:
            request["messages"] = messages or [user]
            request.pop("documents", None)
            if draw(st.booleans()):
                request["documents"] = []
    request["chat_template_kwargs"] = options
    return request, field


def strip_tokens(value: Any, tokens: Sequence[str]) -> Any:
    """Independent reference for token removal: delete tokens until none is left."""
    if isinstance(value, str):
        pattern = re.compile("|".join(re.escape(token) for token in tokens))
        previous = None
        while previous != value:
            previous, value = value, pattern.sub("", value)
        return value
    if isinstance(value, dict):
        return {strip_tokens(k, tokens): strip_tokens(v, tokens) for k, v in value.items()}
    if isinstance(value, list):
        return [strip_tokens(item, tokens) for item in value]
    return value


# --------------------------------------------------------------------------- checks

#: Settings of the differential property tests (1000 random requests each).
DIFFERENTIAL = settings(
    max_examples=1000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
#: Dates for the "Today's Date" line (years before 1000 print differently across Pythons).
DATES = st.dates(date(1000, 1, 1), date(9999, 12, 31))


def rendered_caller_text(release: str, request: dict[str, Any]) -> list[str]:
    """Every piece of caller text the template prints for ``request``."""
    data = oracle.renderer_input(request, True)
    pieces: list[str] = []
    for message in data["messages"]:
        content = message["content"]
        if message["role"] == "assistant" and content.lstrip().startswith("<|tool_call|>"):
            # A past tool call written by the model itself is accepted by the default policy.
            content = content.lstrip()[len("<|tool_call|>") :]
        pieces += (message["role"], content)
        if message.get("tool_calls"):
            pieces.append(json.dumps(message["tool_calls"], ensure_ascii=False))
    if data.get("tools"):
        pieces.append(json.dumps(data["tools"], ensure_ascii=False))
    for document in data.get("documents") or ():
        pieces.append(document["text"])
        if release == "3.3":
            pieces.append(str(document["doc_id"]))
    return pieces


def assert_matches_template(
    processor: InputProcessor, release: str, request: dict[str, Any], agp: bool, today: date
) -> None:
    """With ``special_tokens="keep"`` the prompt is the template's, byte for byte."""
    expected = oracle.render(release, oracle.with_tool_calls_rendered(request), agp, today)
    transform: Any = processor.transform
    assert transform(request, agp, today=today, special_tokens="keep") == expected


def assert_default_policy(
    processor: InputProcessor, release: str, request: dict[str, Any], agp: bool, today: date
) -> None:
    """The default policy rejects exactly the requests whose printed text has a token."""
    tokens = TOKENS[release]
    found = [t for t in tokens for text in rendered_caller_text(release, request) if t in text]
    if not found:
        assert processor.transform(request, agp, today=today) == oracle.render(
            release, oracle.with_tool_calls_rendered(request), agp, today
        )
        return
    with pytest.raises(InvalidRequestError) as caught:
        processor.transform(request, agp, today=today)
    assert caught.value.field is not None
    assert any(repr(token) in str(caught.value) for token in found)


def assert_strip_policy(
    processor: InputProcessor, release: str, request: dict[str, Any], agp: bool, today: date
) -> None:
    """``"strip"`` renders what the template renders once every token is deleted."""
    transform: Any = processor.transform
    try:
        prompt = transform(request, agp, today=today, special_tokens="strip")
    except InvalidRequestError as error:
        assert error.field is not None
        if error.field.startswith("tools") and "two keys equal" in str(error):
            return  # two tool keys that become equal once stripped are refused
        # Otherwise the cleaned request itself is one the processor refuses (for
        # example a role "system<|start_of_role|>" that becomes "system").
        with pytest.raises(InvalidRequestError):
            transform(strip_tokens(request, TOKENS[release]), agp, today=today)
        return
    cleaned = strip_tokens(request, TOKENS[release])
    assert prompt == oracle.render(release, oracle.with_tool_calls_rendered(cleaned), agp, today)
    assert transform(cleaned, agp, today=today) == prompt


def assert_every_policy(
    processor: InputProcessor, release: str, request: dict[str, Any], agp: bool, today: date
) -> None:
    """The three special-token policies against the template (see the functions above)."""
    assert_matches_template(processor, release, request, agp, today)
    assert_default_policy(processor, release, request, agp, today)
    assert_strip_policy(processor, release, request, agp, today)


def assert_rejected(
    processor: InputProcessor, release: str, case: tuple[dict[str, Any], str]
) -> None:
    """A policy violation raises InvalidRequestError naming the option and the release."""
    request, field = case
    transform: Any = processor.transform
    with pytest.raises(InvalidRequestError) as caught:
        transform(request, special_tokens="keep")
    assert caught.value.field == field
    assert f"Granite {release}" in str(caught.value)


def assert_compatible_mode(
    processor: InputProcessor,
    release: str,
    case: tuple[dict[str, Any], str],
    agp: bool,
    today: date,
) -> None:
    """A request strict mode rejects renders exactly as the template does with
    ``strict=False``, with one DroppedInputWarning naming the rejected field."""
    request, field = case
    transform: Any = processor.transform
    with pytest.raises(InvalidRequestError):
        transform(request, agp, today=today, special_tokens="keep")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        prompt = transform(request, agp, today=today, special_tokens="keep", strict=False)
    assert prompt == oracle.render(release, request, agp, today)
    dropped = [w for w in caught if issubclass(w.category, DroppedInputWarning)]
    assert len(dropped) == 1, [str(w.message) for w in caught]
    assert field in str(dropped[0].message)


# --------------------------------------------------------------------------- both paths

#: Changes that make a request invalid (or unusual) in one known key, for the dict fast path.
_PERTURBATIONS: list[tuple[str, Any]] = [
    ("content", 5),
    ("content", None),
    ("content", ["text"]),
    ("role", None),
    ("name", 3),
    ("tool_calls", "f()"),
    ("tools", [{"x": 1}]),
    ("tools", {"name": "f"}),
    ("tools", [{"type": "function", "function": {"description": "no name"}}]),
    ("documents", [{"doc_id": True, "text": "t"}]),
    ("documents", [{"doc_id": 1.5, "text": "t"}]),
    ("documents", [{"doc_id": "1", "text": "t", "title": 7}]),
    ("documents", [{"text": None}]),
    ("chat_template_kwargs", {"thinking": "yes"}),
    ("chat_template_kwargs", {"controls": {"length": "medium"}}),
    ("chat_template_kwargs", {"controls": {"citations": 1}}),
    ("chat_template_kwargs", {"bogus": 1}),
    ("chat_template_kwargs", {"documents": [{"doc_id": "9", "text": "kw"}]}),
    ("messages", []),
    ("model", 3),
    ("temperature", "hot"),
    ("bogus", 1),
    ("extra_body", {"documents": [{"doc_id": "8", "text": "eb"}]}),
]


#: Keys a message or document may hold: ordinary extra keys, and keys holding a lone
#: surrogate (validation refuses those, so the plain path must not take them).
_EXTRA_KEYS = ("x-extra", "k\ud800", "\udfff", "é\udc00")


def as_mapping(value: dict[str, Any]) -> Any:
    """``value`` as a read-only mapping that is not a ``dict`` (validation reads it)."""
    return types.MappingProxyType(value)


@st.composite
def _with_odd_containers(draw: st.DrawFn, request: dict[str, Any]) -> dict[str, Any]:
    """``request`` with a message or document given an extra key (maybe holding a lone
    surrogate), or with some of its objects given as non-dict mappings."""
    documents = request.get("documents")
    change = draw(st.sampled_from(["message key", "document key", "mappings"]))
    if change == "document key" and documents:
        index = draw(st.integers(0, len(documents) - 1))
        documents[index] = {**documents[index], draw(st.sampled_from(_EXTRA_KEYS)): "v"}
    elif change in ("message key", "document key"):
        index = draw(st.integers(0, len(request["messages"]) - 1))
        message = request["messages"][index]
        request["messages"][index] = {**message, draw(st.sampled_from(_EXTRA_KEYS)): "v"}
    else:
        places = draw(
            st.sets(st.sampled_from(["message", "document", "tool", "kwargs", "request"]))
        )
        for place in places:
            if place == "message":
                request["messages"][0] = as_mapping(request["messages"][0])
            elif place == "document" and documents:
                documents[-1] = as_mapping(documents[-1])
            elif place == "tool" and request.get("tools"):
                request["tools"][0] = as_mapping(request["tools"][0])
            elif place == "kwargs" and isinstance(request.get("chat_template_kwargs"), dict):
                request["chat_template_kwargs"] = as_mapping(request["chat_template_kwargs"])
        if "request" in places:
            return as_mapping(request)  # type: ignore[no-any-return]
    return request


@st.composite
def maybe_perturbed_requests(draw: st.DrawFn, release: str) -> dict[str, Any]:
    """A valid request (with tokens), or one with a single key changed to an odd value,
    or with odd containers (see :func:`_with_odd_containers`)."""
    request = draw(valid_requests(release, with_tokens=True))
    if draw(st.booleans()):
        return request
    if draw(st.booleans()):
        return draw(_with_odd_containers(request))
    key, value = draw(st.sampled_from(_PERTURBATIONS))
    if key in ("content", "role", "name", "tool_calls"):
        index = draw(st.integers(0, len(request["messages"]) - 1))
        request["messages"][index] = {**request["messages"][index], key: value}
    else:
        request[key] = value
    return request


def assert_same_on_both_paths(
    processor: InputProcessor, request: dict[str, Any], agp: bool, today: date, policy: str
) -> None:
    """The dict (fast path when plain) and its JSON text (always the validated path) give
    the same prompt or the same error (mappings that are not dicts are written as dicts)."""
    transform: Any = processor.transform
    outcomes = []
    # (ensure_ascii=False: an escaped pair of lone surrogates would decode as one character)
    for given in (request, json.dumps(request, default=dict, ensure_ascii=False)):
        try:
            outcomes.append(transform(given, agp, today=today, special_tokens=policy))
        except InvalidRequestError as error:
            outcomes.append((type(error), error.field, str(error)))
    assert outcomes[0] == outcomes[1]
