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

from burnqed.lean.config import LeanConfig
from burnqed.lean.errors import (
    ForeignState,
    HandleError,
    HandleLost,
    InvalidInput,
    InvalidStatement,
    LeanConfigError,
    LeanError,
    LeanProcessDied,
    LeanProtocolError,
    LeanReplError,
    LeanStartupError,
    LeanTimeout,
    OutsideFragment,
    PoolClosed,
    PoolExhausted,
    UnknownHandle,
)
from burnqed.lean.handle import ProofHandle
from burnqed.lean.pool import LeanPool
from burnqed.lean.protocol import (
    Goal,
    GoalPrintResult,
    Message,
    render_goal,
    render_goals,
)
from burnqed.lean.results import PoolStatus, ProofVerdict, TacticOutcome, TacticStatus
from burnqed.lean.target import ProofTarget
from burnqed.lean.worker import LeanWorker

__all__ = [
    "ForeignState",
    "Goal",
    "GoalPrintResult",
    "HandleError",
    "HandleLost",
    "InvalidInput",
    "InvalidStatement",
    "LeanConfig",
    "LeanConfigError",
    "LeanError",
    "LeanPool",
    "LeanProcessDied",
    "LeanProtocolError",
    "LeanReplError",
    "LeanStartupError",
    "LeanTimeout",
    "LeanWorker",
    "Message",
    "OutsideFragment",
    "PoolClosed",
    "PoolExhausted",
    "PoolStatus",
    "ProofHandle",
    "ProofTarget",
    "ProofVerdict",
    "TacticOutcome",
    "TacticStatus",
    "UnknownHandle",
    "render_goal",
    "render_goals",
]
