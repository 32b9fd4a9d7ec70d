"""Every module of the embedded checker, in every wing, declares ``__all__`` and its names exist."""

from __future__ import annotations

import importlib
import pkgutil

import burnqed.embedded as package


def test_every_module_lists_existing_public_names() -> None:
    names = [m.name for m in pkgutil.walk_packages(package.__path__, prefix=f"{package.__name__}.")]
    assert {f"burnqed.embedded.{m}" for m in ("repl.checker", "repl.server", "syntax.parser", "elab.expr", "decide.smt", "decide.polynomials")} <= set(names)
    for name in names:
        module = importlib.import_module(name)
        assert hasattr(module, "__all__"), name
        for public in module.__all__:
            assert hasattr(module, public), f"{name}.{public}"
    assert package.__all__ == ["Checker", "EmbeddedConfig", "ProofCheck"]

