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
from burnqed.lean.statement import TheoremDecl, assemble_file, is_theorem_form, lean_name, parse_header, parse_theorem

__all__ = ["Theorem", "TheoremSetError", "load_theorems", "locked_sha", "save_theorems", "statement_sha"]


class TheoremSetError(ValueError):
    """A theorem-set file is missing or malformed (the message names the line)."""


def statement_sha(statement: str) -> str:
    """SHA-256 of a statement after NFC normalisation and whitespace collapsing (the lock hash)."""
    normal = " ".join(unicodedata.normalize("NFC", statement).split())
    return hashlib.sha256(normal.encode("utf-8")).hexdigest()


def locked_sha(statement: str, header: str | None) -> str:
    """The lock hash of a statement under its header (the statement's own hash when there is none)."""
    return statement_sha(statement) if not header else statement_sha(f"{header}\n{statement}")


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
        decl = (
            parse_theorem(self.statement)
            if is_theorem_form(self.statement)
            else TheoremDecl("theorem", None, "", self.statement)
        )
        return assemble_file(parse_header(self.header), decl, tactics, name=lean_name(self.name))

    @property
    def sha(self) -> str:
        """The lock hash: of the statement, and of its header when it has one."""
        return locked_sha(self.statement, self.header)


def load_theorems(path: str | Path, *, split: str | None = None) -> list[Theorem]:
    """Read a theorem set (JSON Lines); blank lines and lines starting with '//' are skipped.

    Lines in the field's benchmark format (``formal_statement``, ``header``: burnqed.data.minif2f)
    are read as such, so a downloaded miniF2F file works as it is; ``split`` keeps one split.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise TheoremSetError(f"theorem set not found: {path}") from exc
    except UnicodeDecodeError as exc:
        raise TheoremSetError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    theorems: list[Theorem] = []
    seen: set[str] = set()
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("//"):
            continue
        try:
            obj = json.loads(line)
        except ValueError as exc:
            raise TheoremSetError(f"{path}:{lineno}: not JSON: {exc}") from exc
        try:
            thm = Theorem.model_validate(minif2f_fields(obj, source=path.stem) if is_minif2f_record(obj) else obj)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(x) for x in first.get("loc", ()))
            msg = first.get("msg")
            if where == "statement" and first.get("type") == "missing":
                msg = "needs a `statement` (or a `formal_statement` in the benchmark format)"
            raise TheoremSetError(f"{path}:{lineno}: {where}: {msg}") from exc
        except ValueError as exc:
            raise TheoremSetError(f"{path}:{lineno}: {exc}") from exc
        if thm.name in seen:
            raise TheoremSetError(f"{path}:{lineno}: duplicate theorem name {thm.name!r}")
        seen.add(thm.name)
        if split is None or thm.split == split:
            theorems.append(thm)
    if split is not None and not theorems:
        raise TheoremSetError(f"{path}: no theorem of split {split!r}")
    return theorems


def save_theorems(path: str | Path, theorems: Iterable[Theorem]) -> None:
    """Write a theorem set atomically (temp file + rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        for thm in theorems:
            fh.write(json.dumps(thm.model_dump(exclude_none=True), ensure_ascii=False) + "\n")
    os.replace(tmp, path)
