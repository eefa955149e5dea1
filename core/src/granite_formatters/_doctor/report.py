"""The doctor's findings: a record per template, as a terminal table or as JSON."""

from __future__ import annotations

from typing import Any

import attrs

from .behaviour import Behaviour, Capabilities
from .identify import TextMatch
from .modelfile import Modelfile

__all__ = ["DoctorReport", "TemplateReport"]


@attrs.frozen
class TemplateReport:
    """One chat template: its text match, its behaviour against the nearest (or the
    chosen) model, every release's count of differing probes, its capabilities, and
    notes on what the comparison could not see."""

    name: str
    text: TextMatch | None
    behaviour: Behaviour
    nearest: tuple[str, ...]
    per_release: tuple[tuple[str, int], ...]
    capabilities: Capabilities
    notes: tuple[str, ...] = ()


@attrs.frozen
class DoctorReport:
    """Everything the doctor found at a path."""

    path: str
    kind: str
    references: str | None
    templates: tuple[TemplateReport, ...] = ()
    modelfile: Modelfile | None = None

    def to_json(self) -> dict[str, Any]:
        """The report as JSON-ready data."""
        return {
            "path": self.path,
            "kind": self.kind,
            "references": self.references,
            "templates": [_template_json(t) for t in self.templates],
            "modelfile": None if self.modelfile is None else _modelfile_json(self.modelfile),
        }

    def to_text(self, colour: bool = False) -> str:
        """The report as a table and the first differences, coloured when asked."""
        lines = [f"{self.path} ({self.kind})"]
        if self.templates:
            rows = [["template", "text", "behaves as", "probes differ", "tools", "thinking"]]
            for t in self.templates:
                rows.append(
                    [
                        t.name,
                        _text_cell(t.text),
                        _release_cell(t),
                        f"{len(t.behaviour.differing)} of {t.behaviour.total} "
                        f"({t.behaviour.model})",
                        "yes" if t.capabilities.tools else "no",
                        t.capabilities.thinking or "no",
                    ]
                )
            lines += _table(rows)
            if self.references is None and any(t.per_release for t in self.templates):
                lines.append(
                    "(no reference templates: give --templates DIR or set "
                    "GRANITE_FORMATTERS_SHARED for the text comparison)"
                )
            for t in self.templates:
                lines += _details(t, colour)
        if self.modelfile is not None:
            lines += _modelfile_lines(self.modelfile)
        return "\n".join(lines) + "\n"


def _release_cell(t: TemplateReport) -> str:
    """The release the template behaves as; "nearest" when even that one differs."""
    if not t.nearest:
        return "-"
    names = " = ".join(t.nearest)
    return names if dict(t.per_release)[t.nearest[0]] == 0 else f"nearest {names}"


def _text_cell(match: TextMatch | None) -> str:
    if match is None:
        return "-"
    names = " = ".join(match.references)
    if match.verdict == "drifted":
        return f"drifted from {names} ({match.similarity:.1%} of lines)"
    if match.verdict == "whitespace":
        return f"{names} but for whitespace"
    return f"{match.verdict}: {names}"


def _table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]


def _coloured(line: str, colour: bool) -> str:
    if not colour or line.startswith(("+++", "---")):
        return line
    if line.startswith("+"):
        return f"\x1b[32m{line}\x1b[0m"
    if line.startswith("-"):
        return f"\x1b[31m{line}\x1b[0m"
    if line.startswith("@@"):
        return f"\x1b[36m{line}\x1b[0m"
    return line


def _details(t: TemplateReport, colour: bool) -> list[str]:
    lines: list[str] = []
    if t.notes:
        lines += ["", *(f"{t.name}: note: {note}" for note in t.notes)]
    if t.text is not None and t.text.diff:
        lines += ["", f"{t.name}: drifted lines against {t.text.references[0]}:"]
        lines += [_coloured(line, colour) for line in t.text.diff]
    if t.behaviour.differing:
        lines += [
            "",
            f"{t.name}: {t.behaviour.summary} from {t.behaviour.model}'s: "
            + ", ".join(t.behaviour.differing),
        ]
        for diff in t.behaviour.diffs:
            lines += [_coloured(line, colour) for line in diff]
    return lines


def _modelfile_lines(m: Modelfile) -> list[str]:
    rows = [
        ["FROM", m.source or "-"],
        ["TEMPLATE", "present" if m.template is not None else "absent"],
        ["RENDERER", m.renderer or "-"],
        ["PARSER", m.parser or "-"],
        ["stop", ", ".join(repr(s) for s in m.stops) or "-"],
        ["tools", "yes" if m.tools else "no"],
        ["thinking", "yes" if m.thinking else "no"],
    ]
    lines = _table(rows)
    lines += [
        "",
        *m.notes,
        "",
        "to send the exact prompt instead (Ollama's raw mode):",
        "  " + m.serve_command,
    ]
    return lines


def _template_json(t: TemplateReport) -> dict[str, Any]:
    return {
        "name": t.name,
        "text": None
        if t.text is None
        else {
            "verdict": t.text.verdict,
            "references": list(t.text.references),
            "similarity": round(t.text.similarity, 4),
            "diff": list(t.text.diff),
        },
        "behaves_as": list(t.nearest),
        "behaviour": {
            "model": t.behaviour.model,
            "probes": t.behaviour.total,
            "differing": list(t.behaviour.differing),
            "diffs": ["\n".join(d) for d in t.behaviour.diffs],
        },
        "per_release": dict(t.per_release),
        "capabilities": {"tools": t.capabilities.tools, "thinking": t.capabilities.thinking},
        "notes": list(t.notes),
    }


def _modelfile_json(m: Modelfile) -> dict[str, Any]:
    return {
        "from": m.source,
        "template": m.template,
        "renderer": m.renderer,
        "parser": m.parser,
        "stop": list(m.stops),
        "tools": m.tools,
        "thinking": m.thinking,
        "notes": list(m.notes),
        "serve_command": m.serve_command,
    }
