"""One helper for the issue-37 tests of the mirrored test folders: a whole file through
``frontend.process`` and its verdict."""

from __future__ import annotations

from burnqed.embedded import Checker
from tests.embedded.util import wire

__all__ = ["verdict"]


def verdict(header: str, body: str, opens: str = "open Nat") -> str:
    """"accepted" when the file has no error and no goal left, else the first error."""
    text = f"import Mathlib\n{opens}\n\n{header} := by\n" + "".join(f"  {line}\n" for line in body.splitlines())
    ans = wire(Checker(), {"cmd": "frontend.process", "payload": {"file": text, "readHeader": True}})
    assert "error" not in ans, ans
    errors = [m["data"] for u in ans["units"] for m in u["messages"] if m["severity"] == "error"]
    if errors:
        return errors[0]
    return "accepted" if not any(u.get("goals") for u in ans["units"]) else "goals left"
