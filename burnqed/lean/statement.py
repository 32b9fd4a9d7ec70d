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

from burnqed.lean.lexical import lex
from burnqed.lean.source import StatementError, has_sorry, lean_tokens, strip_comments

__all__ = [
    "HEADER_COMMANDS",
    "HEADER_DEFINITIONS",
    "NAME_PATTERN",
    "SAFE_OPTIONS",
    "LeanFile",
    "LeanHeader",
    "StatementError",
    "TheoremDecl",
    "assemble_file",
    "frontend_snippet",
    "has_sorry",
    "header_commands",
    "is_binder_form",
    "is_definition",
    "is_theorem_form",
    "lean_name",
    "lean_tokens",
    "parse_file",
    "parse_header",
    "parse_theorem",
    "split_decl",
    "statement_decl",
    "split_statement",
    "split_tactic_block",
    "strip_comments",
    "top_level",
]

HEADER_COMMANDS = ("open", "set_option", "namespace", "section", "end", "universe", "noncomputable section")
"""The scope commands a header may hold besides imports and definitions."""

HEADER_DEFINITIONS = ("def", "abbrev", "noncomputable def", "noncomputable abbrev")
"""The declarations a header may hold: definitions with a body (ProofNet's ``def is_topology``,
``abbrev I : Set ℝ := Icc 0 1``). A definition is checked by the kernel and only names a term:
it cannot make a false proposition provable. The theorem's meaning depends on it, which is why
the header is part of the lock hash. Axioms, instances, opaque constants, notation, macros and
anything with attributes are refused: they can change what is provable or what the text means
beyond naming a term."""

SAFE_OPTIONS = (
    "maxHeartbeats", "maxRecDepth", "synthInstance.", "linter.", "pp.", "autoImplicit", "relaxedAutoImplicit",
    "trace.", "profiler", "exponentiation.threshold", "tactic.", "checkBinderAnnotations",
)  # fmt: skip
"""Option-name prefixes a header may set: limits, printing and elaboration conveniences, nothing
that weakens checking (``checkBinderAnnotations false``, which ProofNet uses, only lets a binder
like ``[CofiniteTopology X]`` be instance-implicit without being a class; the kernel is untouched)."""

_DECL_KEYWORDS = ("theorem", "lemma", "example")
_OPEN = {"(": ")", "{": "}", "[": "]", "⦃": "⦄", "⟨": "⟩"}
_CLOSE = set(_OPEN.values())
NAME_PATTERN = re.compile(r"[^\s(){}\[\]⦃⦄:]+")
"""A declaration or binder name as it stands in source."""


@dataclass(frozen=True)
class LeanHeader:
    """A file's header: the modules it imports and the commands that follow (scope commands, definitions)."""

    imports: tuple[str, ...] = ()
    commands: tuple[str, ...] = ()

    @property
    def body(self) -> str:
        """The non-import commands, one per line (a definition may span lines)."""
        return "\n".join(self.commands)

    @property
    def scope(self) -> str:
        """The scope commands only (open, set_option, namespace, ...): what each statement's snippet repeats.

        A definition is added to a worker's environment once (frontend.process with
        inheritEnv); a snippet that declared it again would fail with "already declared".
        """
        return "\n".join(c for c in self.commands if not is_definition(c))

    @property
    def definitions(self) -> tuple[str, ...]:
        """The header's definitions, in order."""
        return tuple(c for c in self.commands if is_definition(c))

    def render(self) -> str:
        """The header as file text (imports first)."""
        lines = [f"import {module}" for module in self.imports]
        if lines and self.commands:
            lines.append("")
        lines.extend(self.commands)
        return "\n".join(lines)


def is_definition(command: str) -> bool:
    """Whether a header command is one of HEADER_DEFINITIONS."""
    words = command.split()
    return bool(words) and (words[0] in ("def", "abbrev") or words[:2] in (["noncomputable", "def"], ["noncomputable", "abbrev"]))


def header_commands(text: str) -> list[str]:
    """A header's commands (comments blanked): a line at column 0 starts one, indented and ``|`` lines continue it."""
    commands: list[list[str]] = []
    for raw in strip_comments(text).splitlines():
        if not raw.strip():
            continue
        line = raw.rstrip()
        if commands and (line[0].isspace() or line.lstrip().startswith("|")) and not line.lstrip().startswith("import "):
            commands[-1].append(line)
        else:
            commands.append([line.strip()])
    return ["\n".join(c) for c in commands]


_TACTIC_WORD = re.compile(r"(?<![\w.'])(by|run_tac|run_cmd|run_elab|unsafe|implemented_by|extern|decreasing_by)(?![\w'])")


def _check_definition(command: str) -> None:
    head = command.split("\n", 1)[0]
    if has_sorry(command):
        raise StatementError(f"header: `{head[:80]}` uses sorry: a definition with a hole leaves the statement open")
    if _TACTIC_WORD.search(command):
        raise StatementError(
            f"header: `{head[:80]}` runs tactics or meta code (`by`, `run_tac`, `unsafe`): a header's definition "
            "must be a plain term, since tactics there run before any check of the theorem"
        )
    signature = command.split(maxsplit=2 if command.startswith("noncomputable") else 1)[-1]
    if top_level(signature, ":=") < 0 and "\n|" not in command.replace("\n  |", "\n|").replace("\n |", "\n|"):
        raise StatementError(f"header: `{head[:80]}` has no body (`:=` or match arms): a definition must give its value")


# a module name: dotted Lean identifiers, a part in «guillemets» only as a plain word (no path,
# no shell): each new import set starts a worker group, so a name is checked before any starts
_MODULE_PART = r"(?:[^\W\d][\w'!?]*|«[\w'-]+»)"
_MODULE = re.compile(rf"{_MODULE_PART}(?:\.{_MODULE_PART})*")


def _module_name(module: str) -> str:
    """``module`` if it is a Lean module name; else StatementError."""
    if _MODULE.fullmatch(module) is None:
        raise StatementError(
            f"header: `import {module[:80]}` is not a module name; an import names a module as dotted "
            "Lean identifiers (`import Mathlib.Tactic`), never a path or a command"
        )
    return module


def parse_header(text: str | None) -> LeanHeader:
    """Split a header into imports and commands; StatementError naming the first command not allowed.

    Allowed: ``import`` lines first, then HEADER_COMMANDS (``set_option`` only for SAFE_OPTIONS)
    and HEADER_DEFINITIONS. One rule set for every entry: benchmark import, the pool, the MCP tools.
    """
    if not text or not text.strip():
        return LeanHeader()
    imports: list[str] = []
    commands: list[str] = []
    for command in header_commands(text):
        line = command.split("\n", 1)[0]
        if line.startswith("import "):
            if commands:
                raise StatementError(f"header: `{line}` comes after a command; imports must come first")
            for module in line.split()[1:]:
                imports.append(_module_name(module))
            continue
        if line.startswith("set_option "):
            option = line.split()[1] if len(line.split()) > 1 else ""
            if not option.startswith(SAFE_OPTIONS):
                raise StatementError(
                    f"header: option `{option}` is not allowed (allowed: {', '.join(SAFE_OPTIONS)}); "
                    "some options (debug.skipKernelTC) switch off checks a proof relies on"
                )
            if line.rstrip().endswith(" in"):
                raise StatementError(f"header: `{line[:80]}` is a prefix (`... in`), not a command")
        if any(line == cmd or line.startswith(cmd + " ") for cmd in HEADER_COMMANDS):
            if "\n" in command:
                raise StatementError(f"header: `{line[:80]}` continues on an indented line; write it on one line")
            commands.append(line)
            continue
        if is_definition(command):
            _check_definition(command)
            commands.append(command)
            continue
        raise StatementError(
            f"header: `{line[:80]}` is not allowed; a header holds imports, "
            f"{', '.join(HEADER_COMMANDS)} lines and {', '.join(HEADER_DEFINITIONS)} definitions only "
            "(an axiom, instance or macro there could change what is provable)"
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
        """The signature as Lean tokens one space apart, no name: what a changed statement differs in.

        Comments change nothing Lean reads and are dropped; ``10∣x`` and ``10 ∣ x`` are the
        same tokens, so the same statement; ``n!`` (one identifier) and ``n !`` (factorial
        notation) or ``<=`` and ``< =`` are not.
        """
        text = f"{self.binders} : {self.type}" if self.binders else self.type
        try:
            return " ".join(lean_tokens(text))
        except StatementError:
            return " ".join(text.split())  # an unterminated comment: compared as written, Lean refuses it anyway


def lean_name(name: str) -> str:
    """``name`` as a Lean identifier: as it is when it is one, else in «guillemets»."""
    if re.fullmatch(r"[A-Za-z_][\w']*(\.[A-Za-z_][\w']*)*", name):
        return name
    return "«" + name.replace("«", "").replace("»", "") + "»"


def is_theorem_form(statement: str) -> bool:
    """Whether ``statement`` starts with ``theorem``, ``lemma`` or ``example``."""
    first = strip_comments(statement).lstrip().split(maxsplit=1)
    return bool(first) and first[0] in _DECL_KEYWORDS


def is_binder_form(statement: str) -> bool:
    """Whether ``statement`` is binders then a type, ``(a b : ℕ) (h : a < b) : a + 1 ≤ b`` (no keyword).

    Not a term: Pantograph's goal.start reads ``expr`` with parseElabType, where this is a
    parse error, so it goes to Lean as a theorem through frontend.process.
    """
    try:
        clean = strip_comments(statement).strip()
        colon = top_level(clean, ":") if clean[:1] in _OPEN else -1
    except StatementError:
        return False
    if colon <= 0:
        return False
    # only bracketed binder groups may stand before the colon (`(∃ a, P) → ∃ x : T, Q` is a term)
    prefix, i = clean[:colon].rstrip(), 0
    while i < len(prefix):
        if prefix[i] not in _OPEN:
            return False
        depth = 0
        for j in range(i, len(prefix)):
            depth += prefix[j] in _OPEN
            depth -= prefix[j] in _CLOSE
            if depth == 0:
                break
        else:
            return False
        i = j + 1
        while i < len(prefix) and prefix[i].isspace():
            i += 1
    return True


def statement_decl(statement: str) -> TheoremDecl:
    """The theorem a statement stands for: theorem form as it is, binder form as its binders and type,
    a proposition as the type of a theorem without binders. StatementError when unreadable."""
    if is_theorem_form(statement):
        return parse_theorem(statement)
    if is_binder_form(statement):
        decl, proof = split_decl("example " + statement)
        if proof is not None:
            raise StatementError("a statement must not carry a proof (`:=`)")
        return TheoremDecl("theorem", None, decl.binders, decl.type)
    # comments dropped: a trailing ``-- comment`` would otherwise swallow the ``:=`` after it
    return TheoremDecl("theorem", None, "", strip_comments(statement).strip())


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
    """The text sent to ``frontend.process``: the header's scope commands, the theorem, one ``sorry`` as its proof.

    Each frontend.process starts from a fresh scope (Pantograph's createContextStateFromFile),
    so the scope commands are repeated; the header's definitions are already in the worker's
    environment and are not.
    """
    parts = [header.scope] if header.scope else []
    parts.append(f"{decl.render(SNIPPET_NAME)} := by\n  sorry")
    return "\n\n".join(parts) + "\n"


def assemble_file(header: LeanHeader, decl: TheoremDecl, tactics: Sequence[str], *, name: str | None = None) -> str:
    """A complete Lean file: header, the theorem, its tactic block (each line indented two spaces)."""
    block = "\n".join("  " + line if line.strip() else "" for tactic in tactics for line in tactic.splitlines())
    head = header.render()
    body = f"{decl.render(name)} := by\n{block}\n"
    return f"{head}\n\n{body}" if head else body


def split_statement(text: str) -> tuple[str | None, str]:
    """A statement that carries its own header (Goedel-Prover-V2's ``formal_statement``) as (header, theorem).

    The header is everything before the first line that starts a ``theorem``/``lemma``/
    ``example`` at column 0 (and the doc comment right above it, which belongs to neither);
    None when there is none (or no such line).
    """
    lines = text.splitlines()
    clean = strip_comments(text).splitlines()
    docs = [seg for seg in lex(text) if seg.kind == "doc_comment"]
    for i, line in enumerate(clean):
        if line[:1].isspace() or not line.strip():
            continue
        if line.split()[0] in _DECL_KEYWORDS:
            # a doc comment just above the theorem is the theorem's (Lean's declModifiers), not the header's
            # (dropped from both: the lock holds the theorem's text, a doc comment changes no meaning)
            at, cut = sum(len(row) + 1 for row in lines[:i]), i
            for seg in docs:
                line_start = text.rfind("\n", 0, seg.start) + 1
                if seg.end <= at and not text[seg.end : at].strip() and not text[line_start : seg.start].strip():
                    cut = text.count("\n", 0, seg.start)
            head = "\n".join(lines[:cut])
            return (head if head.strip() else None), "\n".join(lines[i:])
    return None, text


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
        # `| alt =>`, `<;> tac` and a `calc` step `_ = …` at the block's column still belong to
        # the tactic above (no tactic starts with `_`), as
        # does the line after one ending in `<;>` (the second tactic of `t <;> t'` has no
        # column check: lean4 src/Init/Tactics.lean, a trailing parser)
        joined = bool(tactics) and tactics[-1][-1].split("--")[0].rstrip().endswith("<;>")
        if not tactics or (
            len(line) - len(line.lstrip()) == indent and not text.startswith(("|", "<;>", "_ ")) and not joined
        ):
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
