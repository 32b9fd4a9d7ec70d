"""The embedded checker: a small, sound prover for a decidable fragment of Lean 4 that
speaks Pantograph's JSON-lines protocol (``python -m burnqed.lean.embedded``).

In-process use (no child process), e.g. to verify reference proofs in bulk::

    from burnqed.lean.embedded import Checker
    c = Checker()
    c.handle({"cmd": "goal.start", "payload": {"expr": "∀ (n : Nat), n + 0 = n"}})
    c.check_proof("∀ (n : Nat), n + 0 = n", ["intro n", "rfl"]).ok   # True

Results it produces are from the embedded backend, never from Lean.
"""

from __future__ import annotations

from burnqed.lean.embedded.checker import Checker, ProofCheck
from burnqed.lean.embedded.config import EmbeddedConfig

__all__ = ["Checker", "EmbeddedConfig", "ProofCheck"]
