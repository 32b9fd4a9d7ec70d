"""A second world nearer the field: the in-fragment statements of a miniF2F benchmark file.

The depth world (burnqed.data.depth) is generated; this one is the field's own benchmark as
shipped (burnqed.data.minif2f reads the file, e.g. DeepSeek-Prover-V1.5's
``datasets/minif2f.jsonl``, 244 valid and 244 test statements). ``build_world`` keeps the
statements the backend can elaborate — each is opened through the Lean pool exactly as a
search opens it (header, theorem form), and one the embedded checker refuses
(``OutsideFragment``: ℝ, ``Finset``, ``∑``, …) or cannot elaborate (``InvalidStatement``) is
left out and named — and writes three statement files, no proofs:

- ``pool.jsonl``: the valid split minus the tuning split, the unlabelled training pool;
- ``tune.jsonl``: carved from the valid split by a seeded hash of each statement's lock hash
  (``in_tuning_split``), the only held-out set any setting is chosen on;
- ``test.jsonl``: the test split, evaluated once per final configuration, never tuned on;

plus ``world.json`` (``WorldRecord``: the source file's SHA-256, the rule, the three name
lists and every statement left out with the checker's reason). The run then takes them by
path: ``burnqed iterate --theorems pool.jsonl --held-out tune.jsonl`` (or ``test.jsonl``).
The field's data is never written into the repository: the files go where ``--out`` says.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

from burnqed.data.theorems import Theorem, TheoremSetError, load_theorems, save_theorems
from burnqed.files import write_json_atomic
from burnqed.lean.errors import InvalidInput, InvalidStatement, OutsideFragment

if TYPE_CHECKING:
    from burnqed.lean.pool import LeanPool

__all__ = [
    "TUNING_RULE",
    "FragmentVerdict",
    "WorldError",
    "WorldRecord",
    "build_world",
    "fragment_verdicts",
    "in_tuning_split",
]

TUNING_RULE = (
    "tuning iff int(sha256(f'{tune_seed}:{Theorem.sha}')[:16], 16) / 2**64 < tune_share "
    "(Theorem.sha: lock hash of header + statement)"
)
WORLD_FILES = ("pool.jsonl", "tune.jsonl", "test.jsonl", "world.json")


class WorldError(ValueError):
    """The benchmark file cannot make a world (unreadable, a split missing, nothing inside the fragment)."""


class FragmentVerdict(BaseModel):
    """Whether the backend elaborates one statement, and why not."""

    model_config = ConfigDict(frozen=True)

    name: str
    split: str | None = None
    verdict: Literal["inside", "outside_fragment", "invalid_statement"]
    detail: str = ""


class WorldRecord(BaseModel):
    """``world.json``: where the world's statements came from and how they were split."""

    model_config = ConfigDict(frozen=True)

    source: str
    source_sha256: str
    backend: str = Field(description="the backend whose elaboration decided what is inside")
    pool_split: str
    test_split: str
    tune_share: float
    tune_seed: int
    tuning_rule: str = TUNING_RULE
    pool: list[str]
    tune: list[str]
    test: list[str]
    left_out: list[FragmentVerdict] = Field(description="statements of either split the backend did not elaborate")
    read_total: dict[str, int] = Field(description="statements of each split read from the file")


def in_tuning_split(theorem: Theorem, share: float, seed: int) -> bool:
    """TUNING_RULE: a function of the statement and the seed alone, so adding statements moves none."""
    digest = hashlib.sha256(f"{seed}:{theorem.sha}".encode()).hexdigest()
    return int(digest[:16], 16) / 2**64 < share


async def fragment_verdicts(
    pool: LeanPool, theorems: Sequence[Theorem], *, progress: Callable[[int], None] | None = None
) -> list[FragmentVerdict]:
    """Open each statement as a search would (header, theorem form) and say whether it elaborated."""
    out: list[FragmentVerdict] = []
    for index, theorem in enumerate(theorems):
        try:
            async with pool.start_proof(theorem.target):
                verdict = FragmentVerdict(name=theorem.name, split=theorem.split, verdict="inside")
        except OutsideFragment as exc:
            verdict = FragmentVerdict(name=theorem.name, split=theorem.split, verdict="outside_fragment", detail=_one_line(exc))
        except (InvalidStatement, InvalidInput) as exc:
            verdict = FragmentVerdict(name=theorem.name, split=theorem.split, verdict="invalid_statement", detail=_one_line(exc))
        out.append(verdict)
        if progress is not None:
            progress(index)
    return out


def _one_line(exc: Exception) -> str:
    return " ".join(str(exc).split())[:300]


def _read_split(source: Path, split: str) -> list[Theorem]:
    try:
        return load_theorems(source, split=split)
    except TheoremSetError as exc:
        raise WorldError(f"{source}: {exc}") from exc


async def build_world(
    source: str | Path,
    out_dir: str | Path,
    pool: LeanPool,
    *,
    tune_share: float,
    tune_seed: int,
    pool_split: str = "valid",
    test_split: str = "test",
    progress: Callable[[int], None] | None = None,
) -> WorldRecord:
    """Write ``pool.jsonl``, ``tune.jsonl``, ``test.jsonl`` and ``world.json`` under ``out_dir``."""
    if not 0.0 < tune_share < 1.0:
        raise WorldError(f"tune_share must lie strictly between 0 and 1, got {tune_share}")
    source, out = Path(source), Path(out_dir)
    valid, test = _read_split(source, pool_split), _read_split(source, test_split)
    # verdicts in file order, split by split (a name may recur across splits)
    verdicts = await fragment_verdicts(pool, [*valid, *test], progress=progress)
    inside = [v.verdict == "inside" for v in verdicts]
    valid_in = [t for t, ok in zip(valid, inside[: len(valid)], strict=True) if ok]
    test_in = [t for t, ok in zip(test, inside[len(valid) :], strict=True) if ok]
    if not valid_in or not test_in:
        raise WorldError(
            f"{source}: {len(valid_in)} {pool_split} and {len(test_in)} {test_split} statement(s) elaborate on "
            f"the {pool.backend} backend; a world needs both"
        )
    fenced = {t.sha for t in test_in}  # a statement in both splits stays held out only
    tune = [t for t in valid_in if in_tuning_split(t, tune_share, tune_seed) and t.sha not in fenced]
    tuned = {t.sha for t in tune}
    train = [t for t in valid_in if t.sha not in tuned and t.sha not in fenced]
    if not train or not tune:
        raise WorldError(f"tune_share {tune_share} leaves {len(train)} pool and {len(tune)} tuning statement(s)")
    out.mkdir(parents=True, exist_ok=True)
    save_theorems(out / "pool.jsonl", train)
    save_theorems(out / "tune.jsonl", tune)
    save_theorems(out / "test.jsonl", test_in)
    record = WorldRecord(
        source=str(source.resolve()),
        source_sha256=hashlib.sha256(source.read_bytes()).hexdigest(),
        backend=pool.backend,
        pool_split=pool_split,
        test_split=test_split,
        tune_share=tune_share,
        tune_seed=tune_seed,
        pool=[t.name for t in train],
        tune=[t.name for t in tune],
        test=[t.name for t in test_in],
        left_out=[v for v in verdicts if v.verdict != "inside"],
        read_total={pool_split: len(valid), test_split: len(test)},
    )
    write_json_atomic(out / "world.json", record.model_dump(mode="json"), indent=2)
    return record
