"""PathsConfig: where burnqed keeps models, runs and logs (a base-floor model any layer may take)."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["DEMO_RUN_DIR", "PathsConfig"]

DEMO_RUN_DIR = Path("runs/demo")
"""Where `burnqed demo` runs (and where `burnqed prove` looks for a trained checkpoint)."""


class PathsConfig(BaseModel):
    """Where burnqed keeps models, runs and logs (relative paths: to the config file's directory when a
    file is used, else to the working directory)."""

    model_config = ConfigDict(extra="forbid")

    home: Path = Field(default=Path(".burnqed"), description="cache of built models and data")
    logs_dir: Path = Path("logs")
    run_dir: Path = Path("runs/default")

    @property
    def tiny_model_dir(self) -> Path:
        """Where the offline tiny policy model is built."""
        return self.home / "models" / "tiny"
