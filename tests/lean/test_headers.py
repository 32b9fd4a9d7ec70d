"""Theorem form and headers through the pool: frontend.process on the fake Pantograph, import groups."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest

from burnqed.lean import InvalidStatement, LeanConfig, LeanPool, PoolExhausted, TacticStatus
from burnqed.lean.protocol import FrontendProcess, FrontendProcessResult, decode_answer, encode_request
from burnqed.lean.target import ProofTarget
from tests.fixtures.lean import FAKE_REPL, fake_config

pytestmark = pytest.mark.anyio

MINIF2F_HEADER = "import Mathlib\nimport Aesop\n\nset_option maxHeartbeats 400000\n\nopen BigOperators Real Nat Topology Rat\n"
THEOREM = "theorem mathd_numbertheory_1 (a b : ℕ) (h₀ : a = b) : b = a := by"


@pytest.fixture
def pantograph_config(tmp_path: Path) -> LeanConfig:
    """The fake REPL launched as backend 'pantograph' (so imports reach its command line)."""
    script = tmp_path / "repl"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -S "{FAKE_REPL}" "$@"\n', encoding="utf-8")
    script.chmod(0o755)
    return LeanConfig(
        backend="pantograph", repl_path=script, imports=["Init"], num_workers=1,
        read_timeout_s=10.0, startup_timeout_s=15.0, acquire_timeout_s=5.0, memory_limit_mb=2048,
    )  # fmt: skip


def cmdline(pid: int) -> list[str]:
    """The argv a process was started with."""
    return Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")


def test_frontend_process_request_and_answer_models_match_the_wire() -> None:
    request = FrontendProcess(file="theorem t : True := by sorry", sorrys=True)
    line = encode_request(request)
    assert '"cmd":"frontend.process"' in line and '"sorrys":true' in line and '"readHeader":false' in line
    answer = decode_answer(
        request,
        '{"units":[{"boundary":[0,28],"goalStateId":3,"goals":[{"fragment":"tactic","name":"_uniq.1",'
        '"target":{"pp":"True"},"vars":[]}],"messages":[{"data":"declaration uses \'sorry\'","severity":"warning"}]}]}',
    )
    assert isinstance(answer, FrontendProcessResult)
    unit = answer.units[0]
    assert unit.goal_state_id == 3 and unit.boundary == (0, 28) and unit.errors == []


async def test_theorem_form_starts_through_frontend_process_with_binders_as_hypotheses() -> None:
    async with LeanPool(fake_config(num_workers=1)) as pool:
        async with pool.start_proof(ProofTarget.of(THEOREM, "open Nat\nset_option maxHeartbeats 400000")) as proof:
            (goal,) = proof.goals
            assert goal.target.pp == "b = a"
            assert [(v.user_name, v.type.pp if v.type else None) for v in goal.vars] == [
                ("a", "ℕ"), ("b", "ℕ"), ("h₀", "a = b"),
            ]  # fmt: skip
            out = await proof.run_tactic(proof.state_id, "exact h₀.symm")
            assert out.status is TacticStatus.SUCCESS and out.goals == []
        verdict = await pool.verify_proof(ProofTarget.of(THEOREM, "open Nat"), ["exact h₀.symm"])
        assert verdict.ok, verdict.reason
        assert not (await pool.verify_proof(ProofTarget.of(THEOREM), ["skip"])).ok


async def test_bad_headers_are_refused_before_lean_sees_them() -> None:
    async with LeanPool(fake_config(num_workers=1)) as pool:
        for header, why in [
            ("axiom cheat : False", "not allowed"),
            ("set_option debug.skipKernelTC true", "debug.skipKernelTC"),
            ("open Nat\nimport Mathlib", "imports must come first"),
        ]:
            with pytest.raises(InvalidStatement, match=why):
                await pool.open_proof(ProofTarget.of(THEOREM, header))
        with pytest.raises(InvalidStatement, match="must not carry a proof"):
            await pool.open_proof(ProofTarget.of("theorem t : 1 = 1 := by rfl"))
        with pytest.raises(InvalidStatement, match="nonexistent"):
            await pool.open_proof(ProofTarget.of("theorem t (n : ℕ) : nonexistent n := by"))
        assert pool.status().requests <= 2  # only the elaboration error reached a worker


async def test_header_imports_pick_a_worker_group_started_with_them(pantograph_config: LeanConfig) -> None:
    async with LeanPool(pantograph_config) as pool:
        (default_pid,) = pool.worker_pids()
        assert "Mathlib" not in cmdline(default_pid)
        async with pool.start_proof(ProofTarget.of(THEOREM, MINIF2F_HEADER)) as proof:
            argv = cmdline(proof.worker_pid or 0)
            assert argv[3:5] == ["Mathlib", "Aesop"]  # python -S fake_repl.py, then the header's imports in order
            assert pool.import_groups == [("Aesop", "Mathlib")]
            assert pool.status().workers == 2 and pool.status().open_handles == 1
            assert pool.get_handle(proof.id) is proof
        # a header whose imports the pool already has stays on the default workers
        async with pool.start_proof(ProofTarget.of(THEOREM, "import Init\nopen Nat")) as proof:
            assert proof.worker_pid == default_pid
        assert len(pool.worker_pids()) == 2
    assert pool.status().workers == 0


async def test_import_groups_are_bounded_least_recently_used_first(pantograph_config: LeanConfig) -> None:
    config = pantograph_config.model_copy(update={"max_import_groups": 1})
    async with LeanPool(config) as pool:
        held = await pool.open_proof(ProofTarget.of(THEOREM, "import Mathlib"))
        first_group_pid = held.worker_pid
        with anyio.fail_after(10), pytest.raises(PoolExhausted, match="max_import_groups"):
            await pool.open_proof(ProofTarget.of(THEOREM, "import Std"))  # the only group has an open proof
        await held.close()
        async with pool.start_proof(ProofTarget.of(THEOREM, "import Std")) as proof:
            assert "Std" in cmdline(proof.worker_pid or 0)
            assert pool.import_groups == [("Std",)]
        assert first_group_pid not in pool.worker_pids()


async def test_the_headers_scope_reaches_every_tactic_of_the_proof() -> None:
    """Issue 26: goal.tactic elaborates in the REPL's scope (Repl.lean runCoreM), which only a
    frontend.process with inheritEnv sets; the header's `open` must reach tactics. Its `set_option
    maxHeartbeats` does not (issue 38: runCoreM keeps the start-up maxHeartbeats): the launch
    option burnqed passes (lean.lean_options, maxHeartbeats=0) is what lets `heavy` run."""
    header = "import Init\nset_option maxHeartbeats 400000\nopen BigOperators Real Nat Topology Rat"
    async with LeanPool(fake_config("--maxHeartbeats=0", num_workers=1)) as pool:
        async with pool.start_proof(ProofTarget.of("theorem t (x : ℕ) : 0 < x + 1 := by", header)) as proof:
            for tactic in ("exact pi_pos", "heavy"):
                out = await proof.run_tactic(proof.state_id, tactic)
                assert out.status is TacticStatus.SUCCESS, (tactic, out.error_text)
        verdict = await pool.verify_proof(ProofTarget.of("theorem t (x : ℕ) : 0 < x + 1 := by", header), ["exact factorial_pos"])
        assert verdict.ok, verdict.reason


PROOFNET_HEADER = "import Init\nopen Set\n\ndef is_small (n : ℕ) : Prop :=\n  n < 10\n\nabbrev ten : ℕ := 10\n"


async def test_a_header_with_definitions_serves_many_proofs_on_one_worker() -> None:
    """The definitions enter the worker once; each statement's snippet repeats the scope only
    (a second declaration would be "already declared")."""
    async with LeanPool(fake_config(num_workers=1)) as pool:
        pids = set()
        for name in ("a", "b", "c"):
            statement = f"theorem {name} (n : ℕ) (h : is_small n) : n < ten := by"
            async with pool.start_proof(ProofTarget.of(statement, PROOFNET_HEADER)) as proof:
                assert [g.target.pp for g in proof.goals] == ["n < ten"]
                pids.add(proof.worker_pid)
        assert len(pids) == 1


async def test_a_worker_that_took_one_header_is_replaced_for_another() -> None:
    """Definitions cannot be taken back: another header gets a fresh process, and a worker that
    already took a header is lent for it again first."""
    other = "import Init\nopen Nat"
    async with LeanPool(fake_config(num_workers=1)) as pool:
        async with pool.start_proof(ProofTarget.of("theorem a (n : ℕ) (h : is_small n) : n < 10 := by", PROOFNET_HEADER)) as p1:
            first = p1.worker_pid
        async with pool.start_proof(ProofTarget.of("theorem b (x : ℕ) : 0 < x + 1 := by", other)) as p2:
            second = p2.worker_pid
            out = await p2.run_tactic(p2.state_id, "exact pi_pos")  # Real is not open under this header
            assert out.status is TacticStatus.FAILED and "unknown identifier 'pi_pos'" in out.error_text
        async with pool.start_proof(ProofTarget.of("theorem c (x : ℕ) : 0 < x + 1 := by", other)) as p3:
            assert p3.worker_pid == second
        async with pool.start_proof(ProofTarget.of("theorem d (n : ℕ) (h : is_small n) : n < 10 := by", PROOFNET_HEADER)) as p4:
            assert [g.target.pp for g in p4.goals] == ["n < 10"]
        assert first != second and pool.status().restarts >= 1


async def test_a_header_lean_refuses_is_an_invalid_statement_and_the_worker_is_replaced() -> None:
    async with LeanPool(fake_config(num_workers=1)) as pool:
        with pytest.raises(InvalidStatement, match="header"):
            await pool.open_proof(ProofTarget.of("theorem a : 1 = 1 := by", "import Init\ndef f : ℕ := 1\ndef f : ℕ := 2"))
        async with pool.start_proof(ProofTarget.of("theorem b : 1 = 1 := by")) as proof:
            assert proof.goals
