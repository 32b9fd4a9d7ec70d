"""Worked proofs of the core set and a benchmark sample through the pool on the embedded backend."""

from __future__ import annotations

import anyio
import pytest

from burnqed.data.sets import load_builtin
from burnqed.lean import LeanConfig, LeanPool
from burnqed.lean.target import ProofTarget

pytestmark = pytest.mark.anyio


def _config() -> LeanConfig:
    return LeanConfig(
        backend="embedded", num_workers=2, read_timeout_s=20.0, startup_timeout_s=60.0, acquire_timeout_s=30.0
    )


async def test_every_core_theorem_and_a_benchmark_sample_replay_through_the_pool() -> None:
    theorems = load_builtin("core") + load_builtin("benchmark-test")[::30]
    failures: list[str] = []
    with anyio.fail_after(240):
        async with LeanPool(_config()) as pool:
            assert pool.backend == "embedded"
            for theorem in theorems:
                verdict = await pool.verify_proof(ProofTarget.of(theorem.statement), theorem.proof or [])
                if not verdict.ok:
                    failures.append(f"{theorem.name}: {verdict.reason}")
    assert not failures, failures


async def test_a_wrong_reference_proof_is_rejected_by_the_pool() -> None:
    with anyio.fail_after(60):
        async with LeanPool(_config().model_copy(update={"num_workers": 1})) as pool:
            verdict = await pool.verify_proof(ProofTarget.of("∃ (n : Nat), n * n = 49"), ["use 6", "norm_num"])
    assert not verdict.ok
