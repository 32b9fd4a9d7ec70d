"""The decision procedures' third-party libraries (sympy for ring, z3 for omega / linarith),
imported on first use: a checker that never runs ``ring`` never pays sympy's second of import.

A request's SIGALRM (repl/deadline.py) must not land inside a half-done import, which would
leave the library half initialised for every later request; while :func:`load` imports, the
alarm's handler asks here and fires again a moment later, once the import is whole.
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["importing", "load"]

_loaded: dict[str, ModuleType] = {}
_depth = 0


def load(name: str) -> ModuleType:
    """The library ``name``, imported whole on first use."""
    global _depth
    module = _loaded.get(name)
    if module is None:
        _depth += 1
        try:
            module = importlib.import_module(name)
        finally:
            _depth -= 1
        _loaded[name] = module
    return module


def importing() -> bool:
    """Whether :func:`load` is importing a library right now (a deadline must wait)."""
    return _depth > 0
