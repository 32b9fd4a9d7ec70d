"""DetachedProof: a proof that holds no worker between calls, replayed onto any worker."""

from __future__ import annotations

import anyio
import pytest

from burnqed.lean import LeanPool
from burnqed.lean.detached import DetachedProof, ReplayDiverged
from burnqed.lean.errors import ForeignState
from burnqed.lean.target import ProofTarget
from tests.fixtures.lean import fake_config

pytestmark = pytest.mark.anyio

STATEMENT = "∀ (a b : Nat), a + b = b + a"


async def test_a_detached_proof_gives_its_worker_back_and_replays_its_states() -> None:
    async with LeanPool(fake_config(num_workers=2)) as pool:
        proof = await DetachedProof.open(pool, ProofTarget.of(STATEMENT), warm_s=0.0)
        assert pool.status().busy == 1  # one idle worker to spare: the first stays warm
        intro = await proof.run_tactic(0, "intro a")
        assert intro.ok and intro.next_state_id == 1
        assert proof.replays == 0  # consecutive calls on the warm worker replay nothing
        assert await proof.release_if_idle() and pool.status().busy == 0
        # the state lives on: a call replays its path on whichever worker is free
        both = await proof.run_tactic(1, "intro b")
        assert both.ok and both.next_state_id == 2 and proof.replays == 1
        # a branch from an earlier state, after a crash of the warm worker
        crashed = await proof.run_tactic(2, "crash")
        assert crashed.status.value == "lost" and proof.worker_pid is None
        done = await proof.run_tactic(2, "rfl")
        assert done.proof_complete and proof.replays == 3
        with pytest.raises(ForeignState):
            await proof.run_tactic(42, "rfl")
        await proof.close()
        with anyio.fail_after(5):
            while pool.status().busy:
                await anyio.sleep(0.01)


async def test_with_no_idle_worker_to_spare_the_proof_holds_none() -> None:
    async with LeanPool(fake_config(num_workers=1)) as pool:
        proofs = [await DetachedProof.open(pool, ProofTarget.of(STATEMENT)) for _ in range(3)]
        assert pool.status().busy == 0
        for proof in proofs:
            assert (await proof.run_tactic(0, "intro a b")).ok
        assert pool.status().busy == 0
        for proof in proofs:
            await proof.close()


async def test_a_replay_that_does_not_reproduce_the_state_is_an_error() -> None:
    async with LeanPool(fake_config(num_workers=1)) as pool:
        proof = await DetachedProof.open(pool, ProofTarget.of(STATEMENT))
        step = await proof.run_tactic(0, "intro a")
        assert step.ok
        # forge a node whose tactic now fails on replay (as if the environment changed)
        proof._nodes[1] = proof._nodes[1].__class__(parent=0, tactic="fail now", goal_id=None, goals=())
        with pytest.raises(ReplayDiverged):
            await proof.run_tactic(1, "intro b")
