"""Theorem sets: one JSON Lines format (name, statement, optional reference proof, source, tags)."""

from __future__ import annotations

import hashlib
import json
import os
import unicodedata
from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

__all__ = ["Theorem", "TheoremSetError", "load_theorems", "save_theorems", "statement_sha"]


class TheoremSetError(ValueError):
    """A theorem-set file is missing or malformed (the message names the line)."""


def statement_sha(statement: str) -> str:
    """SHA-256 of a statement after NFC normalisation and whitespace collapsing (the lock hash)."""
    normal = " ".join(unicodedata.normalize("NFC", statement).split())
    return hashlib.sha256(normal.encode("utf-8")).hexdigest()


class Theorem(BaseModel):
    """One theorem of a set."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1)
    statement: str = Field(min_length=1, description="Lean 4 proposition, e.g. '∀ (n : Nat), n + 0 = n'")
    proof: list[str] | None = Field(default=None, description="reference proof: a tactic list")
    source: str = ""
    tags: list[str] = Field(default_factory=list)

    @field_validator("name", "statement")
    @classmethod
    def _no_control_characters(cls, value: str) -> str:
        # a NUL or other control byte cannot reach Lean intact: refuse it here, by name
        bad = next((c for c in value if unicodedata.category(c) == "Cc" and c not in "\n\t\r"), None)
        if bad is not None:
            raise ValueError(f"contains the control character U+{ord(bad):04X}; remove it")
        if not value.strip():
            raise ValueError("is blank")
        return value

    @property
    def sha(self) -> str:
        """The statement's lock hash."""
        return statement_sha(self.statement)


def load_theorems(path: str | Path) -> list[Theorem]:
    """Read a theorem set (JSON Lines); blank lines and lines starting with '//' are skipped."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise TheoremSetError(f"theorem set not found: {path}") from exc
    theorems: list[Theorem] = []
    seen: set[str] = set()
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("//"):
            continue
        try:
            thm = Theorem.model_validate(json.loads(line))
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(x) for x in first.get("loc", ()))
            raise TheoremSetError(f"{path}:{lineno}: {where}: {first.get('msg')}") from exc
        except ValueError as exc:
            raise TheoremSetError(f"{path}:{lineno}: {exc}") from exc
        if thm.name in seen:
            raise TheoremSetError(f"{path}:{lineno}: duplicate theorem name {thm.name!r}")
        seen.add(thm.name)
        theorems.append(thm)
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
