"""The depth world: statements whose proofs compose more steps as a depth parameter grows.

A statement of depth d is ``∀ (n : ℕ), P₁ ∧ P₂ ∧ … ∧ P_d``, each part drawn from a few kinds
that no automation tactic closes alone (an ∃ needs its witness through ``use``, a square
needs ``ring``); its reference proof is ``intro n``, then per part ``constructor`` (all but
the last) and the part's own steps: 3·d steps or so. So a policy that learnt every part from
shallow proofs still has to compose them, deeper than any proof it was shown, within a node
budget: the setting where search, learning from what search found, and the order of the
frontier matter.

- ``depth_pool(size, seed, labelled_depth)``: the unlabeled training pool, depths 1 … 6
  graded like the benchmark (slot i has depth ``1 + 6·i // size``); only statements of depth
  ≤ ``labelled_depth`` keep a reference proof, deeper ones carry none (no reference proof of
  them exists to train on). The held-out statements are excluded by hash.
- ``depth_test()``: the held-out test split, fixed before any tuning: ``DEPTH_TEST_SIZE``
  statements from ``DEPTH_TEST_SEED``, depths 3 … 5 (a third each), every one deeper than any
  labelled pool statement (depth ≤ 2 by default). Evaluated once per final configuration.
- ``depth_tune()``: the tuning split of the same distribution (same depths and size) from its
  own seed ``DEPTH_TUNE_SEED``, disjoint from the test split by statement hash: every choice
  (budgets, sampling, sizes, the head) is made on it, never on the test split.

Every reference proof is checked by the embedded checker when drawn (burnqed.embedded.repl.verify).
"""

from __future__ import annotations

import random
from collections.abc import Collection

from burnqed.data.benchmark import BenchmarkError
from burnqed.data.theorems import Theorem, statement_sha
from burnqed.embedded.repl.verify import CheckerLike, check_proof, new_checker

__all__ = [
    "DEPTH_TEST_LEVELS",
    "DEPTH_TEST_SEED",
    "DEPTH_TEST_SIZE",
    "DEPTH_TUNE_SEED",
    "DEPTH_VERSION",
    "depth_pool",
    "depth_statement",
    "depth_test",
    "depth_tune",
]

DEPTH_VERSION = 2  # 2: `use` alone proves the offset part (an `omega` after it met no goal in Lean)
DEPTH_TEST_SEED = 271828
DEPTH_TUNE_SEED = 161803  # the tuning split's own seed: a different draw of the test split's distribution
DEPTH_TEST_SIZE = 150
DEPTH_TEST_LEVELS = (3, 4, 5)
MAX_DEPTH = 6

_VARS = ("n", "a", "x")
_BOUND = ("m", "k", "j", "t")


def _part(rng: random.Random, n: str) -> tuple[str, list[str]]:
    """One conjunct about ``n`` and the steps that prove it (automation alone does not)."""
    m = rng.choice(_BOUND)
    kind = rng.randrange(4)
    if kind == 0:
        c = rng.randint(0, 9)
        return f"(∃ ({m} : ℕ), {m} > {n} + {c})", [f"use {n} + {c + 1}", "omega"]
    if kind == 1:
        c = rng.randint(1, 9)
        d = rng.randint(c, c + 9)
        # `use` closes `n + (d - c) + c = n + d` itself: Mathlib's use_discharger tries `with_reducible
        # rfl`, and Lean's defeq check unifies ℕ literal offsets (isDefEqOffsetNat) at any transparency
        return f"(∃ ({m} : ℕ), {m} + {c} = {n} + {d})", [f"use {n} + {d - c}"]
    if kind == 2:
        k, j = rng.randint(2, 7), rng.randint(1, 6)
        return f"(∃ ({m} : ℕ), {k} * {m} = {k} * {n} + {k * j})", [f"use {n} + {j}", "ring"]
    c = rng.randint(1, 6)
    return f"({n} + {c}) * ({n} + {c}) = {n} * {n} + {2 * c} * {n} + {c * c}", ["ring"]


def depth_statement(rng: random.Random, depth: int) -> tuple[str, list[str]]:
    """A statement of ``depth`` conjuncts and its (unchecked) reference proof."""
    n = rng.choice(_VARS)
    parts = [_part(rng, n) for _ in range(depth)]
    proof = [f"intro {n}"]
    for i, (_, steps) in enumerate(parts):
        if i < depth - 1:
            proof.append("constructor")
        proof += steps
    return f"∀ ({n} : ℕ), " + " ∧ ".join(text for text, _ in parts), proof


def _draw(
    split: str, seed: int, index: int, depth: int, *, reject: Collection[str], checker: CheckerLike,
    labelled: bool, max_attempts: int,
) -> Theorem:
    for attempt in range(max_attempts):
        rng = random.Random(f"depth:{seed}:{index}:{attempt}")
        statement, proof = depth_statement(rng, depth)
        sha = statement_sha(statement)
        if sha in reject:
            continue
        verdict = check_proof(checker, statement, proof)
        if not verdict.ok:
            continue
        return Theorem(
            name=f"{split}_{index:04d}",
            statement=statement,
            proof=proof if labelled else None,
            source=f"burnqed.depth:v{DEPTH_VERSION}:{split}:seed={seed}",
            tags=["family:depth_chain", f"depth:{depth}", f"level:{depth}", f"steps:{len(proof)}"],
        )
    raise BenchmarkError(f"depth slot {index} of {split} seed {seed}: no verified statement in {max_attempts} attempts")


def _held_out(split: str, seed: int, reject: set[str], checker: CheckerLike | None) -> list[Theorem]:
    checker = checker or new_checker(10.0)
    out = []
    for index in range(DEPTH_TEST_SIZE):
        depth = DEPTH_TEST_LEVELS[(len(DEPTH_TEST_LEVELS) * index) // DEPTH_TEST_SIZE]
        theorem = _draw(split, seed, index, depth, reject=reject, checker=checker, labelled=True, max_attempts=20)
        reject.add(theorem.sha)
        out.append(theorem)
    return out


def depth_test(*, checker: CheckerLike | None = None) -> list[Theorem]:
    """The held-out test split of the depth world: the same statements on every call."""
    return _held_out("depth_test", DEPTH_TEST_SEED, set(), checker)


def depth_tune(*, checker: CheckerLike | None = None, test: list[Theorem] | None = None) -> list[Theorem]:
    """The tuning split: the test split's distribution from another seed, none of the test split's statements."""
    checker = checker or new_checker(10.0)
    # ``test``: the test split already at hand (a cached copy), so it is not drawn and checked again
    held = test if test is not None else depth_test(checker=checker)
    return _held_out("depth_tune", DEPTH_TUNE_SEED, {t.sha for t in held}, checker)


def depth_pool(
    size: int,
    seed: int,
    *,
    labelled_depth: int = 2,
    exclude: Collection[str] = (),
    checker: CheckerLike | None = None,
    max_attempts: int = 20,
) -> list[Theorem]:
    """The unlabeled pool: depths 1 … 6 graded over ``size`` slots; reference proofs only up to ``labelled_depth``."""
    if seed in (DEPTH_TEST_SEED, DEPTH_TUNE_SEED):
        raise BenchmarkError(f"seed {seed} is reserved for the depth world's held-out splits")
    checker = checker or new_checker(10.0)
    reject = set(exclude)
    out = []
    for index in range(size):
        depth = 1 + (MAX_DEPTH * index) // max(size, 1)
        theorem = _draw("pool", seed, index, depth, reject=reject, checker=checker,
                        labelled=depth <= labelled_depth, max_attempts=max_attempts)
        reject.add(theorem.sha)
        out.append(theorem.model_copy(update={"name": f"pool_{index:04d}"}))
    return out
