"""The request's documents looked up by a citation, and the citations built from them.

Importing this module loads no pydantic (the citation syntaxes are declared with it);
building the citations does.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..._toolcalljson import text_safe
from .notes import excerpt

if TYPE_CHECKING:
    from pydantic import TypeAdapter

    from ..._types import Document
    from ...granite3._types import Citation
    from .lines import CitationEntry
    from .spans import ContextLocator, Span

__all__ = ["DocumentIndex", "citation_fields", "citations_from_fields", "make_citation"]


class DocumentIndex:
    """The request's documents, looked up by position (3.2) or by ``doc_id`` (3.3).

    :meth:`lookup` returns the id a citation should carry and the document;
    :meth:`cited` lists the documents looked up so far, each once, with their full text
    and their ``doc_id`` filled in (a 3.2 document without one gets its position).
    """

    def __init__(self, documents: Sequence[Document] | None, *, by_position: bool) -> None:
        self.documents = list(documents or ())
        self.by_position = by_position
        self._by_id: dict[str, int] = {}
        if not by_position:
            for index, document in enumerate(self.documents):
                key = "" if document.doc_id is None else str(document.doc_id)
                self._by_id.setdefault(key, index)
        self._cited: dict[int, str | int] = {}
        # Each ref's answer, once: a few documents are cited many times.
        self._answers: dict[str, tuple[str | int, Document] | None] = {}

    def lookup(self, ref: str) -> tuple[str | int, Document] | None:
        """The citation ``doc_id`` and the document that ``ref`` names, or ``None``."""
        try:
            return self._answers[ref]
        except KeyError:
            answer = self._answers[ref] = self._lookup(ref)
            return answer

    def _lookup(self, ref: str) -> tuple[str | int, Document] | None:
        if self.by_position:
            ref = ref.strip()
            # ASCII digits only: "²".isdigit() is true but int("²") raises.
            if (
                not (ref.isascii() and ref.isdigit())
                or len(ref) > 9
                or int(ref) >= len(self.documents)
            ):
                return None
            index = int(ref)
        else:
            found = self._by_id.get(ref)
            if found is None:
                return None
            index = found
        document = self.documents[index]
        # The caller's doc_id, with its type, so citations join documents on equality.
        doc_id: str | int
        if document.doc_id is not None:
            doc_id = document.doc_id
        else:
            doc_id = str(index) if self.by_position else ref
        self._cited.setdefault(index, doc_id)
        return doc_id, document

    def cited(self) -> list[Document]:
        """The documents looked up so far, in order of first lookup."""
        result: list[Document] = []
        for index, doc_id in self._cited.items():
            document = self.documents[index]
            if document.doc_id is None:
                document = document.model_copy(update={"doc_id": doc_id})
            result.append(document)
        return result


def make_citation(
    citation_id: str,
    entry: CitationEntry | None,
    doc_ref: str,
    response: Span | None,
    content: str,
    documents: DocumentIndex,
    locator: ContextLocator,
    notes: list[str],
) -> Citation:
    """Build one :class:`Citation`: response span from ``response``, context span located.

    ``entry`` is the listed citation (``None`` when the tag has no entry: the context
    is then empty and unlocated). ``doc_ref`` names the document as the model did.
    """
    from ...granite3._types import Citation

    return Citation(
        **citation_fields(citation_id, entry, doc_ref, response, content, documents, locator, notes)
    )


def citation_fields(
    citation_id: str,
    entry: CitationEntry | None,
    doc_ref: str,
    response: Span | None,
    content: str,
    documents: DocumentIndex,
    locator: ContextLocator,
    notes: list[str],
) -> dict[str, Any]:
    """The fields of the citation :func:`make_citation` builds (only those that are known,
    as they make the model's ``fields_set``); turn many into citations at once with
    :func:`citations_from_fields`."""
    if not doc_ref.isascii():
        safe_ref = text_safe(doc_ref)
        if safe_ref is not None:
            notes.append(f"citation {citation_id}: replaced lone surrogates in its document id")
            doc_ref = safe_ref
    found = documents.lookup(doc_ref)
    context = entry.context if entry is not None else ""
    fields: dict[str, Any] = {
        "citation_id": citation_id,
        "doc_id": found[0] if found is not None else doc_ref,
        "context_text": context,
    }
    if response is not None:
        begin, end = response
        fields["response_text"] = content[begin:end]
        fields["response_begin"] = begin
        fields["response_end"] = end
    if found is None:
        if documents.documents:
            notes.append(f"citation {citation_id}: the request has no document {doc_ref!r}")
        return fields
    if context.strip():
        doc_id, document = found
        text = document.text
        span = locator.locate(doc_id, text, context)
        if span is not None:
            fields["context_text"] = text[span[0] : span[1]]
            fields["context_begin"] = span[0]
            fields["context_end"] = span[1]
        else:
            notes.append(
                f"citation {citation_id}: {excerpt(context)} is not in document {doc_id!r}"
            )
    return fields


@functools.cache
def _citation_list() -> TypeAdapter[list[Citation]]:
    from pydantic import TypeAdapter

    from ...granite3._types import Citation

    return TypeAdapter(list[Citation])


def citations_from_fields(fields: list[dict[str, Any]]) -> list[Citation]:
    """``[Citation(**item) for item in fields]``, validated as one list (about twice as fast)."""
    return _citation_list().validate_python(fields)
