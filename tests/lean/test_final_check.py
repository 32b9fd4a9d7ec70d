"""The whole-file final check: refusals on sight, the compile with its axiom audit, the embedded kernel."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from burnqed.lean import LeanConfig, LeanPool
from burnqed.lean.final_check import (
    ALLOWED_AXIOMS,
    LOCK_WITNESS,
    FileRefused,
    lock_witness,
    process_file,
    refuse_file,
)
from burnqed.lean.statement import parse_header, parse_theorem
from burnqed.lean.target import ProofTarget
from tests.fixtures.lean import fake_config

pytestmark = pytest.mark.anyio

FAKE_LEAN = [sys.executable, "-S", str(Path(__file__).parents[1] / "fixtures" / "fake_lean.py")]
STATEMENT = "∀ (n : Nat), n + 0 = n"
GOOD = "import Mathlib\n\nopen Nat\n\ntheorem t (a : ℕ) : a + 0 = a := by\n  simp\n"


@pytest.fixture(scope="module")
async def embedded_pool() -> AsyncIterator[LeanPool]:
    """One embedded worker for the module's kernel-replay tests (its start-up is most of their
    time); every check is its own goal on it, deleted when done, so no test sees another's."""
    config = LeanConfig(backend="embedded", num_workers=1, startup_timeout_s=60.0, memory_limit_mb=4096)
    async with LeanPool(config) as pool:
        yield pool


def test_a_clean_file_is_read_back_into_header_theorem_and_tactics() -> None:
    parsed = refuse_file(GOOD, statement=parse_theorem("theorem t (a : ℕ) : a + 0 = a := by"),
                         header=parse_header("import Mathlib\nopen Nat"))  # fmt: skip
    assert parsed.decl.name == "t" and parsed.tactics == ("simp",)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (GOOD.replace("simp", "sorry"), "sorry"),
        (GOOD.replace("simp", "admit"), "sorry"),
        (GOOD.replace("simp", "simp -- fine\n  exact sorry"), "sorry"),
        ("axiom cheat : False\n\n" + GOOD, "not allowed"),
        (GOOD + "\ntheorem u : False := by\n  exact cheat\n", "one theorem only"),
        (GOOD + "\naxiom cheat : False\n", "one theorem only"),
        (GOOD.replace("open Nat", "set_option debug.skipKernelTC true"), "debug.skipKernelTC"),
        (GOOD.replace("a + 0 = a", "a + 0 = a ∨ True"), "statement changed"),
        (GOOD.replace("(a : ℕ)", "(a : ℕ) (h : False)"), "statement changed"),
        (GOOD.replace("open Nat", "open Nat Real"), "header changed"),
        ("theorem t (a : ℕ) : a + 0 = a := by\n  simp\n", "header changed"),
    ],
)
def test_files_refused_on_sight(text: str, why: str) -> None:
    with pytest.raises(FileRefused, match=why):
        refuse_file(text, statement=parse_theorem("theorem t (a : ℕ) : a + 0 = a := by"),
                    header=parse_header("import Mathlib\nopen Nat"))  # fmt: skip


def test_the_statement_lock_compares_tokens_not_spacing() -> None:
    """Issue 26: `10∣x` and `10 ∣ x` are one statement; a split or glued token is not."""
    lock = parse_theorem("theorem t (x : ℕ) (h : 10∣x) : x % 10 = 0 := by")
    header = parse_header("import Mathlib")
    spaced = "import Mathlib\n\ntheorem t (x : ℕ)\n    (h : 10 ∣ x) :\n  x%10=0 := by\n  omega\n"
    assert refuse_file(spaced, statement=lock, header=header).tactics == ("omega",)
    for changed in ("(h : 10 ∣ x) : x % 10 < = 0", "(h : 10 ∣ x) : x % 1 0 = 0", "(h : 10 ∣ x!) : x % 10 = 0"):
        text = f"import Mathlib\n\ntheorem t (x : ℕ) {changed} := by\n  omega\n"
        with pytest.raises(FileRefused, match="statement changed"):
            refuse_file(text, statement=lock, header=header)


def test_a_comment_mentioning_sorry_is_not_a_sorry() -> None:
    text = GOOD.replace("  simp", "  -- no sorry needed here\n  simp")
    assert refuse_file(text).tactics == ("simp",)


def _compiled(**fields: object) -> LeanConfig:
    return fake_config(num_workers=1, final_check_command=FAKE_LEAN, **fields)


async def test_the_compile_passes_a_proof_with_standard_axioms_only() -> None:
    async with LeanPool(_compiled()) as pool:
        verdict = await pool.verify_proof(ProofTarget.of(STATEMENT), ["intro n", "exact uses_choice"])
        assert verdict.ok, verdict.reason
        assert verdict.checked_by == "lean" and set(verdict.axioms or []) == ALLOWED_AXIOMS
        assert verdict.file is not None and "theorem burnqed_goal : ∀ (n : Nat), n + 0 = n := by" in verdict.file
        clean = await pool.verify_proof(ProofTarget.of(STATEMENT), ["intro n", "rfl"])
        assert clean.ok and clean.axioms == []


@pytest.mark.parametrize(
    ("tactic", "why"),
    [
        ("exact native", "Lean.ofReduceBool"),
        ("exact cheat", "depends on cheat"),
        ("exact error_here", "lean exited 1"),
    ],
)
async def test_the_compile_refuses_extra_axioms_and_errors(tactic: str, why: str) -> None:
    async with LeanPool(_compiled()) as pool:
        verdict = await pool.verify_proof(ProofTarget.of(STATEMENT), ["intro n", tactic])
    assert not verdict.ok and why in verdict.reason and verdict.checked_by == "lean"


async def test_the_compile_has_a_time_limit() -> None:
    async with LeanPool(_compiled(final_check_timeout_s=1.0)) as pool:
        verdict = await pool.verify_proof(ProofTarget.of(STATEMENT), ["intro n", "exact slow"])
    assert not verdict.ok and "ran past 1.0s" in verdict.reason


async def test_a_missing_compiler_refuses_rather_than_passes() -> None:
    async with LeanPool(fake_config(num_workers=1, final_check_command=["/nonexistent/lean"])) as pool:
        verdict = await pool.verify_proof(ProofTarget.of(STATEMENT), ["intro n", "rfl"])
    assert not verdict.ok and "not found" in verdict.reason


async def test_on_the_embedded_backend_the_kernel_replay_is_the_final_check(embedded_pool: LeanPool) -> None:
    pool = embedded_pool
    ok = await pool.verify_proof(ProofTarget.of("theorem t (a b : ℕ) (h : a = b) : b = a := by", "open Nat"), ["omega"])
    assert ok.ok and ok.checked_by == "kernel", ok.reason
    assert ok.file is not None and ok.file.startswith("open Nat\n\ntheorem t (a b : ℕ) (h : a = b) : b = a := by")
    bad = await pool.verify_proof(ProofTarget.of("theorem t (a : ℕ) : a + 1 = a := by"), ["omega"])
    assert not bad.ok
    outside = await pool.verify_proof(ProofTarget.of("theorem r (x : ℝ) : x ^ 2 ≥ 0 := by"), ["positivity"])
    assert not outside.ok and outside.outside_fragment


@pytest.mark.parametrize(
    "statement",
    [
        "1 + 1 = 2 -- a line comment",
        "/- a block comment -/ 1 + 1 = 2",
        "∀ n : ℕ, /- nested /- block -/ -/ n + 0 = n -- and a line one",
        "theorem t (a : ℕ) : a + 0 = a -- after the type\n:= by",
    ],
)
async def test_a_statement_with_comments_verifies(statement: str, embedded_pool: LeanPool) -> None:
    """Issue 24: the file's statement (comments dropped) is compared with the lock without
    its comments, and a trailing line comment cannot swallow the file's ``:=``."""
    pool = embedded_pool
    tactic = "rfl" if statement.startswith(("1", "/-")) else "intros; simp"
    verdict = await pool.verify_proof(ProofTarget.of(statement), [tactic])
    assert verdict.ok and verdict.checked_by == "kernel", verdict.reason
    wrong = await pool.verify_proof(ProofTarget.of(statement.replace("0 = ", "1 = ").replace("2", "3")), [tactic])
    assert not wrong.ok


async def test_on_the_embedded_backend_the_file_itself_is_elaborated(embedded_pool: LeanPool) -> None:
    """process_file gives the checker the file text, not the tactic list: what the file says is what counts."""
    pool = embedded_pool
    worker = await pool._acquire()
    try:
        good = await process_file(worker, "import Mathlib\n\ntheorem t (a : ℕ) : a + 0 = a := by\n  simp\n")
        assert good.ok and good.checked_by == "kernel", good.reason
        wrong = await process_file(worker, "theorem t (a : ℕ) : a + 1 = a := by\n  simp\n")
        assert not wrong.ok and "error" in wrong.reason
        # the second tactic, outdented, is no longer part of the proof: Lean sees an unfinished proof
        split = await process_file(
            worker, "theorem t (a b : ℕ) (h : a = b) : b = a ∧ a = b := by\n  constructor\n  omega\nomega\n"
        )
        assert not split.ok
        sorry = await process_file(worker, "theorem t (a : ℕ) : a = a + 1 := by\n  sorry\n")
        assert not sorry.ok and "sorry" in sorry.reason
    finally:
        pool._release(worker)


@pytest.mark.lean
async def test_real_lean_compiles_and_audits_axioms() -> None:
    config = LeanConfig(backend="pantograph", imports=["Init"], num_workers=1, read_timeout_s=60.0)
    async with LeanPool(config) as pool:
        ok = await pool.verify_proof(ProofTarget.of("theorem t (a b : Nat) (h : a = b) : b = a := by"), ["exact h.symm"])
        assert ok.ok and ok.checked_by == "lean" and set(ok.axioms or []) <= ALLOWED_AXIOMS, ok.reason
        native = await pool.verify_proof(ProofTarget.of("theorem n : 10 < 20 := by"), ["native_decide"])
        assert not native.ok and "ofReduceBool" in native.reason


async def test_verify_file_compiles_the_file_as_given_and_the_lock_witness(tmp_path: Path) -> None:
    """Issue 37: Lean compiles the file a person keeps, then proves the lock from its theorem."""
    seen = tmp_path / "seen.lean"
    spy = tmp_path / "spy_lean.py"
    spy.write_text(
        "import re, shutil, sys\n"
        f"shutil.copy(sys.argv[-1], {str(seen)!r})\n"
        "name = re.search(r'^#print axioms (\\S+)', open(sys.argv[-1]).read(), re.M).group(1)\n"
        "print(f\"'{name}' does not depend on any axioms\")\n",
        encoding="utf-8",
    )
    text = "theorem kept : ∀ (n : Nat), n + 0 = n := by\n  intro n  -- the person's own comment\n  rfl\n"
    parsed = refuse_file(text)
    config = fake_config(num_workers=1, final_check_command=[sys.executable, "-S", str(spy)])
    async with LeanPool(config) as pool:
        verdict = await pool.verify_proof(ProofTarget.of(parsed.decl.render()), list(parsed.tactics), file_text=text)
    assert verdict.ok, verdict.reason
    compiled = seen.read_text(encoding="utf-8")
    assert compiled.startswith(text.rstrip())  # the file as given, comments and all, not a reassembly
    assert lock_witness(parsed.decl, "kept") in compiled
    assert compiled.rstrip().endswith(f"#print axioms {LOCK_WITNESS}")
    assert lock_witness(parsed.decl, "kept") == f"theorem {LOCK_WITNESS} : ∀ (n : Nat), n + 0 = n :=\n  @kept"


@pytest.mark.lean
async def test_real_lean_refuses_a_file_whose_theorem_is_not_the_lock() -> None:
    """The lock witness makes Lean itself compare its reading of the file's theorem with the lock."""
    from burnqed.lean.final_check import compile_file
    from burnqed.lean.statement import statement_decl

    config = LeanConfig(backend="pantograph", imports=["Init"], num_workers=1)
    text = "theorem t (a b : Nat) (h : a = b) : b = a := by\n  exact h.symm\n"
    parsed = refuse_file(text)
    lock = statement_decl("theorem t (a b : Nat) (h : a = b) : b = a")
    good = await compile_file(text, parsed, config, ["lean"], lock=lock)
    assert good.ok, good.reason
    other = statement_decl("theorem t (a b : Nat) (h : a = b) : a = b + 0 + 1")
    bad = await compile_file(text, parsed, config, ["lean"], lock=other)
    assert not bad.ok and "lean exited" in bad.reason
