"""The benchmark generator: graded statements with checked reference proofs.

``generate_test()`` is the held-out set: 300 statements from a fixed seed, the same bytes on
every call (``load_builtin("benchmark-test")`` reads the copy shipped in the package, and a
test regenerates slots of it to prove the two agree). ``generate_train(size, seed)`` draws a
fresh training set for any seed, never containing a held-out statement (statement-hash
exclusion). Slot ``i`` of a set has nominal difficulty ``1 + 6*i // size`` steps and is drawn
from ``random.Random(f"{seed}:{i}:{attempt}")``, so a slot depends only on its own draws:
a candidate whose proof the checker rejects (or that collides with an excluded or earlier
statement) is redrawn with the next attempt, and no other slot moves.
"""

from __future__ import annotations

import logging
import random
from collections import Counter
from collections.abc import Callable, Collection, Container
from typing import Literal

from burnqed.data.families import FAMILIES, Draft, Family, families_by_level
from burnqed.data.theorems import Theorem, statement_sha
from burnqed.embedded.repl.verify import CheckerLike, check_proof, new_checker

__all__ = [
    "GENERATOR_VERSION",
    "MAX_LEVEL",
    "TEST_SEED",
    "TEST_SIZE",
    "BenchmarkError",
    "build_slot",
    "draw_slot",
    "family_names",
    "generate",
    "generate_test",
    "generate_train",
    "level_of_slot",
]

log = logging.getLogger(__name__)

GENERATOR_VERSION = 1
TEST_SEED = 314159
TEST_SIZE = 300
MAX_LEVEL = 6

Split = Literal["train", "test"]


class BenchmarkError(RuntimeError):
    """A benchmark slot found no verified statement within its attempts."""


def level_of_slot(index: int, size: int) -> int:
    """The nominal difficulty (steps) of slot ``index`` in a set of ``size``: graded 1 … 6."""
    return 1 + (MAX_LEVEL * index) // max(size, 1)


def _family_for(level: int, rng: random.Random) -> Family:
    by_level = families_by_level()
    # a level without families of its own borrows from the nearest level below
    while level not in by_level and level > 1:
        level -= 1
    return rng.choice(by_level[level])


def draw_slot(seed: int, index: int, size: int, attempt: int) -> tuple[Family, Draft]:
    """The unverified candidate for one slot and attempt (deterministic in its arguments)."""
    rng = random.Random(f"{seed}:{index}:{attempt}")
    family = _family_for(level_of_slot(index, size), rng)
    return family, family.make(rng)


def build_slot(
    split: Split,
    size: int,
    seed: int,
    index: int,
    *,
    reject: Container[str] = (),
    checker: CheckerLike | None = None,
    max_attempts: int = 20,
    rejected: Counter[str] | None = None,
) -> Theorem:
    """The theorem of one slot: the first attempt whose hash is not in ``reject`` and whose proof checks.

    Without a ``checker`` the proof is the family's unchecked draft.
    """
    for attempt in range(max_attempts):
        family, draft = draw_slot(seed, index, size, attempt)
        if statement_sha(draft.statement) in reject:
            continue
        proof = draft.proof
        if checker is not None:
            verdict = check_proof(checker, draft.statement, draft.proof, truncate=True)
            if not verdict.ok:
                if rejected is not None:
                    rejected[family.name] += 1
                log.debug("rejected %s draft %r: %s", family.name, draft.statement, verdict.error)
                continue
            proof = draft.proof[: verdict.steps]
        return Theorem(
            name=f"{split}_{index:04d}",
            statement=draft.statement,
            proof=proof,
            source=f"burnqed.benchmark:v{GENERATOR_VERSION}:{split}:seed={seed}",
            tags=[f"family:{family.name}", f"steps:{len(proof)}", f"level:{family.level}"],
        )
    raise BenchmarkError(f"slot {index} of {split} seed {seed}: no verified statement in {max_attempts} attempts")


def generate(
    split: Split,
    size: int,
    seed: int,
    *,
    exclude: Collection[str] = (),
    checker: CheckerLike | None = None,
    verify: bool = True,
    max_attempts: int = 20,
    verify_timeout_s: float = 10.0,
    progress: Callable[[int], None] | None = None,
) -> list[Theorem]:
    """Draw ``size`` statements with reference proofs checked by the embedded checker.

    ``exclude`` holds statement hashes that must not appear (the held-out set's, for a
    training set). With ``verify`` off, the proofs are the families' unchecked drafts.
    ``progress`` is called with the slot index after each slot.
    """
    if verify and checker is None:
        checker = new_checker(verify_timeout_s)
    reject = set(exclude)
    theorems: list[Theorem] = []
    rejected: Counter[str] = Counter()
    for index in range(size):
        theorem = build_slot(
            split, size, seed, index, reject=reject, checker=checker if verify else None,
            max_attempts=max_attempts, rejected=rejected,
        )  # fmt: skip
        reject.add(theorem.sha)
        theorems.append(theorem)
        if progress is not None:
            progress(index)
    if rejected:
        log.info("checker rejected drafts per family: %s", dict(rejected))
    return theorems


def generate_test(*, checker: CheckerLike | None = None, verify: bool = True) -> list[Theorem]:
    """The held-out set: ``TEST_SIZE`` statements from ``TEST_SEED`` (identical on every call)."""
    return generate("test", TEST_SIZE, TEST_SEED, checker=checker, verify=verify)


def generate_train(
    size: int,
    seed: int,
    *,
    checker: CheckerLike | None = None,
    verify: bool = True,
    held_out: Collection[str],
    max_attempts: int = 20,
    progress: Callable[[int], None] | None = None,
) -> list[Theorem]:
    """A fresh training set for ``seed``, disjoint from the held-out set by statement hash.

    ``held_out``: statement hashes to exclude (burnqed.data.sets.held_out_hashes()).
    """
    if seed == TEST_SEED:
        raise BenchmarkError(f"seed {TEST_SEED} is reserved for the held-out set")
    return generate(
        "train", size, seed, exclude=held_out, checker=checker, verify=verify, max_attempts=max_attempts,
        progress=progress,
    )  # fmt: skip


def family_names() -> list[str]:
    """Every family's name, in registry order."""
    return list(FAMILIES)
