"""Every module of the embedded checker declares ``__all__`` and its names exist."""

from __future__ import annotations

import importlib
import pkgutil

import burnqed.embedded as package


def test_every_module_lists_existing_public_names() -> None:
    names = [m.name for m in pkgutil.iter_modules(package.__path__)]
    assert {"checker", "server", "syntax", "terms", "smt", "poly"} <= set(
        names
    )
    for name in names:
        module = importlib.import_module(f"burnqed.embedded.{name}")
        assert hasattr(module, "__all__"), name
        for public in module.__all__:
            assert hasattr(module, public), f"{name}.{public}"
    assert package.__all__ == ["Checker", "EmbeddedConfig", "ProofCheck"]
