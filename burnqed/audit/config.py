"""AuditConfig: what the audit needs of the run's configuration (its own model, so the audit
does not import the composed BurnqedConfig)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from burnqed.blueprint.config import BlueprintConfig
from burnqed.lean.config import LeanConfig
from burnqed.paths import PathsConfig

__all__ = ["AuditConfig"]


class AuditConfig(BaseModel):
    """The Lean backend that replays claims, the blueprint settings and the paths of the run."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    lean: LeanConfig = Field(default_factory=LeanConfig)
    blueprint: BlueprintConfig = Field(default_factory=BlueprintConfig)
    paths: PathsConfig = Field(default_factory=PathsConfig)
