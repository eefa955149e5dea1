"""The special tokens of the Granite 3.x prompt format.

``START_OF_ROLE`` / ``END_OF_ROLE`` / ``END_OF_TEXT`` delimit the turns of a prompt,
``TOOL_CALL`` starts the model's tool calls. :data:`GRANITE3_SPECIAL_TOKENS` is the
complete special-token set of the Granite 3.2 tokenizer (shared by every Granite 3.x
release; Granite 3.3 adds its citation and plugin tokens, see its plugin), as a
:class:`~granite_formatters._special_tokens.SpecialTokens` scanner. See docs/security.md
for the source of the lists.
"""

from __future__ import annotations

from .._special_tokens import SpecialTokens

__all__ = [
    "CODE_CORPUS_TOKENS",
    "END_OF_ROLE",
    "END_OF_TEXT",
    "GRANITE3_SPECIAL_TOKENS",
    "START_OF_ROLE",
    "TOOL_CALL",
]

START_OF_ROLE = "<|start_of_role|>"
END_OF_ROLE = "<|end_of_role|>"
END_OF_TEXT = "<|end_of_text|>"
TOOL_CALL = "<|tool_call|>"

#: The 18 tokens the Granite 3.x tokenizers inherit from the code model (fill-in-the-middle,
#: repository, issue, notebook and commit markers). None opens a turn, but caller text
#: containing one reaches the model as a control token.
CODE_CORPUS_TOKENS = (
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

#: Every special token of the Granite 3.2 tokenizer (22), shared by every Granite 3.x
#: release: the four turn and tool-call tokens first, then :data:`CODE_CORPUS_TOKENS`.
#: Source: ``ALL_SPECIAL_TOKENS`` of ibm-granite/granite-common (docs/security.md).
GRANITE3_SPECIAL_TOKENS = SpecialTokens(
    (START_OF_ROLE, END_OF_ROLE, END_OF_TEXT, TOOL_CALL, *CODE_CORPUS_TOKENS)
)
