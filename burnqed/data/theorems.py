"""Theorem sets: one JSON Lines format (name, statement, optional header and reference proof, source, tags).

A statement is a proposition (``∀ (n : Nat), n + 0 = n``) or a theorem in theorem form
(``theorem t (x : ℕ) (h : 0 < x) : 1 ≤ x := by``, as the field's benchmark files give
it); ``header`` holds the file header it needs (imports, ``open``, ``set_option``).
"""

from __future__ import annotations

import hashlib
import json
import os
import unicodedata
from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from burnqed.data.minif2f import is_minif2f_record, minif2f_fields
from burnqed.lean.source import lean_tokens
from burnqed.lean.statement import StatementError, assemble_file, lean_name, parse_header, statement_decl
from burnqed.lean.target import ProofTarget

__all__ = [
    "BY_NAME_TAG",
    "Theorem",
    "TheoremSetError",
    "legacy_statement_sha",
    "load_theorems",
    "lock_shas",
    "locked_sha",
    "matches_lock",
    "read_text",
    "save_theorems",
    "statement_sha",
]


# a theorem with this tag is proved by its constant's name (goal.start copyFrom), not its statement
BY_NAME_TAG = "by-name"


class TheoremSetError(ValueError):
    """A theorem-set file is missing or malformed (the message names the line)."""


def statement_sha(statement: str) -> str:
    """SHA-256 of a statement's Lean tokens, one space apart, after NFC normalisation (the lock hash).

    Token by token, never more loosely: ``10∣x`` and ``10 ∣ x`` (or a comment) hash alike,
    ``n!`` and ``n !`` or ``<=`` and ``< =`` do not. A text the tokenizer cannot read (an
    unterminated comment) falls back to its whitespace-collapsed form, which Lean refuses anyway.
    """
    text = unicodedata.normalize("NFC", statement)
    try:
        normal = " ".join(lean_tokens(text))
    except StatementError:
        normal = " ".join(text.split())
    return hashlib.sha256(normal.encode("utf-8")).hexdigest()


def legacy_statement_sha(statement: str) -> str:
    """The lock hash ledgers written before the token hash hold: NFC, whitespace collapsed."""
    normal = " ".join(unicodedata.normalize("NFC", statement).split())
    return hashlib.sha256(normal.encode("utf-8")).hexdigest()


def locked_sha(statement: str, header: str | None) -> str:
    """The lock hash of a statement under its header (the statement's own hash when there is none)."""
    return statement_sha(statement) if not header else statement_sha(f"{header}\n{statement}")


def lock_shas(statement: str, header: str | None = None) -> frozenset[str]:
    """Every hash that locks this statement: the token hash and the legacy one."""
    text = statement if not header else f"{header}\n{statement}"
    return frozenset({statement_sha(text), legacy_statement_sha(text)})


def matches_lock(statement: str, sha: str, header: str | None = None, *, locked_text: str | None = None) -> bool:
    """Whether ``sha`` (a lock, a ledger line, a claim) locks this statement: its hash, new or
    legacy, or, given the text the lock was made from (``locked_text``), a lock of that text
    whose tokens equal this statement's (a legacy lock vouches only for its exact spacing)."""
    if sha in lock_shas(statement, header):
        return True
    return (
        locked_text is not None
        and sha in lock_shas(locked_text, header)
        and locked_sha(locked_text, header) == locked_sha(statement, header)
    )


class Theorem(BaseModel):
    """One theorem of a set."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1)
    statement: str = Field(
        min_length=1, description="a Lean 4 proposition ('∀ (n : Nat), n + 0 = n') or a theorem in theorem form"
    )
    header: str | None = Field(default=None, description="file header: imports, open and set_option lines")
    proof: list[str] | None = Field(default=None, description="reference proof: a tactic list")
    source: str = ""
    tags: list[str] = Field(default_factory=list)
    split: str | None = Field(default=None, description="benchmark split (valid, test, ...) when imported")
    informal: str | None = Field(default=None, description="the problem in natural language, when given")

    @field_validator("name", "statement", "header")
    @classmethod
    def _no_control_characters(cls, value: str | None) -> str | None:
        # a NUL or other control byte cannot reach Lean intact: refuse it here, by name
        if value is None:
            return None
        bad = next((c for c in value if unicodedata.category(c) == "Cc" and c not in "\n\t\r"), None)
        if bad is not None:
            raise ValueError(f"contains the control character U+{ord(bad):04X}; remove it")
        if not value.strip():
            raise ValueError("is blank")
        return value

    def lean_file(self, tactics: list[str]) -> str:
        """The complete Lean file of a proof of this theorem: header, the theorem under its name, the tactics."""
        decl = statement_decl(self.statement)
        return assemble_file(parse_header(self.header), decl, tactics, name=lean_name(self.name))

    @property
    def target(self) -> ProofTarget:
        """What a proof of this theorem is of: its constant's name when tagged ``by-name``, else its
        statement and header (the one place that tag is read)."""
        if BY_NAME_TAG in self.tags:
            return ProofTarget.named(self.name)
        return ProofTarget.of(self.statement, self.header)

    @property
    def sha(self) -> str:
        """The lock hash: of the statement, and of its header when it has one."""
        return locked_sha(self.statement, self.header)


def _leandojo_problem(path: Path, lineno: int, obj: object) -> TheoremSetError | None:
    """The error for a LeanDojo record read as a theorem set (it holds tactic pairs, not statements)."""
    record = obj[0] if isinstance(obj, list) and obj else obj
    if isinstance(record, dict) and ("traced_tactics" in record or "full_name" in record) and not (
        "statement" in record or "formal_statement" in record
    ):
        return TheoremSetError(
            f"{path}:{lineno}: this is LeanDojo traced-tactic data (full_name, traced_tactics), not a theorem set: "
            f"it gives (state, tactic) pairs for fine-tuning; convert it with `burnqed data import --format leandojo "
            f"{path} --out pairs.jsonl` and train with `burnqed policy sft --pairs pairs.jsonl`; --theorems reads "
            "JSON Lines of {name, statement} or a miniF2F-style benchmark file"
        )
    return None


def read_text(path: Path, what: str) -> str:
    """The UTF-8 text of a theorem or statement file; TheoremSetError naming ``what`` when it is missing or not text."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise TheoremSetError(f"{what} not found: {path}") from exc
    except UnicodeDecodeError as exc:
        raise TheoremSetError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from exc


def load_theorems(
    path: str | Path, *, split: str | None = None, skipped: list[tuple[int, str]] | None = None
) -> list[Theorem]:
    """Read a theorem set (JSON Lines); blank lines and lines starting with '//' are skipped.

    Lines in the field's benchmark format (``formal_statement``, ``header``: burnqed.data.minif2f)
    are read as such, so a downloaded miniF2F file works as it is; ``split`` keeps one split.
    With ``skipped`` given, a line that cannot be imported (a refused statement or header) is
    appended to it as (line number, reason) instead of failing the whole file, and a repeated
    name is imported as ``name~2`` (noted there too).
    """
    path = Path(path)
    text = read_text(path, "theorem set")
    theorems: list[Theorem] = []
    seen: set[str] = set()
    renamed: list[tuple[int, str]] = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("//"):
            continue
        try:
            obj = json.loads(line)
        except ValueError as exc:
            if lineno == 1 and line.strip() in ("[", "[{"):
                leandojo = _leandojo_array(path, text)
                if leandojo is not None:
                    raise leandojo from exc
            raise TheoremSetError(f"{path}:{lineno}: not JSON: {exc}") from exc
        if isinstance(obj, str):
            obj = {"name": f"line{lineno}", "statement": obj}  # a JSONL of plain statements
        elif isinstance(obj, dict) and "name" not in obj and not is_minif2f_record(obj) and "statement" in obj:
            obj = {"name": f"line{lineno}", **obj}
        leandojo = _leandojo_problem(path, lineno, obj)
        if leandojo is not None:
            raise leandojo
        try:
            thm = Theorem.model_validate(minif2f_fields(obj, source=path.stem) if is_minif2f_record(obj) else obj)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(x) for x in first.get("loc", ()))
            msg = first.get("msg")
            if where == "statement" and first.get("type") == "missing":
                msg = "needs a `statement` (or a `formal_statement` in the benchmark format)"
            if skipped is not None:
                skipped.append((lineno, f"{where}: {msg}"))
                continue
            raise TheoremSetError(f"{path}:{lineno}: {where}: {msg}") from exc
        except ValueError as exc:
            if skipped is not None:
                skipped.append((lineno, str(exc)))
                continue
            raise TheoremSetError(f"{path}:{lineno}: {exc}") from exc
        if thm.name in seen:
            if skipped is None:
                raise TheoremSetError(f"{path}:{lineno}: duplicate theorem name {thm.name!r}")
            # ProofNet reuses exercise numbers across its textbooks: another problem, same name
            copy = next(f"{thm.name}~{k}" for k in range(2, len(seen) + 3) if f"{thm.name}~{k}" not in seen)
            renamed.append((lineno, f"duplicate theorem name {thm.name!r}: imported as {copy!r}"))
            thm = thm.model_copy(update={"name": copy})
        seen.add(thm.name)
        if split is None or thm.split == split:
            theorems.append(thm)
    if split is not None and not theorems:
        raise TheoremSetError(f"{path}: no theorem of split {split!r}")
    if skipped is not None:
        skipped.extend(renamed)
        skipped.sort()
    return theorems


def _leandojo_array(path: Path, text: str) -> TheoremSetError | None:
    try:
        whole = json.loads(text)
    except ValueError:
        return None
    return _leandojo_problem(path, 1, whole)


def save_theorems(path: str | Path, theorems: Iterable[Theorem]) -> None:
    """Write a theorem set atomically (temp file + rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        for thm in theorems:
            fh.write(json.dumps(thm.model_dump(exclude_none=True), ensure_ascii=False) + "\n")
    os.replace(tmp, path)
