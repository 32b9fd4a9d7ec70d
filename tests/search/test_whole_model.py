"""Whole and hybrid search end to end on the embedded checker: the tiny model trained to emit whole
proofs in the ``plain`` format (tests/fixtures/models.py, ``whole_model_dir``), and a hybrid
candidate that fails at step k resuming from step k's state with the proof so far in its prompt."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import anyio
import pytest

from burnqed.data.sets import load_builtin
from burnqed.data.theorems import Theorem
from burnqed.lean import LeanConfig, LeanPool
from burnqed.lean.protocol import render_goals
from burnqed.lean.target import ProofTarget
from burnqed.policy.config import PolicyConfig
from burnqed.policy.types import PromptContext, TacticCandidate
from burnqed.search import BestFirstSearch, SearchConfig, search_theorems

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(1200)]  # the fixture trains the model (CPU)


def _lean() -> LeanConfig:
    return LeanConfig(backend="embedded", num_workers=2, read_timeout_s=30.0, startup_timeout_s=60.0)


def _cfg(mode: str, **kw: object) -> SearchConfig:
    return SearchConfig.model_validate(
        {"mode": mode, "automation_tactics": [], "time_limit_s": 60.0, "concurrency": 2, **kw}
    )


class Spy:
    """Hands requests to the trained model's service and keeps what it answered."""

    def __init__(self, inner: object) -> None:
        self.inner = inner
        self.answers: list[TacticCandidate] = []
        self.contexts: list[PromptContext] = []

    async def generate(
        self, states: Sequence[str], n: int, contexts: Sequence[PromptContext] | None = None
    ) -> list[list[TacticCandidate]]:
        self.contexts.extend(contexts or [])
        rows = await self.inner.generate(states, n, contexts=contexts)  # type: ignore[attr-defined]
        self.answers.extend(c for row in rows for c in row)
        return rows


@pytest.mark.parametrize("mode", ["whole", "hybrid"])
async def test_the_whole_proof_model_proves_by_whole_proofs_on_the_embedded_checker(
    mode: str, whole_model_dir: Path
) -> None:
    from burnqed.policy.model import PolicyModel
    from burnqed.policy.service import GenerationService

    policy = PolicyModel.load(
        whole_model_dir, PolicyConfig(device="cpu", dtype="float32", max_new_tokens=48, max_prompt_tokens=160, seed=0)
    )
    theorems = [t for t in load_builtin("core") if len(t.proof or []) >= 2][:6]
    cfg = _cfg(mode, whole_samples=4, num_candidates=4, max_nodes=4)
    with anyio.fail_after(600):
        async with LeanPool(_lean()) as pool, GenerationService(policy) as service:
            spy = Spy(service)
            results = await search_theorems(pool, spy, None, theorems, cfg)
            for r in results:
                if r.proved:  # the replay gate accepted it; the file check agrees again here
                    assert (await pool.verify_proof(ProofTarget.of(r.theorem.statement), r.proof or [])).ok
    assert {c.want for c in spy.contexts} == {"proof"}
    # the model answers whole proofs: one candidate carries several tactics
    assert any(len(c.tactic.splitlines()) >= 2 for c in spy.answers)
    proved = [r for r in results if r.proved]
    assert len(proved) >= 2, [r.why() for r in results]  # no automation tactics: the model's own proofs
    assert all(len(r.proof or []) >= 2 for r in proved)
    assert all(r.backend == "embedded" and r.records for r in results)
    if mode == "whole":
        assert all(r.stats.nodes_expanded == 1 for r in results)


# And.comm from the core set; the root answer fails at step k = 2 (0-based): `bogus_tactic`
AND_COMM = Theorem(name="And.comm", statement="∀ (p q : Prop), p ∧ q → q ∧ p")
PREFIX = ("intro p q h", "obtain ⟨hp, hq⟩ := h")


class Resumer:
    """The root's whole proof fails at its third tactic; from the state after two, the rest is right."""

    def __init__(self) -> None:
        self.seen: list[PromptContext] = []

    async def generate(
        self, states: Sequence[str], n: int, contexts: Sequence[PromptContext] | None = None
    ) -> list[list[TacticCandidate]]:
        assert contexts is not None
        self.seen.extend(contexts)
        script = {(): "\n".join([*PREFIX, "bogus_tactic", "exact hp"]), PREFIX: "constructor\nexact hq\nexact hp"}
        return [[TacticCandidate(tactic=script[c.proof_so_far], log_prob=-1.0)] if c.proof_so_far in script else [] for c in contexts]


async def test_hybrid_resumes_a_candidate_failing_at_step_k_from_step_ks_state() -> None:
    prover = Resumer()
    with anyio.fail_after(120):
        async with LeanPool(_lean()) as pool:
            async with pool.start_proof(ProofTarget.of(AND_COMM.statement)) as proof:  # the state after k steps, replayed apart
                state_id = proof.state_id
                for tactic in PREFIX:
                    out = await proof.run_tactic(state_id, tactic)
                    assert out.next_state_id is not None
                    state_id, after_k = out.next_state_id, render_goals(list(out.goals))
            result = await BestFirstSearch(pool, prover, None, _cfg("hybrid", max_nodes=8)).prove(AND_COMM)
    assert result.proved and result.proof == [*PREFIX, "constructor", "exact hq", "exact hp"]
    assert result.stats.failed_tactics >= 1  # bogus_tactic was refused
    # the valid prefix entered the tree: the states after steps 1 and 2 are nodes (trajectory rows)
    states = {r.tactic: r.state for r in result.records if r.tactic}
    assert states[PREFIX[1]] == after_k
    # the continuation was asked at step k's state with the proof so far
    (resumed,) = [c for c in prover.seen if c.proof_so_far == PREFIX]
    assert resumed.state == after_k and resumed.want == "proof" and resumed.name == "And.comm"
    # the proof so far as the whole-proof presets show it
    from burnqed.policy.presets import get_preset, render_prompt

    assert render_prompt(get_preset("deepseek-prover-v1.5"), resumed).endswith(
        "theorem And.comm : ∀ (p q : Prop), p ∧ q → q ∧ p := by\n  intro p q h\n  obtain ⟨hp, hq⟩ := h\n"
    )
