"""The turn format of Granite 3.x prompts: turn delimiters and the generation prompt."""

from __future__ import annotations

import json
from collections.abc import Mapping
from json.encoder import encode_basestring
from typing import Any

from ._controls import valid_control_items
from .tokens import END_OF_ROLE, END_OF_TEXT, START_OF_ROLE

#: The end of every turn.
TURN_END = END_OF_TEXT + "\n"
SYSTEM_OPEN = START_OF_ROLE + "system" + END_OF_ROLE
DOCUMENTS_OPEN = START_OF_ROLE + "documents" + END_OF_ROLE
DOCUMENT_OPEN = START_OF_ROLE + 'document {"document_id": "'
DOCUMENT_ID_CLOSE = '"}' + END_OF_ROLE + "\n"

_ASSISTANT_HEADER = START_OF_ROLE + "assistant"
_COMPACT = json.JSONEncoder(ensure_ascii=False)

#: Generation prompts of valid controls, by their items (see ``valid_control_items``); a
#: handful of distinct controls is usual, and the memo stops growing at ``_MEMO_SIZE``.
_PROMPTS_BY_CONTROLS: dict[tuple[tuple[str, Any], ...], str] = {}
_MEMO_SIZE = 64


def generation_prompt(
    controls: Mapping[str, Any] | None = None,
    items: tuple[tuple[str, Any], ...] | None = None,
) -> str:
    """The assistant header that asks the model to answer.

    A non-empty ``controls`` dict is printed after the role, verbatim and in the
    caller's key order: ``<|start_of_role|>assistant {"citations": true}<|end_of_role|>``.
    ``items`` is ``valid_control_items(controls)`` when the caller has it already.
    """
    if controls:
        if items is None and type(controls) is dict:
            items = valid_control_items(controls)
        if items is None:
            return _ASSISTANT_HEADER + " " + _flat_object_json(controls) + END_OF_ROLE
        prompt = _PROMPTS_BY_CONTROLS.get(items)
        if prompt is None:
            prompt = _ASSISTANT_HEADER + " " + _flat_object_json(controls) + END_OF_ROLE
            if len(_PROMPTS_BY_CONTROLS) < _MEMO_SIZE:
                _PROMPTS_BY_CONTROLS[items] = prompt
        return prompt
    return _ASSISTANT_HEADER + END_OF_ROLE


def _flat_object_json(mapping: Mapping[str, Any]) -> str:
    """``tojson(mapping)``, faster for a small dict of strings, booleans and nulls (controls)."""
    items: list[str] = []
    for key, value in mapping.items():
        if type(key) is not str:
            return _COMPACT.encode(mapping)
        if value is True:
            text = "true"
        elif value is False:
            text = "false"
        elif value is None:
            text = "null"
        elif type(value) is str:
            text = encode_basestring(value)
        else:
            return _COMPACT.encode(mapping)
        items.append(encode_basestring(key) + ": " + text)
    return "{" + ", ".join(items) + "}"
