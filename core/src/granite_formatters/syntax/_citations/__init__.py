"""The Granite 3 citation syntaxes: inline citation tags, citation and hallucination
sections, and the reader stage that takes them out of an answer.

Each module holds one part and words its own notes:

- :mod:`.format`: what a citation syntax declares (:class:`~.format.CitationFormat`,
  which gives the parser its reader stage) and what its citation builder receives;
- :mod:`.co_format` and :mod:`.cite_format`: the two bundled syntaxes (``<co>`` tags and
  a ``# Citations:`` section for Granite 3.1/3.2; cite tokens and plugin blocks for 3.3);
- :mod:`.reader`: the reader stage of one parse (sections, then tags), and what is built
  from them at the end;
- :mod:`.sections`, :mod:`.tag_grammar`, :mod:`.tag_remover`, :mod:`.lines`,
  :mod:`.line_patterns`: the sections, the inline tags and the citation lines;
- :mod:`.documents`, :mod:`.hallucinations`, :mod:`.sentences`, :mod:`.spans`: citations
  and hallucinations joined with the documents and the answer's sentences;
- :mod:`.stages` (the text sinks the stages are chained from) and :mod:`.notes`.

The public names (what a new citation syntax is built from) are gathered in
:mod:`granite_formatters.granite3._citations`; this package imports none of its modules,
so that declaring a release loads only what the declaration names.
"""

__all__: list[str] = []
