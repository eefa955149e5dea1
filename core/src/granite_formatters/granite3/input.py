"""The Granite 3 input processor, shared by every Granite 3.x point release.

A point release is described by a :class:`Granite3PromptFormat` (its system-prompt
wording, the role of the tools turn, its document layout and its special tokens) and
gets its processor by subclassing :class:`Granite3InputProcessor`::

    class Granite31InputProcessor(Granite3InputProcessor):
        prompt_format = Granite3PromptFormat(
            release="Granite 3.1",
            tools_instruction=" You are a helpful AI assistant with access to ...",
            tools_and_documents_instruction=" You are a helpful AI assistant ... data.",
            citations_instruction="\\n\\nIn your response, use the symbols <co> and ...",
            hallucinations_instruction="\\n\\nFinally, after the response is written, ...",
        )

The rendered prompt is byte-identical to the release's official chat template as
transformers renders it, for every request the processor accepts, with one deliberate
exception (docs/deviations.md): assistant ``tool_calls``, which the templates drop, are
rendered as the model writes them (``<|tool_call|>`` + the JSON list of calls). Where the
template would silently ignore something the caller asked for (thinking with tools,
citations without documents, ...) the processor raises :class:`InvalidRequestError`
instead; ``strict=False`` renders exactly what the template renders and issues one
:class:`~granite_formatters.errors.DroppedInputWarning` naming what was left out.
"""

from __future__ import annotations

import datetime
import json
import marshal
import warnings
from collections.abc import Iterable, Mapping, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, ClassVar

from ..errors import DroppedInputWarning, InvalidRequestError, quote
from ..jsonwriter import JSONNestingError, tojson
from ..plaindicts import (
    _OPTIONAL_MESSAGE_STRINGS,
    PlainDataMemo,
    are_plain_keys,
    are_plain_tools,
    has_plain_keys,
    is_optional_str,
)
from ..processors import InputProcessor
from ..special_tokens import (
    SPECIAL_TOKEN_POLICIES,
    SpecialTokenPolicy,
    find_special_token_in_json,
    remove_special_tokens_in_json,
)
from . import dates
from ._controls import check_controls, valid_control_items
from ._turns import (
    DOCUMENT_ID_CLOSE,
    DOCUMENT_OPEN,
    DOCUMENTS_OPEN,
    SYSTEM_OPEN,
    TURN_END,
    generation_prompt,
)
from ._views import DocumentView, MessageView, RequestView, plain_request
from .prompt_format import DocumentLayout, Granite3PromptFormat
from .tokens import END_OF_ROLE, START_OF_ROLE, TOOL_CALL

if TYPE_CHECKING:
    from ..processors import RequestLike
    from .types import Granite3ChatCompletion

__all__ = ["Granite3InputProcessor"]


def _model_written_part_removed(role: str, content: str) -> str:
    """The part of a message's content that the default policy checks for special tokens.

    A past assistant turn that called tools starts with ``<|tool_call|>``: the model's
    own token, written by the model, which is how the Granite 3 format records the call
    in the conversation. The default policy accepts it there (and only there).
    """
    if role == "assistant":
        stripped = content.lstrip()
        if stripped.startswith(TOOL_CALL):
            return stripped[len(TOOL_CALL) :]
    return content


def _special_token_error(token: str, field: str, owner: str) -> InvalidRequestError:
    return InvalidRequestError(
        f"contains the special token {token!r} ({owner}). Special tokens in caller text can "
        "forge turns of the prompt (see docs/security.md). Remove it, or pass "
        "special_tokens='strip' to delete special tokens, or special_tokens='keep' to render "
        "the text verbatim (only for trusted text).",
        field=field,
    )


#: OpenAI roles that the Granite 3 models were not trained on (``developer`` replaces
#: ``system`` in newer OpenAI clients): strict mode refuses them, the template (and so the
#: compatible mode) prints them verbatim.
_UNKNOWN_ROLES = frozenset({"developer"})


def _exact_str(value: Any, field: str) -> str:
    """``value`` as an exact ``str`` (a subclass could hide a special token from the scan)."""
    if type(value) is str:
        return value
    if isinstance(value, str):
        return str.__str__(value)
    raise InvalidRequestError(
        f"must be a string, not {type(value).__name__} (was the request changed after validation?)",
        field=field,
    )


def _tool_call_item(where: str, call: Any) -> dict[str, Any]:
    """One OpenAI tool call (``{"function": {"name", "arguments"}}`` or flat) as the model
    writes it: ``{"name": ..., "arguments": <decoded JSON>}``."""
    if not isinstance(call, Mapping) and hasattr(call, "model_dump"):
        call = call.model_dump()
    if not isinstance(call, Mapping):
        raise InvalidRequestError(
            f"a tool call must be an object, not {type(call).__name__}", field=where
        )
    function = call.get("function", call)
    if "function" in call:
        where += ".function"
    if not isinstance(function, Mapping) or not isinstance(function.get("name"), str):
        raise InvalidRequestError("a tool call needs a string 'name'", field=where)
    arguments = function.get("arguments")
    if arguments is None or (isinstance(arguments, str) and not arguments.strip()):
        arguments = {}  # a call without arguments ("" is what some clients send)
    elif isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except (ValueError, RecursionError):
            raise InvalidRequestError(
                f"the arguments must be a JSON string (as OpenAI sends them), not "
                f"{quote(arguments)}",
                field=where + ".arguments",
            ) from None
    return {"name": _exact_str(function["name"], where + ".name"), "arguments": arguments}


def _document_id(
    index: int, raw: Any, release: str, dropped: list[str] | None, null: bool = False
) -> str:
    """A document's id as the template prints it (``doc_id | string``: missing gives
    ``""``, an explicit null (``null``) gives ``"None"``)."""
    where = f"documents[{index}].doc_id"
    if raw is None:
        if dropped is None:
            raise InvalidRequestError(
                f"{release} identifies each document by its doc_id in the prompt "
                "(and the model cites documents by it): give every document a doc_id "
                "(a string or an integer)",
                field=where,
            )
        printed = "None" if null else ""
        dropped.append(
            f'documents[{index}].doc_id ({"null" if null else "missing"}: printed as "{printed}")'
        )
        return printed
    if isinstance(raw, str):
        return _exact_str(raw, where)
    if type(raw) is int or (isinstance(raw, int) and not isinstance(raw, bool)):
        try:
            return str(int(raw))
        except ValueError:  # more digits than Python prints (sys.set_int_max_str_digits)
            raise InvalidRequestError(
                f"the integer is too large to print ({raw.bit_length()} bits); give the "
                "id as a string",
                field=where,
            ) from None
    raise InvalidRequestError(
        f"must be a string or an integer, not {type(raw).__name__}", field=where
    )


#: The ``chat_template_kwargs`` keys Granite 3 reads (validation refuses any other).
_OPTION_KEYS = frozenset({"thinking", "controls"})
#: The document keys the Granite 3 fast path reads (any other must be a ``str``).
_DOCUMENT_KEYS = frozenset({"text", "doc_id", "title"})
#: How many default system turns a processor keeps (then it starts afresh).
_SYSTEM_TURNS_KEPT = 32


def _document_heading(index: int) -> str:
    """The line before document ``index`` in the single documents turn (3.1, 3.2), with
    the blank line that separates it from the previous document."""
    return f"\n\nDocument {index}\n" if index else "Document 0\n"


#: ``_document_heading(index)`` of the first documents, made once (read in the loops).
_DOCUMENT_HEADINGS = tuple(_document_heading(index) for index in range(16))


def _plain_message_extras(message: dict[Any, Any]) -> bool:
    """A message's keys besides role and content are as validation keeps them and need
    nothing from the general path: ``str`` keys without lone surrogates, no tool calls
    (null or ``[]``), and ``tool_call_id``, ``name`` and ``reasoning_content`` strings or
    null."""
    if not are_plain_keys(message):
        return False
    calls = message.get("tool_calls")
    if calls is not None and (type(calls) is not list or calls):
        return False
    return all(is_optional_str(message.get(name)) for name in _OPTIONAL_MESSAGE_STRINGS)


#: ``granite_formatters.types`` and :class:`Granite3ChatCompletion`, imported on the
#: first validated request (an import statement per call costs about 1 µs).
_VALIDATION: tuple[ModuleType, type[Granite3ChatCompletion]] | None = None


def _validated(chat_completion: Any) -> Granite3ChatCompletion:
    """The request as a :class:`Granite3ChatCompletion` (pydantic, imported on first use)."""
    global _VALIDATION
    if _VALIDATION is None:
        from .. import types
        from .types import Granite3ChatCompletion

        _VALIDATION = (types, Granite3ChatCompletion)
    types_module, request_type = _VALIDATION
    request: Granite3ChatCompletion
    if type(chat_completion) is request_type:
        request = chat_completion  # (as coerce_request returns it)
    else:
        request = types_module.coerce_request(chat_completion, request_type)
    return request


def _indented_json(value: Any) -> str:
    return tojson(value, indent=4)


class _IndentedJsonMemo(PlainDataMemo):
    """The indented JSON of recently rendered tool lists (see :class:`PlainDataMemo`).

    A value marshal refuses is keyed by its compact JSON (whose errors are those of the
    tools block), so it is cached too.
    """

    __slots__ = ()

    _KEY_ENCODER: ClassVar[json.JSONEncoder] = json.JSONEncoder(
        ensure_ascii=False, check_circular=False
    )

    def __init__(self) -> None:
        super().__init__(_indented_json)

    def key(self, value: Any) -> bytes | str:
        try:
            return marshal.dumps(value)
        except ValueError:
            return self._KEY_ENCODER.encode(value)


class Granite3InputProcessor(InputProcessor):
    """Renders requests as the prompt of one Granite 3 point release.

    Subclasses set :attr:`prompt_format`; everything else is shared.
    """

    #: The point release's prompt format. Every concrete subclass sets it.
    prompt_format: ClassVar[Granite3PromptFormat]

    def __init__(self) -> None:
        if not isinstance(getattr(type(self), "prompt_format", None), Granite3PromptFormat):
            raise TypeError(
                f"{type(self).__name__} must set the class attribute prompt_format "
                "to a Granite3PromptFormat"
            )
        self._tools_json = _IndentedJsonMemo()
        # Default system turns by date and flags (see _system_turn).
        self._system_turns: dict[tuple[datetime.date, bool, bool, bool, bool, bool], str] = {}

    # ------------------------------------------------------------------ public API

    def transform(
        self,
        chat_completion: RequestLike,
        add_generation_prompt: bool = True,
        *,
        today: datetime.date | None = None,
        special_tokens: SpecialTokenPolicy | None = None,
        strict: bool = True,
    ) -> str:
        """Render ``chat_completion`` as the prompt string the model was trained on.

        ``chat_completion`` is a :class:`Granite3ChatCompletion` (used as it is), any
        other :class:`~granite_formatters.types.ChatCompletion`, a dict or a JSON
        string. ``today`` pins the date of the default system prompt; when it is
        ``None`` the clock (:func:`granite_formatters.granite3.dates.current_date`) is
        read at this call. ``special_tokens`` says what to do with special tokens in
        caller-supplied text: ``"error"`` (raise), ``"strip"`` (delete them) or
        ``"keep"`` (render verbatim, exactly as the chat template would).

        Raises :class:`InvalidRequestError` for a request the template cannot render
        or would render without honouring an option the caller set.
        """
        if special_tokens is None:
            special_tokens = "error"
        elif not isinstance(special_tokens, str) or special_tokens not in SPECIAL_TOKEN_POLICIES:
            raise InvalidRequestError(
                f"must be 'error', 'strip' or 'keep', not {quote(special_tokens)}",
                field="special_tokens",
            )
        if today is None:
            today = dates.current_date()
        elif not isinstance(today, datetime.date):
            raise InvalidRequestError(
                f"must be a datetime.date, not {type(today).__name__}", field="today"
            )
        if type(special_tokens) is not str:
            special_tokens = str.__str__(special_tokens)  # type: ignore[assignment]
        request: RequestView | None = None
        if type(chat_completion) is dict:
            # A plain dict of the common shapes renders straight from the dict; other plain
            # dicts of exactly the expected types render from a light view without building
            # models; anything else (and every invalid request) takes the validated path.
            prompt = self._render_plain(
                chat_completion, add_generation_prompt, today, special_tokens
            )
            if prompt is not None:
                return prompt
            request = plain_request(chat_completion)
        if request is None:
            request = _validated(chat_completion)
        return self._render(request, add_generation_prompt, today, special_tokens, strict)

    @classmethod
    def sanitize(
        cls, chat_completion: RequestLike, parts: str | Iterable[str] = "all"
    ) -> Granite3ChatCompletion:
        """A copy of the request with this release's special tokens removed.

        See :func:`granite_formatters.granite3.sanitize`.
        """
        from ._sanitize import sanitize

        return sanitize(chat_completion, parts, special_tokens=cls.prompt_format.special_tokens)

    def render(
        self,
        request: Granite3ChatCompletion,
        add_generation_prompt: bool,
        today: datetime.date,
        special_tokens: SpecialTokenPolicy,
        strict: bool = True,
    ) -> str:
        """Render an already validated request (the body of :meth:`transform`).

        With ``strict=False`` (template-compatible mode) the prompt is exactly the
        official template's, and what the template leaves out is listed in one
        :class:`~granite_formatters.errors.DroppedInputWarning` instead of raising.
        """
        return self._render(request, add_generation_prompt, today, special_tokens, strict)

    def _render_plain(
        self,
        data: dict[str, Any],
        add_generation_prompt: bool,
        today: datetime.date,
        special_tokens: SpecialTokenPolicy,
    ) -> str | None:
        """The prompt of a plain request dict of the common shapes, read straight from the
        dict, or ``None``.

        ``None`` (the caller then takes the general path, which renders the same prompt
        or raises the error) unless every key read has exactly the type validation keeps
        unchanged (as :func:`~granite_formatters.plaindicts.plain_fields` checks) and the
        request needs none of the general path's cases: no tool calls, no special token
        in caller text (whatever the policy), no option the template would ignore, no
        unknown role, every 3.3 document with an id. So it never raises, never warns and
        gives the same prompt in strict and compatible mode.
        """
        if not has_plain_keys(data):
            return None
        messages = data.get("messages")
        if type(messages) is not list or not messages:
            return None
        options = data.get("chat_template_kwargs")
        thinking = False
        controls = control_items = None
        if options is not None:
            if type(options) is not dict or not _OPTION_KEYS.issuperset(options):
                return None
            thinking = options.get("thinking", False)
            controls = options.get("controls")
            if type(thinking) is not bool:
                return None
            if controls is not None:
                if type(controls) is not dict:
                    return None
                control_items = valid_control_items(controls)
                if control_items is None:
                    return None
        tools = data.get("tools")
        if not are_plain_tools(tools):
            return None
        documents = data.get("documents")
        if documents is not None and type(documents) is not list:
            return None
        fmt = self.prompt_format
        tokens = fmt.special_tokens
        # Text without the sentinel has no special token; text with it is searched.
        sentinel = tokens.sentinel if special_tokens != "keep" else None
        first = messages[0]
        first_role = first.get("role") if type(first) is dict else None
        custom_system = type(first_role) is str and first_role == "system"
        has_tools = bool(tools)
        has_documents = bool(documents)
        if (thinking or (controls and (custom_system or not has_documents))) and self.check_options(
            custom_system=custom_system,
            tools=has_tools,
            documents=has_documents,
            thinking=thinking,
            controls=controls,
            strict=False,
        ):
            return None
        out: list[str] = []
        if custom_system:
            first_loop = 1
            content = first.get("content")
            if (
                type(content) is not str
                or (len(first) > 2 and not _plain_message_extras(first))
                or (sentinel is not None and sentinel in content and tokens.search(content))
            ):
                return None
            out += (SYSTEM_OPEN, content, TURN_END)
        else:
            first_loop = 0
            out.append(self._system_turn(today, has_tools, has_documents, thinking, controls))
        if tools:
            try:
                block = self._tools_block(tools, special_tokens)
            except InvalidRequestError:
                return None
            out += (fmt.tools_open, block, TURN_END)
        if documents and not self._plain_documents(out, documents, sentinel):
            return None
        try:  # (subscripts, faster than get(); a missing key leaves it to the general path)
            for message in messages[1:] if first_loop else messages:
                if type(message) is not dict:
                    return None
                role = message["role"]
                content = message["content"]
                if (
                    type(role) is not str
                    or type(content) is not str
                    or (len(message) > 2 and not _plain_message_extras(message))
                    or role in _UNKNOWN_ROLES
                ):
                    return None
                if (
                    sentinel is not None
                    and (sentinel in role or sentinel in content)
                    and (tokens.search(role) is not None or tokens.search(content) is not None)
                ):
                    return None
                out += (START_OF_ROLE, role, END_OF_ROLE, content, TURN_END)
        except KeyError:
            return None
        if add_generation_prompt and len(messages) > first_loop:
            out.append(generation_prompt(controls, control_items))
        return "".join(out)

    def _plain_documents(self, out: list[str], documents: list[Any], sentinel: str | None) -> bool:
        """Append the documents turn(s) of plain document dicts to ``out``; ``False`` (and
        ``out`` is to be dropped) for any document :meth:`_render_plain` leaves to the
        general path."""
        fmt = self.prompt_format
        tokens = fmt.special_tokens
        single_turn = fmt.document_layout is DocumentLayout.SINGLE_TURN
        if single_turn:
            out.append(DOCUMENTS_OPEN)
        for index, document in enumerate(documents):
            if type(document) is not dict:
                return False
            text = document.get("text")
            doc_id = document.get("doc_id")
            title = document.get("title")
            if type(text) is not str or (title is not None and type(title) is not str):
                return False
            # Keys other than the three read must be plain strings (validation refuses others).
            if not (_DOCUMENT_KEYS.issuperset(document) or are_plain_keys(document)):
                return False
            if sentinel is not None and sentinel in text and tokens.search(text) is not None:
                return False
            if type(doc_id) is str:
                if sentinel is not None and sentinel in doc_id and tokens.search(doc_id):
                    return False
                printed_id = doc_id
            elif type(doc_id) is int:
                try:
                    printed_id = str(doc_id)
                except ValueError:  # more digits than Python prints
                    return False
            elif doc_id is not None or not single_turn:
                return False  # (a bool, another type, or a missing 3.3 id)
            if single_turn:
                heading = _DOCUMENT_HEADINGS[index] if index < 16 else _document_heading(index)
                out += (heading, text)
            else:
                out += (DOCUMENT_OPEN, printed_id, DOCUMENT_ID_CLOSE, text, TURN_END)
        if single_turn:
            out.append(TURN_END)
        return True

    def _render(
        self,
        request: RequestView,
        add_generation_prompt: bool,
        today: datetime.date,
        special_tokens: SpecialTokenPolicy,
        strict: bool,
    ) -> str:
        fmt = self.prompt_format
        messages = request.messages
        tools = request.tools
        documents = request.documents
        options = request.chat_template_kwargs
        controls = options.controls
        control_items = None
        if controls is not None:
            # Checked again here: a typed request may have been changed after validation.
            if type(controls) is dict:
                control_items = valid_control_items(controls)
            if control_items is None:
                check_controls(controls)
        has_tools = bool(tools)
        has_documents = bool(documents)
        dropped: list[str] | None = None if strict else []
        first = messages[0]
        # Text without the sentinel character has no special token ("" matches all text).
        sentinel = fmt.special_tokens.sentinel if special_tokens != "keep" else None
        first_role = first.role
        if type(first_role) is not str:
            first_role = _exact_str(first_role, "messages[0].role")
        if special_tokens == "strip" and sentinel is not None and sentinel in first_role:
            # As if the request had been sanitized first: "sys<|end_of_text|>tem" is a system role.
            first_role = fmt.special_tokens.remove(first_role)
        custom_system = first_role == "system"
        thinking = options.thinking
        if thinking or (controls and (custom_system or not has_documents)):
            # (check_options has nothing to say otherwise)
            problems = self.check_options(
                custom_system=custom_system,
                tools=has_tools,
                documents=has_documents,
                thinking=thinking,
                controls=controls,
                strict=strict,
            )
            if dropped is not None:
                dropped += problems
        out: list[str] = []
        if custom_system:
            first_loop = 1
            if first.content is None:
                raise self._missing_content(0, first, strict)
            content = _exact_str(first.content, "messages[0].content")
            if sentinel is not None and sentinel in content:
                content = self._message_with_tokens(0, "system", content, special_tokens)[1]
            out += (SYSTEM_OPEN, content, TURN_END)
            if first.tool_calls:
                self._tool_calls_unrendered(0, first, dropped)
        else:
            first_loop = 0
            out.append(self._system_turn(today, has_tools, has_documents, thinking, controls))
        if tools:
            out += (fmt.tools_open, self._tools_block(tools, special_tokens), TURN_END)
        if documents:
            self._render_documents(out, documents, special_tokens, dropped)
        for index in range(first_loop, len(messages)):
            message = messages[index]
            role = message.role
            text = message.content
            calls = message.tool_calls
            if (
                type(role) is str
                and type(text) is str
                and not calls
                and role not in _UNKNOWN_ROLES
                and (sentinel is None or (sentinel not in role and sentinel not in text))
            ):
                # The common case, the same as the general one below with nothing to do.
                out += (START_OF_ROLE, role, END_OF_ROLE, text, TURN_END)
                continue
            role = _exact_str(role, f"messages[{index}].role")
            if message.content is None:
                if not (calls and strict and role == "assistant"):
                    raise self._missing_content(index, message, strict)
                content = ""
            else:
                content = _exact_str(message.content, f"messages[{index}].content")
            if role in _UNKNOWN_ROLES:
                self._unknown_role(index, role, dropped)
            if sentinel is not None and (sentinel in role or sentinel in content):
                role, content = self._message_with_tokens(index, role, content, special_tokens)
            if calls:
                if dropped is None and role == "assistant":
                    content += self._tool_calls_text(index, calls, special_tokens)
                else:
                    self._tool_calls_unrendered(index, message, dropped)
            out += (START_OF_ROLE, role, END_OF_ROLE, content, TURN_END)
        if add_generation_prompt and len(messages) > first_loop:
            out.append(generation_prompt(controls, control_items))
        if dropped:
            warnings.warn(
                f"{fmt.release} template-compatible mode: the model will not see "
                + "; ".join(dropped),
                DroppedInputWarning,
                stacklevel=4,
            )
        return "".join(out)

    def _system_turn(
        self,
        today: datetime.date,
        tools: bool,
        documents: bool,
        thinking: bool,
        controls: Mapping[str, Any] | None,
    ) -> str:
        """The default system turn (:meth:`Granite3PromptFormat.system_turn`), from a
        small memo: it depends only on the date and five flags."""
        citations = controls is not None and "citations" in controls
        hallucinations = controls is not None and "hallucinations" in controls
        key = (today, tools, documents, thinking, citations, hallucinations)
        turn = self._system_turns.get(key) if type(today) is datetime.date else None
        if turn is None:
            turn = self.prompt_format.system_turn(
                today,
                tools=tools,
                documents=documents,
                thinking=thinking,
                citations=citations,
                hallucinations=hallucinations,
            )
            if type(today) is datetime.date:  # (a subclass may compare as it likes)
                if len(self._system_turns) >= _SYSTEM_TURNS_KEPT:
                    self._system_turns.clear()
                self._system_turns[key] = turn
        return turn

    def check_options(
        self,
        *,
        custom_system: bool,
        tools: bool,
        documents: bool,
        thinking: bool,
        controls: Mapping[str, Any] | None,
        strict: bool = True,
    ) -> list[str]:
        """Options that the template would silently ignore.

        Thinking needs the default system prompt and no tools or documents; the
        citations and hallucinations controls (when true) need the default system
        prompt and documents. In strict mode the first such option raises
        :class:`InvalidRequestError`; otherwise they are returned, one short note each
        (what the model will not see), for the template-compatible mode's warning.
        """
        release = self.prompt_format.release
        notes: list[str] = []
        replaced = (
            "a system message given as messages[0] replaces the whole default system "
            "prompt, which is where the {what} instructions go"
        )
        if thinking:
            where = "chat_template_kwargs.thinking"
            problem = None
            if self.prompt_format.thinking_instruction is None:
                if strict:
                    raise InvalidRequestError(
                        f"{release} has no thinking mode; set thinking to false", field=where
                    )
                notes.append(f"{where} (no thinking mode)")
            elif custom_system:
                problem = replaced.format(what="thinking") + (
                    ". Either remove the system message to use the default one, "
                    "or set thinking to false."
                )
                note = "the caller's system message replaces the thinking instructions"
            elif tools or documents:
                given = "tools" if tools else "documents"
                problem = (
                    f"its chat template writes the thinking instructions only when there "
                    f"are no tools and no documents, so thinking would be silently ignored "
                    f"with {given}. Either remove the {given} or set thinking to false."
                )
                note = f"ignored with {given}"
            if problem is not None:
                if strict:
                    raise InvalidRequestError(
                        f"{release} cannot honour thinking=true: {problem}", field=where
                    )
                notes.append(f"{where} ({note})")
        if controls:
            for key, what in (("citations", "citation"), ("hallucinations", "hallucination")):
                if not controls.get(key):
                    continue
                if custom_system:
                    problem = replaced.format(what=what) + (
                        f". Either remove the system message to use the default one, or "
                        f"remove the {key!r} control."
                    )
                    note = f"the caller's system message replaces the {what} instructions"
                elif not documents:
                    problem = (
                        f"its chat template writes the {what} instructions only when documents "
                        f"are given. Either add documents or remove the {key!r} control."
                    )
                    note = f"no {what} instructions without documents"
                else:
                    continue
                if strict:
                    raise InvalidRequestError(
                        f"{release} cannot honour {key}=true: {problem}",
                        field=f"chat_template_kwargs.controls.{key}",
                    )
                notes.append(f"chat_template_kwargs.controls.{key} ({note})")
        return notes

    # ------------------------------------------------------------------ pieces

    def _message_with_tokens(
        self, index: int, role: str, content: str, special_tokens: SpecialTokenPolicy
    ) -> tuple[str, str]:
        """Role and content of a message that may contain special tokens, after the policy."""
        tokens = self.prompt_format.special_tokens
        if special_tokens == "strip":
            return tokens.remove(role), tokens.remove(content)
        for name, text in (("role", role), ("content", _model_written_part_removed(role, content))):
            token = tokens.search(text)
            if token is not None:
                raise _special_token_error(
                    token, f"messages[{index}].{name}", f"message role {quote(role)}"
                )
        return role, content

    def _missing_content(
        self, index: int, message: MessageView, strict: bool = True
    ) -> InvalidRequestError:
        hint = ""
        if message.tool_calls and not strict:
            hint = (
                " This assistant turn has tool_calls, which the template (and so the "
                "template-compatible mode) does not render: put the text of the calls in "
                'content (or use "" for an empty turn), or use the default strict mode, '
                "which renders them."
            )
        return InvalidRequestError(
            f"the content is missing (null); the {self.prompt_format.release} chat template "
            "renders only the content of each message and fails without it. Give a string "
            f'("" for an empty turn).{hint}',
            field=f"messages[{index}].content",
        )

    def _unknown_role(self, index: int, role: str, dropped: list[str] | None) -> None:
        if dropped is not None:
            dropped.append(
                f"messages[{index}].role as intended ({quote(role)} is printed verbatim, "
                "a role the model was not trained on)"
            )
            return
        raise InvalidRequestError(
            f"{self.prompt_format.release} was not trained on the role {quote(role)}; the "
            "chat template would print it verbatim as an unknown role. Use 'system' (or "
            "format with strict=False to render it as the template does).",
            field=f"messages[{index}].role",
        )

    def _tool_calls_unrendered(
        self, index: int, message: MessageView, dropped: list[str] | None
    ) -> None:
        """``tool_calls`` that the prompt leaves out: a note in compatible mode, else an error."""
        if dropped is not None:
            count = len(message.tool_calls or ())
            dropped.append(f"messages[{index}].tool_calls ({count} call(s), not rendered)")
            return
        raise InvalidRequestError(
            f"only assistant messages can carry tool calls, not role {quote(message.role)}; "
            "move the calls to an assistant message",
            field=f"messages[{index}].tool_calls",
        )

    def _tool_calls_text(
        self, index: int, calls: Sequence[Any], special_tokens: SpecialTokenPolicy
    ) -> str:
        """OpenAI ``tool_calls`` as the model writes them: ``<|tool_call|>`` + a JSON list.

        Each call becomes ``{"name": ..., "arguments": ...}`` with the arguments decoded
        from their JSON string, written with ``tojson`` (the format the system prompt asks
        the model for and the parser reads back).
        """
        where = f"messages[{index}].tool_calls"
        items = [_tool_call_item(f"{where}[{number}]", call) for number, call in enumerate(calls)]
        tokens = self.prompt_format.special_tokens
        try:
            text = tojson(items)
            if special_tokens != "keep" and tokens.search(text) is not None:
                if special_tokens == "strip":
                    text = tojson(remove_special_tokens_in_json(items, tokens, where))
                else:
                    found = find_special_token_in_json(items, tokens, where)
                    if found is not None:
                        path, token = found
                        raise _special_token_error(token, path, f"tool call of message {index}")
        except (JSONNestingError, RecursionError):
            raise InvalidRequestError(
                "the tool-call arguments are nested too deeply", field=where
            ) from None
        except InvalidRequestError:
            raise
        except (TypeError, ValueError) as exc:
            raise InvalidRequestError(
                f"the tool calls cannot be written as JSON ({exc})", field=where
            ) from None
        return TOOL_CALL + text

    def _tools_block(self, tools: list[dict[str, Any]], special_tokens: SpecialTokenPolicy) -> str:
        tokens = self.prompt_format.special_tokens
        try:
            text = self._tools_json(tools)
            # A special token in any key or string of the tools shows in their JSON text.
            if special_tokens == "keep" or tokens.search(text) is None:
                return text
            found = find_special_token_in_json(tools, tokens, "tools")
            if found is None:
                return text
            if special_tokens == "error":
                where, token = found
                index = where[len("tools[") :].split("]", 1)[0]
                raise _special_token_error(token, where, f"tool definition {index}")
            return tojson(remove_special_tokens_in_json(tools, tokens, "tools"), indent=4)
        except InvalidRequestError:
            raise
        except JSONNestingError as exc:
            raise InvalidRequestError(
                f"the tool definitions are nested too deeply ({exc}; or they contain "
                "themselves); flatten the JSON schema",
                field="tools",
            ) from None
        except (TypeError, ValueError) as exc:
            raise InvalidRequestError(
                f"the tool definitions cannot be written as JSON ({exc})", field="tools"
            ) from None
        except RecursionError:
            raise InvalidRequestError(
                "the tool definitions are nested too deeply (or contain themselves)",
                field="tools",
            ) from None

    def _render_documents(
        self,
        out: list[str],
        documents: Sequence[DocumentView],
        special_tokens: SpecialTokenPolicy,
        dropped: list[str] | None = None,
    ) -> None:
        fmt = self.prompt_format
        sentinel = fmt.special_tokens.sentinel if special_tokens != "keep" else None
        if fmt.document_layout is DocumentLayout.SINGLE_TURN:
            out.append(DOCUMENTS_OPEN)
            for index, document in enumerate(documents):
                text = document.text
                if type(text) is not str:
                    text = _exact_str(text, f"documents[{index}].text")
                if sentinel is not None and sentinel in text:
                    text = self._document_field_with_tokens(
                        index, document, "text", text, special_tokens
                    )
                heading = _DOCUMENT_HEADINGS[index] if index < 16 else _document_heading(index)
                out += (heading, text)
            out.append(TURN_END)
            return
        for index, document in enumerate(documents):
            raw_id = document.doc_id
            text = document.text
            if (
                type(raw_id) is str
                and type(text) is str
                and (sentinel is None or (sentinel not in raw_id and sentinel not in text))
            ):
                # The common case, the same as the general one below with nothing to do.
                out += (DOCUMENT_OPEN, raw_id, DOCUMENT_ID_CLOSE, text, TURN_END)
                continue
            # (A null given explicitly is printed "None" by the template, a missing id "".
            # Only a validated document can hold an explicit null: plain_request leaves
            # such a dict to validation.)
            null = raw_id is None and "doc_id" in getattr(document, "model_fields_set", ())
            doc_id = _document_id(index, raw_id, fmt.release, dropped, null)
            text = _exact_str(text, f"documents[{index}].text")
            if sentinel is not None:
                if sentinel in doc_id:
                    doc_id = self._document_field_with_tokens(
                        index, document, "doc_id", doc_id, special_tokens
                    )
                if sentinel in text:
                    text = self._document_field_with_tokens(
                        index, document, "text", text, special_tokens
                    )
            out += (DOCUMENT_OPEN, doc_id, DOCUMENT_ID_CLOSE, text, TURN_END)

    def _document_field_with_tokens(
        self,
        index: int,
        document: DocumentView,
        name: str,
        value: str,
        special_tokens: SpecialTokenPolicy,
    ) -> str:
        """A document's text or id that may contain special tokens, after the policy."""
        tokens = self.prompt_format.special_tokens
        if special_tokens == "strip":
            return tokens.remove(value)
        token = tokens.search(value)
        if token is None:
            return value
        owner = f"document {index}"
        if isinstance(document.doc_id, str):
            owner += f", id {quote(document.doc_id)}"
        raise _special_token_error(token, f"documents[{index}].{name}", owner)
