"""Statements in theorem form, Lean headers and whole Lean files, as text.

The field's benchmark files (miniF2F in DeepSeek-Prover's, Goedel-Prover's and Kimina's
JSON Lines) give each problem a *header* (``import Mathlib``, ``open BigOperators Real``,
``set_option maxHeartbeats 400000``) and a ``formal_statement`` in theorem form
(``theorem name (x : ℝ) (h₀ : 0 < x) : x ^ 2 > 0 := by``). Pantograph cannot take imports
in a snippet (they are fixed per process, see PANTOGRAPH.md), so a header splits into its
imports, which pick the worker group, and its other commands, which travel with the
theorem in ``frontend.process``. Only scope commands may sit in a header: a ``def``,
``axiom`` or ``instance`` there could change what the theorem means or make it provable
from nothing, so such a header is refused here, before any Lean sees it.

Everything in this module is plain text processing; nothing here decides a proof.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "HEADER_COMMANDS",
    "NAME_PATTERN",
    "SAFE_OPTIONS",
    "LeanFile",
    "LeanHeader",
    "StatementError",
    "TheoremDecl",
    "assemble_file",
    "frontend_snippet",
    "has_sorry",
    "is_theorem_form",
    "lean_name",
    "parse_file",
    "parse_header",
    "parse_theorem",
    "split_decl",
    "split_tactic_block",
    "strip_comments",
    "top_level",
]

HEADER_COMMANDS = ("open", "set_option", "namespace", "section", "end", "universe", "noncomputable section")
"""The commands a header may hold besides imports: scope only, no declarations."""

SAFE_OPTIONS = (
    "maxHeartbeats", "maxRecDepth", "synthInstance.", "linter.", "pp.", "autoImplicit", "relaxedAutoImplicit",
    "trace.", "profiler", "exponentiation.threshold", "tactic.",
)  # fmt: skip
"""Option-name prefixes a header may set: limits and printing, nothing that weakens checking."""

_DECL_KEYWORDS = ("theorem", "lemma", "example")
_OPEN = {"(": ")", "{": "}", "[": "]", "⦃": "⦄", "⟨": "⟩"}
_CLOSE = set(_OPEN.values())
_SORRY = re.compile(r"(?<![\w.'])(sorry|admit)(?![\w'])")
NAME_PATTERN = re.compile(r"[^\s(){}\[\]⦃⦄:]+")
"""A declaration or binder name as it stands in source."""


class StatementError(ValueError):
    """Text that is not a header, a theorem in theorem form, or a Lean file of the shape burnqed checks."""


def strip_comments(text: str) -> str:
    """``text`` with Lean comments (``--`` to end of line, nested ``/- -/``) blanked out, offsets kept."""
    out: list[str] = []
    i, depth, n = 0, 0, len(text)
    while i < n:
        if depth == 0 and text.startswith("--", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            out.append(" " * (end - i))
            i = end
        elif text.startswith("/-", i):
            depth += 1
            out.append("  ")
            i += 2
        elif depth and text.startswith("-/", i):
            depth -= 1
            out.append("  ")
            i += 2
        elif depth:
            out.append("\n" if text[i] == "\n" else " ")
            i += 1
        elif text[i] == '"':
            end = i + 1
            while end < n and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            out.append(text[i : end + 1])
            i = end + 1
        else:
            out.append(text[i])
            i += 1
    if depth:
        raise StatementError("unterminated /- comment")
    return "".join(out)


def has_sorry(text: str) -> bool:
    """Whether ``text`` (comments aside) uses ``sorry`` or ``admit``."""
    return _SORRY.search(strip_comments(text)) is not None


@dataclass(frozen=True)
class LeanHeader:
    """A file's header: the modules it imports and the scope commands that follow."""

    imports: tuple[str, ...] = ()
    commands: tuple[str, ...] = ()

    @property
    def body(self) -> str:
        """The non-import commands, one per line: what is sent with a theorem."""
        return "\n".join(self.commands)

    def render(self) -> str:
        """The header as file text (imports first)."""
        lines = [f"import {module}" for module in self.imports]
        if lines and self.commands:
            lines.append("")
        lines.extend(self.commands)
        return "\n".join(lines)


def parse_header(text: str | None) -> LeanHeader:
    """Split a header into imports and scope commands; StatementError for anything else."""
    if not text or not text.strip():
        return LeanHeader()
    imports: list[str] = []
    commands: list[str] = []
    for raw in strip_comments(text).splitlines():
        line = raw.strip()
        if not line:
            continue
        if line.startswith("import "):
            if commands:
                raise StatementError(f"header: `{line}` comes after a command; imports must come first")
            imports.extend(line.split()[1:])
            continue
        if line.startswith("set_option "):
            option = line.split()[1] if len(line.split()) > 1 else ""
            if not option.startswith(SAFE_OPTIONS):
                raise StatementError(
                    f"header: option `{option}` is not allowed (allowed: {', '.join(SAFE_OPTIONS)}); "
                    "some options (debug.skipKernelTC) switch off checks a proof relies on"
                )
        if any(line == cmd or line.startswith(cmd + " ") for cmd in HEADER_COMMANDS):
            commands.append(line)
            continue
        raise StatementError(
            f"header: `{line[:80]}` is not allowed; a header holds imports and "
            f"{', '.join(HEADER_COMMANDS)} lines only (a declaration there could change what the theorem means)"
        )
    return LeanHeader(tuple(imports), tuple(commands))


@dataclass(frozen=True)
class TheoremDecl:
    """A theorem's signature: keyword, name, binders and type (no proof)."""

    keyword: str
    name: str | None
    binders: str
    type: str

    @property
    def proposition(self) -> str:
        """The signature as one term, for goal.start: ``binders : type`` or the type alone."""
        return f"{self.binders} : {self.type}" if self.binders else self.type

    def render(self, name: str | None = None) -> str:
        """``theorem NAME BINDERS : TYPE`` (``example`` keeps no name)."""
        keyword = "theorem" if self.keyword == "lemma" else self.keyword
        parts = [keyword]
        if keyword != "example":
            parts.append(name or self.name or SNIPPET_NAME)
        if self.binders:
            parts.append(self.binders)
        return " ".join(parts) + f" : {self.type}"

    def normalized(self) -> str:
        """The signature with whitespace collapsed and no name: what a changed statement differs in."""
        return " ".join(f"{self.binders} : {self.type}".split()) if self.binders else " ".join(self.type.split())


def lean_name(name: str) -> str:
    """``name`` as a Lean identifier: as it is when it is one, else in «guillemets»."""
    if re.fullmatch(r"[A-Za-z_][\w']*(\.[A-Za-z_][\w']*)*", name):
        return name
    return "«" + name.replace("«", "").replace("»", "") + "»"


def is_theorem_form(statement: str) -> bool:
    """Whether ``statement`` starts with ``theorem``, ``lemma`` or ``example``."""
    first = strip_comments(statement).lstrip().split(maxsplit=1)
    return bool(first) and first[0] in _DECL_KEYWORDS


def top_level(text: str, target: str, start: int = 0) -> int:
    """Index of the first ``target`` at bracket depth 0 from ``start``, or -1."""
    depth = 0
    i = start
    while i < len(text):
        ch = text[i]
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth -= 1
            if depth < 0:
                raise StatementError(f"unbalanced `{ch}` at offset {i}")
        elif depth == 0 and text.startswith(target, i):
            if target == ":" and text.startswith(":=", i):
                i += 2
                continue
            return i
        i += 1
    return -1


def split_decl(text: str) -> tuple[TheoremDecl, str | None]:
    """The signature of a declaration and the text after its ``:=`` (None when there is none)."""
    clean = strip_comments(text).strip()
    keyword, _, rest = clean.partition(" ")
    if keyword not in _DECL_KEYWORDS:
        raise StatementError(f"expected `theorem`, `lemma` or `example`, found `{keyword[:40]}`")
    rest = rest.strip()
    if top_level(rest + "\0", "\0") < 0:
        raise StatementError("unbalanced brackets in the declaration")
    name: str | None = None
    if keyword != "example":
        match = NAME_PATTERN.match(rest)
        if match is None:
            raise StatementError(f"`{keyword}` needs a name")
        name, rest = match.group(0), rest[match.end() :].strip()
    assign = top_level(rest, ":=")
    signature, proof = (rest, None) if assign < 0 else (rest[:assign], rest[assign + 2 :])
    colon = top_level(signature, ":")
    if colon < 0:
        raise StatementError(f"the signature of {name or 'the example'} has no `:` before its type")
    binders, type_ = " ".join(signature[:colon].split()), signature[colon + 1 :].strip()
    if binders and binders[0] not in _OPEN:
        raise StatementError(f"binders must be bracketed groups like `(x : ℕ)`, got `{binders[:40]}`")
    if not type_:
        raise StatementError(f"{name or 'the example'} has an empty type")
    return TheoremDecl(keyword, name, binders, type_), proof


def parse_theorem(statement: str) -> TheoremDecl:
    """The signature of a theorem-form statement; a trailing ``:= by`` / ``:= by sorry`` is dropped.

    Anything else after ``:=`` is a proof, not a statement, and is refused.
    """
    decl, proof = split_decl(statement)
    if proof is not None:
        rest = proof.split()
        if rest not in ([], ["by"], ["sorry"], ["by", "sorry"]):
            raise StatementError("a statement ends at `:= by` (or `:= by sorry`); it must not carry a proof")
    if has_sorry(decl.proposition):
        raise StatementError("a statement must not contain sorry")
    return decl


SNIPPET_NAME = "burnqed_goal"
"""The name a theorem takes in a frontend.process snippet: its own name may clash with one in the environment."""


def frontend_snippet(header: LeanHeader, decl: TheoremDecl) -> str:
    """The text sent to ``frontend.process``: header commands, the theorem, one ``sorry`` as its proof."""
    parts = [header.body] if header.commands else []
    parts.append(f"{decl.render(SNIPPET_NAME)} := by\n  sorry")
    return "\n\n".join(parts) + "\n"


def assemble_file(header: LeanHeader, decl: TheoremDecl, tactics: Sequence[str], *, name: str | None = None) -> str:
    """A complete Lean file: header, the theorem, its tactic block (each line indented two spaces)."""
    block = "\n".join("  " + line if line.strip() else "" for tactic in tactics for line in tactic.splitlines())
    head = header.render()
    body = f"{decl.render(name)} := by\n{block}\n"
    return f"{head}\n\n{body}" if head else body


def split_tactic_block(block: str) -> list[str]:
    """Tactics of a ``by`` block: a line at the block's indentation starts one, deeper lines continue it."""
    lines = [line.rstrip() for line in block.splitlines()]
    content = [line for line in lines if line.strip()]
    if not content:
        return []
    indent = min(len(line) - len(line.lstrip()) for line in content)
    tactics: list[list[str]] = []
    for line in lines:
        if not line.strip():
            continue
        text = line[indent:]
        # `| alt =>` and `<;> tac` at the block's column still belong to the tactic above
        if not tactics or (len(line) - len(line.lstrip()) == indent and not text.startswith(("|", "<;>"))):
            tactics.append([text])
        else:
            tactics[-1].append(text)
    return ["\n".join(t) for t in tactics]


@dataclass(frozen=True)
class LeanFile:
    """A parsed proof file: header, the one theorem, its tactics."""

    header: LeanHeader
    decl: TheoremDecl
    tactics: tuple[str, ...]


def parse_file(text: str) -> LeanFile:
    """Parse a file of the shape burnqed writes: header, then exactly one theorem proved ``by`` tactics.

    A second declaration, an ``axiom``, a ``def`` or any other command is refused: the file
    must say nothing but the theorem and its proof.
    """
    clean = strip_comments(text)
    lines = clean.splitlines()
    start = next(
        (i for i, line in enumerate(lines) if line.strip().split(maxsplit=1)[:1] and line.split()[0] in _DECL_KEYWORDS),
        None,
    )
    if start is None:
        raise StatementError("the file has no theorem")
    header = parse_header("\n".join(lines[:start]))
    decl_text = "\n".join(lines[start:])
    for lineno, line in enumerate(lines[start + 1 :], start=start + 2):
        if line and not line[0].isspace() and line.strip():
            raise StatementError(
                f"line {lineno}: `{line.strip()[:60]}` starts a second command; the file must hold one theorem only"
            )
    decl, proof = split_decl(decl_text)
    if proof is None:
        raise StatementError(f"{decl.name or 'the example'} has no proof (`:=` missing)")
    body = proof.lstrip(" \t")
    if not body.startswith("by"):
        raise StatementError("the proof must be a tactic block (`:= by` ...)")
    block = body[2:]
    if block and not block[0].isspace():
        raise StatementError("the proof must be a tactic block (`:= by` ...)")
    first, _, rest = block.partition("\n")
    tactics = ([first.strip()] if first.strip() else []) + split_tactic_block(rest)
    if not tactics:
        raise StatementError(f"{decl.name or 'the example'} has an empty tactic block")
    return LeanFile(header, decl, tuple(tactics))
