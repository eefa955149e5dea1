"""A request's documents: how they are read (the caller's mappings, a validated
request's documents), checked (special tokens, ids) and written as a layout's documents
turn(s)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .._errors import InvalidRequestError
from ..syntax._context_turns import DocumentsTurn, DocumentTurnPerDocument
from .checks import _checked
from .request import (
    _ID_TYPES,
    _TITLE_TYPES,
    NotPlain,
    PlainRequest,
    Problems,
    RequestView,
    document_data,
    documents_data,
    is_plain_document,
    raw_documents,
)

if TYPE_CHECKING:
    from .._special_tokens import SpecialTokenPolicy
    from ..release import Release

__all__ = ["DocumentTurns", "request_documents"]


def request_documents(request: RequestView, raw: Mapping[str, Any] | None) -> list[Any] | None:
    """The request's documents as the caller's mappings (key order kept) or the
    validated documents' data; ``None`` when there are none."""
    if not request.documents:
        return None
    if isinstance(request, PlainRequest):
        return request.documents  # (the caller's dicts, already checked)
    validated = request.documents
    documents = raw_documents(raw) if raw is not None else None
    if not isinstance(documents, list) or len(documents) != len(validated):
        return documents_data(validated)
    if not all(type(doc) is dict for doc in documents):
        # Document objects or other mappings in a dict request: written as the
        # caller's mapping (key order kept) or as the validated document's data.
        return [
            doc
            if type(doc) is dict
            else dict(doc)
            if isinstance(doc, Mapping)
            else document_data(validated[index])
            for index, doc in enumerate(documents)
        ]
    return documents


def _document_id(value: Any, field: str) -> str:
    """A document id as the template prints it (``doc_id | string``)."""
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            return str(int(value))
        except ValueError:  # more digits than Python prints (sys.set_int_max_str_digits)
            raise InvalidRequestError(
                f"the integer is too large to print ({value.bit_length()} bits); give the "
                "id as a string",
                field=field,
            ) from None
    raise InvalidRequestError(
        f"must be a string or an integer, not {type(value).__name__}", field=field
    )


class DocumentTurns:
    """The documents turn(s) of one release whose layout writes them as turns (its frame,
    headings and special tokens resolved once), written by :meth:`write`."""

    __slots__ = (
        "_document_frame",
        "_document_headings",
        "_documents_header",
        "_end",
        "_id_fields",
        "_missing_id",
        "_per_document",
        "_reads_ids",
        "_tokens",
    )

    def __init__(
        self, release: Release, documents_layout: DocumentsTurn | DocumentTurnPerDocument | None
    ) -> None:
        self._tokens = release.special_tokens
        self._end = release.turns.end
        self._per_document = (
            documents_layout if isinstance(documents_layout, DocumentTurnPerDocument) else None
        )
        self._document_frame = (
            self._per_document.frame(release.turns) if self._per_document else ("", "", "")
        )
        self._reads_ids = documents_layout.reads_ids if documents_layout is not None else False
        # (one turn for all documents: its header, and the headings of its first documents)
        self._documents_header = (
            release.turns.header(documents_layout.role)
            if isinstance(documents_layout, DocumentsTurn)
            else ""
        )
        self._document_headings = (
            tuple(map(documents_layout.heading, range(16)))
            if isinstance(documents_layout, DocumentsTurn)
            else ()
        )
        # The problem of a document without an id, for a release that prints ids.
        self._missing_id = (
            f"{release.name} identifies each document by its doc_id in the prompt (and the "
            "model cites documents by it): give every document a doc_id (a string or an "
            "integer)."
        )
        # (the id fields of the first documents, as many as the headings kept)
        self._id_fields = tuple(f"documents[{index}].doc_id" for index in range(16))

    def write(
        self,
        out: list[str],
        documents: Sequence[Any],
        layout: DocumentsTurn | DocumentTurnPerDocument,
        policy: SpecialTokenPolicy,
        problems: Problems,
        plain: bool,
        typed: bool,
    ) -> None:
        """Append the documents turn(s) to ``out``: a ``plain`` request's documents
        (each checked as it is read: :class:`NotPlain`), a ``typed`` request's validated
        documents (read by attribute), or mappings.

        The first documents of a usual shape are written with the fewest steps: dicts of
        ``text`` alone, or of exactly ``text``, ``doc_id`` and ``title`` (the title a
        ``str`` or null, the id an exact ``str`` when it is printed, else a plain id), the
        text and printed id exact ``str`` without the sentinel (a layout that prints ids:
        those of the first one's shape, a problem for each missing id; the one documents
        turn: its first documents of either shape, as many as its headings kept). The
        others are read one by one (:meth:`_write_each`)."""
        sentinel = self._tokens.sentinel if policy != "keep" else None
        per_document = layout is self._per_document
        if not per_document:
            out.append(self._documents_header)
        written = 0
        if not typed and sentinel is not None:
            start = len(out)
            alone = False  # (texts alone: their ids are missing)
            try:
                if not per_document:
                    for heading, document in zip(self._document_headings, documents):  # noqa: B905
                        text = document["text"]
                        if not (
                            type(text) is str
                            and sentinel not in text
                            and (
                                len(document) == 1
                                or (
                                    len(document) == 3
                                    and type(document["doc_id"]) in _ID_TYPES
                                    and type(document["title"]) in _TITLE_TYPES
                                )
                            )
                        ):
                            break
                        out += (heading, text)
                elif alone := len(documents[0]) == 1:
                    before, after, end = self._document_frame
                    for document in documents:
                        text = document["text"]
                        if len(document) != 1 or type(text) is not str or sentinel in text:
                            break
                        out += (before, "", after, text, end)
                else:
                    before, after, end = self._document_frame
                    for document in documents:
                        text = document["text"]
                        doc_id = document["doc_id"]
                        if not (
                            len(document) == 3
                            and type(text) is str
                            and type(doc_id) is str
                            and type(document["title"]) in _TITLE_TYPES
                            and sentinel not in text
                            and sentinel not in doc_id
                        ):
                            break
                        out += (before, doc_id, after, text, end)
            except (KeyError, TypeError):  # (not a dict of these keys: read one by one)
                pass
            if per_document:
                written = (len(out) - start) // 5
                if written and alone:
                    problems.add_each(self._missing_id, self._fields(written))
            else:
                written = (len(out) - start) // 2
        if written < len(documents):
            self._write_each(out, documents, written, layout, policy, problems, plain, typed)
        if not per_document:
            out.append(self._end)

    def _write_each(
        self,
        out: list[str],
        documents: Sequence[Any],
        start: int,
        layout: DocumentsTurn | DocumentTurnPerDocument,
        policy: SpecialTokenPolicy,
        problems: Problems,
        plain: bool,
        typed: bool,
    ) -> None:
        """Append the documents from index ``start`` on (see :meth:`write`), each read as
        it is when it has a usual shape, else checked (:func:`is_plain_document`) and
        read field by field."""
        sentinel = self._tokens.sentinel if policy != "keep" else None
        per_document = layout is self._per_document
        reads_ids = self._reads_ids
        before, after, end = self._document_frame
        headings = self._document_headings
        id_fields = self._id_fields
        kept = len(headings)
        for index, document in enumerate(documents[start:] if start else documents, start):
            checked = False  # (a text alone, exact str without the sentinel: written as it is)
            if typed:
                text = document.text
                doc_id = document.doc_id if reads_ids else ""
                # (no doc_id given, not even null: the text alone, as below)
                alone = doc_id is None and "doc_id" not in document.__pydantic_fields_set__
            else:
                try:  # (subscripts, faster than get(): a missing key is the slow path's)
                    text = document["text"]
                    alone = len(document) == 1  # (the text alone, as many callers send it)
                    if not alone:
                        doc_id = document["doc_id"]
                        if len(document) != 3 or type(document["title"]) not in _TITLE_TYPES:
                            text = None
                except (KeyError, TypeError):
                    text = alone = None
            if alone:
                doc_id = ""
                checked = type(text) is str and (sentinel is None or sentinel not in text)
                if checked and reads_ids:
                    # (written below as the template prints a missing id)
                    problems.add(
                        self._missing_id,
                        id_fields[index]
                        if index < len(id_fields)
                        else f"documents[{index}].doc_id",
                    )
            if not checked and (
                type(text) is not str
                or type(doc_id) is not str
                or (sentinel is not None and (sentinel in text or sentinel in doc_id))
            ):
                if plain and not is_plain_document(document):
                    raise NotPlain
                if typed:
                    document = document_data(document)
                text = self._document_text(index, document.get("text"), policy)
                doc_id = self._document_id(index, document, policy, problems) if reads_ids else ""
            if per_document:
                out += (before, doc_id, after, text, end)
            elif index < kept:
                out += (headings[index], text)
            else:
                assert isinstance(layout, DocumentsTurn)  # (the one-turn layout)
                out += (layout.heading(index), text)

    def _fields(self, count: int) -> tuple[str, ...]:
        """The ``doc_id`` fields of the first ``count`` documents."""
        if count <= len(self._id_fields):
            return self._id_fields[:count]
        return tuple(f"documents[{index}].doc_id" for index in range(count))

    def _document_text(self, index: int, text: Any, policy: SpecialTokenPolicy) -> str:
        field = f"documents[{index}].text"
        if not isinstance(text, str):
            raise InvalidRequestError(f"must be a string, not {type(text).__name__}", field=field)
        return _checked(text, field, policy, self._tokens)

    def _document_id(
        self,
        index: int,
        document: Mapping[str, Any],
        policy: SpecialTokenPolicy,
        problems: Problems,
    ) -> str:
        """A document's id as the template prints it (``doc_id | string``: missing is
        ``""``, null ``"None"``), the policy applied; a problem when it has none."""
        field = f"documents[{index}].doc_id"
        value = document.get("doc_id")
        if value is None:
            problems.add(self._missing_id, field)
            return "None" if "doc_id" in document else ""
        return _checked(_document_id(value, field), field, policy, self._tokens)
