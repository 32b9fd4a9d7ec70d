"""Reading environment variables: every read of this process's environment in burnqed goes
through here (``tests/test_project.py`` keeps it so). ``env()`` is one variable's value;
``environment()`` a copy of the whole, to start a child with. What sets a variable for a
library we start (Ray's) does so where it starts it, with ``os.environ.setdefault``."""

from __future__ import annotations

import os

__all__ = ["env", "environment"]


def env(name: str, default: str | None = None) -> str | None:
    """An environment variable's value, else ``default``."""
    return os.environ.get(name, default)


def environment() -> dict[str, str]:
    """A copy of this process's environment (a child's, before its own changes)."""
    return dict(os.environ)
