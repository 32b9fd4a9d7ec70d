"""The user's own theorems as a run's targets: the training and held-out sets carved from one file.

``iteration.theorems`` names the user's statement file (burnqed.data.statements: a ``.lean``
file, a miniF2F-style or plain-statement JSONL; no proofs needed). The held-out split is
explicit: ``iteration.held_out`` (its own file; any of its statements in the theorems file
leaves the training set), or else the fixed rule "held out when the first 16 hex digits of
the statement's lock hash (``Theorem.sha``: token hash of header and statement), read as a
fraction of 2^64, fall below ``iteration.held_out_share``" — a function of the statement
alone, so adding statements never moves one across the split.

``prepare_targets`` writes ``RUN/targets/train.jsonl`` and ``held_out.jsonl`` and records
the rule, the source files' hashes, both name lists and the skipped statements in
``RUN/targets/targets.json``; the run's ``iteration.train_set`` / ``eval_set`` then point
at the two files, so every existing guarantee holds for them: the held-out file is the
evaluation set, which the tools' held-out fence (burnqed.tools.common.held_out) hides from the
agent, and the training search never sees a held-out statement.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from burnqed.data.theorems import Theorem, TheoremSetError, save_theorems
from burnqed.files import write_text_atomic
from burnqed.iteration.config import IterationRunConfig
from burnqed.iteration.errors import IterationDataError
from burnqed.iteration.layout import RunLayout

if TYPE_CHECKING:
    from burnqed.lean.pool import LeanPool

__all__ = [
    "HASH_RULE",
    "TargetsRecord",
    "WrittenProofs",
    "held_out_by_hash",
    "prepare_targets",
    "split_targets",
    "targets_dir",
    "write_found_proofs",
]

C = TypeVar("C", bound=IterationRunConfig)

HASH_RULE = "held out iff int(Theorem.sha[:16], 16) / 2**64 < held_out_share (Theorem.sha: lock hash of header + statement)"


class SkippedStatement(BaseModel):
    """A statement of a file that was not read, and why."""

    model_config = ConfigDict(frozen=True)

    file: str
    line: int
    reason: str


class TargetsRecord(BaseModel):
    """``RUN/targets/targets.json``: where the run's statements came from and how they were split."""

    model_config = ConfigDict(frozen=True)

    theorems: str = Field(description="the user's statement file")
    theorems_sha256: str
    rule: Literal["file", "hash"] = Field(description="held-out given as its own file, or carved by the hash rule")
    held_out_file: str | None = None
    held_out_sha256: str | None = None
    held_out_share: float | None = None
    hash_rule: str | None = None
    train: list[str]
    held_out: list[str]
    skipped: list[SkippedStatement] = Field(default_factory=list)


def targets_dir(run_dir: str | Path) -> Path:
    """Where a run keeps its carved statement sets: ``RUN/targets/``."""
    return RunLayout(run_dir).root / "targets"


def held_out_by_hash(theorem: Theorem, share: float) -> bool:
    """The hash rule (HASH_RULE): whether ``theorem`` is held out at ``share``."""
    return int(theorem.sha[:16], 16) / 2**64 < share


def split_targets(
    theorems: list[Theorem], held_out: list[Theorem] | None, share: float
) -> tuple[list[Theorem], list[Theorem]]:
    """(training, held-out): the given held-out file (its statements removed from training), or the hash rule."""
    if held_out is not None:
        fenced = {t.sha for t in held_out}
        return [t for t in theorems if t.sha not in fenced], list(held_out)
    train = [t for t in theorems if not held_out_by_hash(t, share)]
    return train, [t for t in theorems if held_out_by_hash(t, share)]


def _read(path: Path, skipped: list[SkippedStatement]) -> list[Theorem]:
    from burnqed.data.statements import read_statement_file

    try:
        theorems, bad = read_statement_file(path)
    except TheoremSetError as exc:
        raise IterationDataError(f"{path}: {exc}") from exc
    skipped += [SkippedStatement(file=str(path), line=line, reason=reason) for line, reason in bad]
    return theorems


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def prepare_targets(config: C, run_dir: str | Path) -> C:
    """With ``iteration.theorems`` set: write the run's two sets and their record, and return the config
    whose ``train_set`` / ``eval_set`` are those files (all of each); otherwise the config unchanged."""
    it = config.iteration
    if it.theorems is None:
        return config
    skipped: list[SkippedStatement] = []
    source = Path(it.theorems)
    theorems = _read(source, skipped)
    given = _read(Path(it.held_out), skipped) if it.held_out is not None else None
    train, held_out = split_targets(theorems, given, it.held_out_share)
    if not train:
        raise IterationDataError(f"{source}: no statement left to search once the held-out ones are set aside")
    if not held_out:
        raise IterationDataError(
            f"{source}: no statement is held out (the hash rule at share {it.held_out_share} picked none); "
            "give the held-out statements as a file (--held-out FILE) or raise iteration.held_out_share"
        )
    directory = targets_dir(run_dir)
    train_path, held_path = directory / "train.jsonl", directory / "held_out.jsonl"
    save_theorems(train_path, train)
    save_theorems(held_path, held_out)
    record = TargetsRecord(
        theorems=str(source),
        theorems_sha256=_sha256(source),
        rule="file" if given is not None else "hash",
        held_out_file=str(it.held_out) if it.held_out is not None else None,
        held_out_sha256=_sha256(Path(it.held_out)) if it.held_out is not None else None,
        held_out_share=None if given is not None else it.held_out_share,
        hash_rule=None if given is not None else HASH_RULE,
        train=[t.name for t in train],
        held_out=[t.name for t in held_out],
        skipped=skipped,
    )
    write_text_atomic(directory / "targets.json", record.model_dump_json(indent=2) + "\n")
    iteration = it.model_copy(
        update={"train_set": str(train_path), "train_size": len(train), "eval_set": str(held_path), "eval_size": 0}
    )
    return config.model_copy(update={"iteration": iteration})


class WrittenProofs(BaseModel):
    """What ``write_found_proofs`` wrote: the file, the theorems in it, and those whose proof the check refused."""

    model_config = ConfigDict(frozen=True)

    path: str
    proved: list[str]
    refused: dict[str, str] = Field(default_factory=dict)


async def write_found_proofs(run_dir: str | Path, out: Path, pool: LeanPool) -> WrittenProofs:
    """Write the proofs the run's searches found as one Lean file: the user's header once, then each proved
    theorem under its own name, in the file's order; each proof passes the whole-file check first
    (``pool.verify_proof``: the replay gate, then the final check), a refused one is left out and named."""
    from burnqed.data.theorems import load_theorems
    from burnqed.trajectory.reader import proofs_in

    layout = RunLayout(run_dir)
    train_path = targets_dir(run_dir) / "train.jsonl"
    if not train_path.is_file():
        raise IterationDataError(f"{run_dir} has no targets/train.jsonl: run `burnqed iterate --theorems FILE` first")
    theorems = load_theorems(train_path)
    found: dict[str, list[str]] = {}
    directory = layout.trajectories_dir
    for path in sorted(directory.glob("iter_*.parquet")) if directory.is_dir() else []:
        for name, tactics in proofs_in(path).items():
            if name not in found or len(tactics) < len(found[name]):
                found[name] = tactics  # the shortest proof found in any iteration
    blocks: list[str] = []
    proved: list[str] = []
    refused: dict[str, str] = {}
    header = next((t.header for t in theorems if t.header), None)
    for theorem in theorems:
        tactics = found.get(theorem.name)
        if tactics is None:
            continue
        verdict = await pool.verify_proof(theorem.target, tactics)
        if not verdict.ok:
            refused[theorem.name] = verdict.reason
            continue
        blocks.append(theorem.model_copy(update={"header": None}).lean_file(tactics))
        proved.append(theorem.name)
    text = (f"{header.strip()}\n\n" if header else "") + "\n".join(blocks)
    write_text_atomic(out, text)
    return WrittenProofs(path=str(out), proved=proved, refused=refused)
