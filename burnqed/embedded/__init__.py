"""The embedded checker: a small, sound prover for a decidable fragment of Lean 4 that
speaks Pantograph's JSON-lines protocol (``python -m burnqed.embedded``).

In-process use (no child process), e.g. to verify reference proofs in bulk::

    from burnqed.embedded import Checker
    from burnqed.lean.protocol import GoalStart
    c = Checker()
    c.run(GoalStart(expr="∀ (n : Nat), n + 0 = n"))   # GoalStartResult(state_id=0, ...)
    c.check_proof("∀ (n : Nat), n + 0 = n", ["intro n", "rfl"]).ok   # True

Results it produces are from the embedded backend, never from Lean.

Beside the checker: ``kernel`` (the independent proof kernel every proof passes, standard
library only), ``verify`` (reference proofs checked in process, for ``burnqed.data``) and
``soundness`` (the attack campaign). The checker takes and returns the protocol models of
``burnqed.lean.protocol`` (JSON only in the REPL loop, repl/server.py);
``burnqed.lean`` never imports it back (it starts ``python -m burnqed.embedded``).

Names are imported lazily (on first access) so that ``burnqed.embedded.kernel`` stays
standard library only and ``burnqed.embedded.repl.verify`` (imported by ``burnqed.data``) does
not load the checker until a proof is checked.
"""

from __future__ import annotations

from burnqed.lazy import lazy_exports

# each public name once, under the module that defines it: it loads on first use
_EXPORTS: dict[str, tuple[str, ...]] = {
    "burnqed.embedded.repl.checker": ("Checker",),
    "burnqed.embedded.repl.verify": ("ProofCheck",),
    "burnqed.embedded.config": ("EmbeddedConfig",),
}

__all__ = sorted(name for names in _EXPORTS.values() for name in names)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
