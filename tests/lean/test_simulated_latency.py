"""lean.simulated_latency_ms: the embedded checker answers each tactic after the latency, off by default."""

from __future__ import annotations

import time

import anyio
import pytest

from burnqed.lean import LeanConfig, LeanConfigError, LeanPool
from burnqed.lean.launch import build_launch
from burnqed.lean.results import TacticOutcome
from burnqed.lean.target import ProofTarget

pytestmark = pytest.mark.anyio

LATENCY_MS = 150


def test_the_latency_is_off_by_default_and_passed_to_the_embedded_checker_when_set() -> None:
    assert LeanConfig().simulated_latency_ms == 0
    assert not any("simulated_latency" in arg for arg in build_launch(LeanConfig(backend="embedded")).argv)
    program = build_launch(LeanConfig(backend="embedded", simulated_latency_ms=LATENCY_MS)).program
    assert program[-1] == f"--simulated_latency_ms={LATENCY_MS}"


def test_a_simulated_latency_on_another_backend_is_refused() -> None:
    with pytest.raises(LeanConfigError, match="simulated_latency_ms is a benchmark knob of the embedded backend"):
        build_launch(LeanConfig(backend="command", command=["cat"], simulated_latency_ms=5))


async def test_every_tactic_round_trip_takes_at_least_the_latency_and_answers_as_before() -> None:
    config = LeanConfig(backend="embedded", num_workers=1, simulated_latency_ms=LATENCY_MS)
    with anyio.fail_after(120):
        async with LeanPool(config) as pool, pool.start_proof(ProofTarget.of("∀ (n : Nat), n + 0 = n")) as proof:
            rounds: list[float] = []

            async def timed(state: int, tactic: str) -> TacticOutcome:
                t0 = time.perf_counter()
                outcome = await proof.run_tactic(state, tactic)
                rounds.append(time.perf_counter() - t0)
                return outcome

            intro = await timed(proof.state_id, "intro n")
            assert intro.ok and len(intro.goals) == 1 and intro.next_state_id is not None
            closed = await timed(intro.next_state_id, "simp")
            unknown = await timed(proof.state_id, "no_such_tactic")
    assert closed.proof_complete and not unknown.ok
    assert len(rounds) == 3 and min(rounds) >= LATENCY_MS / 1000
