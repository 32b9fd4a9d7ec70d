"""Reading environment variables, for every floor above lean (lean imports nothing of ours and
reads its own two, PANTOGRAPH_REPL and LEAN_PATH)."""

from __future__ import annotations

import os

__all__ = ["env"]


def env(name: str, default: str | None = None) -> str | None:
    """An environment variable's value, else ``default``."""
    return os.environ.get(name, default)
