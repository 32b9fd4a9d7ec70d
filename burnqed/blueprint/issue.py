"""Issue: one validation problem of a blueprint (what validate reports and errors carry)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["Issue"]


class Issue(BaseModel):
    """One validation problem."""

    model_config = ConfigDict(frozen=True)

    label: str | None
    message: str
    line: int | None = None

    def __str__(self) -> str:
        where = f"line {self.line}: " if self.line is not None else ""
        return f"{where}{self.label + ': ' if self.label else ''}{self.message}"
