"""The pool's protocol suite, run against every backend that speaks Pantograph's protocol.

Statements and tactics are ones real Lean 4 accepts (and rejects) the same way, so the
suite holds for the fake REPL, the embedded checker and Pantograph alike.
"""

from __future__ import annotations

import anyio
import pytest

from burnqed.lean import (
    ForeignState,
    InvalidInput,
    InvalidStatement,
    LeanPool,
    TacticStatus,
    UnknownHandle,
)
from burnqed.lean.protocol import Stat
from burnqed.lean.target import ProofTarget

pytestmark = pytest.mark.anyio

ADD_ZERO = "∀ (n : Nat), n + 0 = n"


async def test_start_intro_close_renders_goals_like_lean(protocol_pool: LeanPool) -> None:
    async with protocol_pool.start_proof(ProofTarget.of(ADD_ZERO)) as proof:
        with anyio.fail_after(30):
            assert proof.statement == ADD_ZERO and proof.state_id in proof.states
            assert [g.target.pp for g in proof.goals] == [ADD_ZERO]
            out = await proof.run_tactic(proof.state_id, "intro n")
            assert out.status is TacticStatus.SUCCESS and out.next_state_id is not None
            assert out.rendered == "n : Nat\n⊢ n + 0 = n"
            done = await proof.run_tactic(out.next_state_id, "omega")
            assert done.status == "success" and done.proof_complete and done.rendered == "no goals"
            printed = await proof.print_root(done.next_state_id)  # type: ignore[arg-type]
            assert not printed.root_has_sorry and not printed.root_has_mvar


async def test_branching_from_earlier_states(protocol_pool: LeanPool) -> None:
    async with protocol_pool.start_proof(ProofTarget.of(ADD_ZERO)) as proof:
        with anyio.fail_after(30):
            first = await proof.run_tactic(proof.state_id, "intro n")
            second = await proof.run_tactic(proof.state_id, "intro m")
            assert first.next_state_id != second.next_state_id
            assert second.rendered == "m : Nat\n⊢ m + 0 = m"
            again = await proof.run_tactic(first.next_state_id, "omega")  # type: ignore[arg-type]
            assert again.proof_complete
            assert (await proof.run_tactic(second.next_state_id, "omega")).proof_complete  # type: ignore[arg-type]


async def test_failed_and_unparsable_tactics_are_outcomes(protocol_pool: LeanPool) -> None:
    async with protocol_pool.start_proof(ProofTarget.of(ADD_ZERO)) as proof:
        with anyio.fail_after(30):
            failed = await proof.run_tactic(proof.state_id, "exact nonexistent_lemma")
            assert failed.status is TacticStatus.FAILED and failed.next_state_id is None
            assert any(m.severity == "error" for m in failed.messages) and failed.error_text
            parse = await proof.run_tactic(proof.state_id, "intro (")
            assert parse.status is TacticStatus.PARSE_ERROR and parse.parse_error
            assert (await proof.run_tactic(proof.state_id, "intro n")).ok


async def test_bad_input_never_wedges_a_worker(protocol_pool: LeanPool) -> None:
    pool = protocol_pool
    restarts = pool.status().restarts
    with anyio.fail_after(60):
        for bad in ("p\x00q", "x" * 1_000_000):
            with pytest.raises(InvalidInput):
                await pool.open_proof(ProofTarget.of(bad))
        with pytest.raises(InvalidStatement):
            await pool.open_proof(ProofTarget.of("(∀ (n : Nat), n = n"))
        try:
            quoted = await pool.open_proof(ProofTarget.of('"a\\"b" = "a\\"b"'))
            await quoted.close()
        except InvalidStatement:
            pass  # a backend without strings may refuse it; it must not wedge
        async with pool.start_proof(ProofTarget.of("∀ (n : Nat),\n  n + 0 = n")) as proof:
            for tactic in ("intro n\n", 'exact "x\\"', "intro \x00", "simp" + " " * 1_000_000):
                out = await proof.run_tactic(proof.state_id, tactic)
                assert out.status in {TacticStatus.SUCCESS, TacticStatus.FAILED, TacticStatus.PARSE_ERROR}
            nul = await proof.run_tactic(proof.state_id, "intro \x00")
            assert nul.status is TacticStatus.PARSE_ERROR
            assert (await proof.run_tactic(proof.state_id, "intro n")).ok
        assert pool.status().restarts == restarts


async def test_unknown_closed_and_foreign_handles(protocol_pool: LeanPool) -> None:
    pool = protocol_pool
    with anyio.fail_after(30):
        with pytest.raises(UnknownHandle):
            pool.get_handle("no-such-handle")
        a = await pool.open_proof(ProofTarget.of(ADD_ZERO))
        b = await pool.open_proof(ProofTarget.of(ADD_ZERO))
        assert pool.get_handle(a.id) is a
        step = await a.run_tactic(a.state_id, "intro n")
        # each worker numbers its own states, and the module's earlier tests moved the two
        # counters differently: one of a's two states may carry the number of b's root
        foreign = next(s for s in (step.next_state_id, a.state_id) if s not in b.states)
        with pytest.raises(ForeignState):
            await b.run_tactic(foreign, "omega")  # type: ignore[arg-type]
        with pytest.raises(ForeignState):
            await b.run_tactic(10_000, "omega")
        await a.close()
        await a.close()  # idempotent
        with pytest.raises(UnknownHandle):
            await a.run_tactic(a.state_id, "intro n")
        with pytest.raises(UnknownHandle):
            pool.get_handle(a.id)
        await b.close()


async def test_closing_a_handle_deletes_its_states(protocol_pool: LeanPool) -> None:
    pool = protocol_pool
    with anyio.fail_after(30):
        proof = await pool.open_proof(ProofTarget.of(ADD_ZERO))
        worker = proof._worker
        assert worker is not None
        await proof.run_tactic(proof.state_id, "intro n")
        await proof.run_tactic(proof.state_id, "intro m")
        await proof.close()
        assert (await worker.request(Stat())).n_goals == 0


async def test_verify_proof_is_the_replay_gate(protocol_pool: LeanPool) -> None:
    pool = protocol_pool
    with anyio.fail_after(30):
        assert (await pool.verify_proof(ProofTarget.of(ADD_ZERO), ["intro n", "omega"])).ok
        left = await pool.verify_proof(ProofTarget.of(ADD_ZERO), ["intro n"])
        assert not left.ok and "goal" in left.reason and left.failed_step is None
        bad = await pool.verify_proof(ProofTarget.of(ADD_ZERO), ["intro n", "exact nonexistent_lemma"])
        assert not bad.ok and bad.failed_step == 1
        empty = await pool.verify_proof(ProofTarget.of(ADD_ZERO), [])
        assert not empty.ok
        refused = await pool.verify_proof(ProofTarget.of("(∀ (n : Nat)"), ["omega"])
        assert not refused.ok and "statement" in refused.reason
        assert pool.status().open_handles == 0


async def test_without_a_goal_id_a_tactic_acts_on_the_whole_goal_list(protocol_pool: LeanPool) -> None:
    """Issue 26: the search sends no goalId; with automaticMode Pantograph then runs the tactic
    on the goal list as it is (.unfocus), as the final file's `by` block does."""
    async with protocol_pool.start_proof(ProofTarget.of("∀ (n : Nat), n = n ∧ n + 0 = n")) as proof:
        with anyio.fail_after(30):
            intro = await proof.run_tactic(proof.state_id, "intro n")
            split = await proof.run_tactic(intro.next_state_id, "constructor")  # type: ignore[arg-type]
            assert [g.target.pp for g in split.goals] == ["n = n", "n + 0 = n"]
            both = await proof.run_tactic(split.next_state_id, "all_goals rfl")  # type: ignore[arg-type]
            assert both.status is TacticStatus.SUCCESS and both.proof_complete, both.error_text
            first = await proof.run_tactic(split.next_state_id, "rfl")  # type: ignore[arg-type]
            assert [g.target.pp for g in first.goals] == ["n + 0 = n"]
            second = await proof.run_tactic(split.next_state_id, "rfl", goal_id=1)  # type: ignore[arg-type]
            assert [g.target.pp for g in second.goals] == ["n = n"]  # .prefer: the others stay


BINDER_FORM = "(a b : Nat) (h₀ : a < b) : a + 1 ≤ b"


async def test_binder_form_goes_to_lean_as_a_theorem(protocol_pool: LeanPool) -> None:
    """Issue 26: goal.start's parseElabType cannot read binders before a type; the client sends
    that form as a theorem through frontend.process, its binders becoming hypotheses."""
    async with protocol_pool.start_proof(ProofTarget.of(BINDER_FORM)) as proof:
        with anyio.fail_after(30):
            (goal,) = proof.goals
            assert goal.target.pp == "a + 1 ≤ b"
            assert [v.user_name for v in goal.vars] == ["a", "b", "h₀"]
            done = await proof.run_tactic(proof.state_id, "omega")
            assert done.status is TacticStatus.SUCCESS and done.proof_complete
    verdict = await protocol_pool.verify_proof(ProofTarget.of(BINDER_FORM), ["omega"])
    assert verdict.ok, verdict.reason
    assert verdict.file is not None and "theorem burnqed_goal (a b : Nat) (h₀ : a < b) : a + 1 ≤ b := by" in verdict.file
