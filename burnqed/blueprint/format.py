"""BLUEPRINT.md text ⇄ Blueprint: a parser with line numbers and a writer that round-trips.

Layout of one entry (anything before the first entry heading is a free preamble)::

    # theorem add_zero

    ## meta
    - label: add_zero
    - uses: nat_basics
    - status: todo
    - attempts: 0 / 3
    - statement_sha: 5f1c…

    ## statement
    ```lean
    ∀ (n : Nat), n + 0 = n
    ```

    ## notes
    free text

An unchanged entry is written back with its exact original text, so a file that nothing
changed round-trips byte for byte; a changed entry is rendered canonically, keeping its
unknown meta fields and sections. Headings inside code fences are not headings.
"""

from __future__ import annotations

import re

from burnqed.blueprint.errors import BlueprintParseError
from burnqed.blueprint.model import (
    ENTRY_KINDS,
    LABEL_PATTERN,
    Blueprint,
    Entry,
    Section,
)

__all__ = ["parse_blueprint", "render_blueprint", "render_entry"]

_ENTRY_HEADING = re.compile(r"^#[ \t]+(\S+)[ \t]+(\S+)[ \t]*$")
_SECTION_HEADING = re.compile(r"^##[ \t]+(.+?)[ \t]*$")
_META_ITEM = re.compile(r"^[-*][ \t]+([A-Za-z_][\w-]*)[ \t]*:[ \t]*(.*?)[ \t]*$")
_FENCE = re.compile(r"^[ \t]*(```|~~~)")
_LINES = re.compile(r"[^\n]*\n|[^\n]+\Z")


def _split_lines(text: str) -> list[str]:
    """Lines with their '\\n' kept (only '\\n' splits, unlike str.splitlines)."""
    return _LINES.findall(text)


def _strip(line: str) -> str:
    return line.rstrip("\r\n")


def parse_blueprint(text: str, source: str | None = None) -> Blueprint:
    """Parse BLUEPRINT.md text; structural problems raise BlueprintParseError with the line."""
    lines = _split_lines(text)
    # (line index, kind, label) of every entry heading outside code fences
    starts: list[tuple[int, str, str]] = []
    in_fence = False
    for i, line in enumerate(lines):
        bare = _strip(line)
        if _FENCE.match(bare):
            in_fence = not in_fence
            continue
        if in_fence or not bare.startswith("# "):
            continue
        match = _ENTRY_HEADING.match(bare)
        if match and match.group(1) in ENTRY_KINDS:
            starts.append((i, match.group(1), match.group(2)))
        elif starts:
            raise BlueprintParseError(
                f"heading {bare!r} is not '# <kind> <label>' with kind in {', '.join(ENTRY_KINDS)}", i + 1, source
            )
    end = len(lines)
    blueprint = Blueprint(preamble="".join(lines[: starts[0][0] if starts else end]), source=source)
    for n, (start, kind, label) in enumerate(starts):
        stop = starts[n + 1][0] if n + 1 < len(starts) else end
        if not LABEL_PATTERN.match(label):
            raise BlueprintParseError(f"bad label {label!r}", start + 1, source)
        if label in blueprint.lines:
            raise BlueprintParseError(
                f"duplicate label {label!r} (first at line {blueprint.lines[label]})", start + 1, source
            )
        entry = _parse_entry(lines, start, stop, kind, label, source)
        blueprint.entries.append(entry)
        blueprint.originals[label] = (entry, "".join(lines[start:stop]))
        blueprint.lines[label] = start + 1
    return blueprint


def _parse_entry(lines: list[str], start: int, stop: int, kind: str, label: str, source: str | None) -> Entry:
    # section boundaries inside the entry (outside fences)
    heads: list[tuple[int, str]] = []
    in_fence = False
    for i in range(start + 1, stop):
        bare = _strip(lines[i])
        if _FENCE.match(bare):
            in_fence = not in_fence
            continue
        if not in_fence:
            match = _SECTION_HEADING.match(bare)
            if match:
                heads.append((i, match.group(1)))
    intro = "".join(lines[start + 1 : heads[0][0] if heads else stop])
    meta: dict[str, str] | None = None
    statement: str | None = None
    sections: list[Section] = []
    for n, (head, name) in enumerate(heads):
        body_end = heads[n + 1][0] if n + 1 < len(heads) else stop
        if name == "meta":
            if meta is not None:
                raise BlueprintParseError(f"{label}: second '## meta' section", head + 1, source)
            meta = _parse_meta(lines, head + 1, body_end, source)
        elif name == "statement":
            if statement is not None:
                raise BlueprintParseError(f"{label}: second '## statement' section", head + 1, source)
            statement = _parse_statement(lines, head + 1, body_end, label, source)
        else:
            sections.append(Section(name=name, body="".join(lines[head + 1 : body_end])))
    meta = meta if meta is not None else {}
    if "label" in meta and meta["label"] != label:
        raise BlueprintParseError(
            f"meta label {meta['label']!r} differs from the heading's {label!r}", start + 1, source
        )
    return Entry.model_validate(
        {"kind": kind, "label": label, "meta": meta, "statement": statement, "intro": intro, "sections": sections}
    )


def _parse_meta(lines: list[str], begin: int, end: int, source: str | None) -> dict[str, str]:
    meta: dict[str, str] = {}
    for i in range(begin, end):
        bare = _strip(lines[i])
        if not bare.strip() or bare.lstrip().startswith("<!--"):
            continue
        match = _META_ITEM.match(bare)
        if match is None:
            raise BlueprintParseError(f"meta line {bare!r} is not '- key: value'", i + 1, source)
        key, value = match.group(1), match.group(2)
        if key in meta:
            raise BlueprintParseError(f"meta field {key!r} given twice", i + 1, source)
        meta[key] = value
    return meta


def _parse_statement(lines: list[str], begin: int, end: int, label: str, source: str | None) -> str:
    body = [_strip(line) for line in lines[begin:end]]
    fence_at = [i for i, line in enumerate(body) if _FENCE.match(line)]
    if not fence_at:
        text = "\n".join(body).strip()
    elif len(fence_at) < 2:
        raise BlueprintParseError(f"{label}: unclosed code fence in the statement", begin + fence_at[0] + 1, source)
    else:
        text = "\n".join(body[fence_at[0] + 1 : fence_at[1]]).strip("\n")
    if not text.strip():
        raise BlueprintParseError(f"{label}: empty statement", begin, source)
    return text


def render_entry(entry: Entry) -> str:
    """The canonical text of one entry (ends with one newline)."""
    out = [f"# {entry.kind} {entry.label}", ""]
    if entry.intro.strip():
        out += [entry.intro.strip("\n"), ""]
    out.append("## meta")
    out += [f"- {key}: {value}" if value else f"- {key}:" for key, value in entry.meta.items()]
    out.append("")
    if entry.statement is not None:
        out += ["## statement", "```lean", entry.statement, "```", ""]
    for section in entry.sections:
        out.append(f"## {section.name}")
        body = section.body.strip("\n")
        if body:
            out.append(body)
        out.append("")
    return "\n".join(out)


def render_blueprint(blueprint: Blueprint) -> str:
    """The blueprint as text: unchanged entries verbatim, changed or new ones canonical."""
    chunks: list[tuple[str, bool]] = [(blueprint.preamble, True)]
    for entry in blueprint.entries:
        original = blueprint.originals.get(entry.label)
        if original is not None and original[0] == entry:
            chunks.append((original[1], True))
        else:
            chunks.append((render_entry(entry), False))
    text = ""
    prev_verbatim = True
    for chunk, verbatim in chunks:
        if text and chunk and not (verbatim and prev_verbatim):
            # a rendered chunk next to anything: keep one blank line between them
            if not text.endswith("\n"):
                text += "\n"
            if not text.endswith("\n\n"):
                text += "\n"
        text += chunk
        prev_verbatim = verbatim
    return text
