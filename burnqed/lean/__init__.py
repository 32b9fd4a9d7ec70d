"""The Lean layer: Pantograph protocol, worker processes, the pool and proof handles.

```python
from burnqed.lean import LeanConfig, LeanPool, ProofTarget
target = ProofTarget.of("∀ (n : Nat), n + 0 = n")
async with LeanPool(LeanConfig(backend="embedded")) as pool:
    async with pool.start_proof(target) as proof:
        out = await proof.run_tactic(proof.state_id, "intro n")
    verdict = await pool.verify_proof(target, ["intro n", "rfl"])
```
"""

from __future__ import annotations

from burnqed.lazy import lazy_exports

# each public name once, under the module that defines it: it loads on first use (importing
# one submodule, a config, must not import the package's heavy modules)
_EXPORTS: dict[str, tuple[str, ...]] = {
    "burnqed.lean.config": ("LeanConfig",),
    "burnqed.lean.errors": (
        "ForeignState", "HandleError", "HandleLost", "InvalidInput", "InvalidStatement",
        "LeanConfigError", "LeanError", "LeanProcessDied", "LeanProtocolError", "LeanReplError",
        "LeanStartupError", "LeanTimeout", "OutsideFragment", "PoolClosed", "PoolExhausted",
        "UnknownHandle",
    ),
    "burnqed.lean.handle": ("ProofHandle",),
    "burnqed.lean.pool": ("LeanPool",),
    "burnqed.lean.protocol": ("Goal", "GoalPrintResult", "Message", "render_goal", "render_goals"),
    "burnqed.lean.results": ("PoolStatus", "ProofVerdict", "TacticOutcome", "TacticStatus"),
    "burnqed.lean.target": ("ProofTarget",),
    "burnqed.lean.worker": ("LeanWorker",),
}

__all__ = sorted(name for names in _EXPORTS.values() for name in names)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
