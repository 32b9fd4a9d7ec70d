"""ProofTarget: what a proof is of — a statement (with its file header) or a constant's name.

Every Lean-facing signature (``ProofPool.start_proof`` / ``open_proof`` / ``verify_proof``, the
replay gate, detached proofs, the remote pool) takes one; the rule "exactly one of statement
or name" is checked here and nowhere else. The wire protocols are unchanged: a target is built
where a request comes in (an MCP tool's arguments, a theorem set's entry) and read where one goes
out (``goal.start``'s ``expr`` or ``copyFrom``; the embedded REPL's, the same).
"""

from __future__ import annotations

from typing import Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from burnqed.lean.errors import InvalidInput

__all__ = ["ProofTarget"]


class ProofTarget(BaseModel):
    """A statement (proposition or theorem form) with its optional header, or a constant's name."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    statement: str | None = Field(default=None, description="a proposition, or a theorem in theorem form")
    name: str | None = Field(default=None, description="a constant whose type is the goal (goal.start copyFrom)")
    header: str | None = Field(default=None, description="file header: imports, open and set_option lines")

    @model_validator(mode="after")
    def _exactly_one(self) -> Self:
        # InvalidInput is no ValueError: pydantic passes it through unwrapped, so callers catch
        # the Lean layer's own error, not a ValidationError
        if (self.statement is None) == (self.name is None):
            raise InvalidInput("give exactly one of statement or name")
        return self

    @classmethod
    def of(cls, statement: str, header: str | None = None) -> ProofTarget:
        """The target of ``statement`` (with ``header``, when it has one)."""
        return cls(statement=statement, header=header)

    @classmethod
    def named(cls, name: str, header: str | None = None) -> ProofTarget:
        """The target of constant ``name`` (its type is the goal)."""
        return cls(name=name, header=header)

    @property
    def by_name(self) -> bool:
        """A constant's name, not a statement."""
        return self.name is not None

    @property
    def text(self) -> str:
        """The statement, or the name."""
        return self.statement if self.statement is not None else self.name or ""

    @property
    def kind(self) -> str:
        """``statement`` or ``name``: what an error message calls the text."""
        return "name" if self.by_name else "statement"
