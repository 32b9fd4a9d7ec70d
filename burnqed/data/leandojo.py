"""Mathlib (state, tactic) pairs from LeanDojo-traced data, as fine-tuning data for the policy.

LeanDojo Benchmark 4 is a directory ``<root>/<random|novel_premises>/<train|val|test>.json``;
each file is a JSON array of theorem records::

    {"url": ..., "commit": ..., "file_path": "Mathlib/...", "full_name": "Nat.foo", "start": [l, c],
     "end": [l, c], "traced_tactics": [{"tactic": "simp", "annotated_tactic": ["simp", [...]],
                                        "state_before": "n : ℕ\\n⊢ ...", "state_after": "no goals"}, ...]}

JSON Lines of the same records are read too. ``state_before`` is Lean's pretty-printed goal
list (``h : T`` lines, ``⊢ target``, goals separated by a blank line, ``case tag`` lines),
the shape ``burnqed.lean.protocol.render_goals`` gives, so states are only normalised for
whitespace (and a Lean 3 style ``N goals`` header is dropped). Pairs whose tactic is or
contains ``sorry``/``admit``, and pairs whose state is ``no goals``, are skipped; exact
(state, tactic) duplicates are kept once. ``write_pairs`` writes the JSON Lines that
``burnqed.policy.sft.load_pairs`` reads.

Errors::

    LeanDojoError (ValueError)   unreadable or malformed input, naming the file and record
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from burnqed.files import write_text_atomic

__all__ = ["LeanDojoError", "TacticPair", "load_leandojo", "normalise_state", "write_pairs"]

log = logging.getLogger(__name__)

NO_GOALS = "no goals"
# `sorry` / `admit` as a word of the tactic (not inside an identifier such as `admits_x` or `h.sorry'`)
_SORRY = re.compile(r"(?<![\w.'])(?:sorry|admit)(?![\w'])")
_GOALS_HEADER = re.compile(r"\A\d+ goals?\n")
_SPLIT = re.compile(r"\A(?:[\w-]+/)?[\w-]+\Z")


class LeanDojoError(ValueError):
    """LeanDojo input that cannot be read: a missing file, bad JSON, a malformed record."""


class TacticPair(BaseModel):
    """One traced tactic: the state before it, the tactic, the state after, and where it came from."""

    model_config = ConfigDict(frozen=True)

    state: str
    tactic: str
    state_after: str
    theorem: str
    file_path: str
    source: str = "leandojo"


class _TracedTactic(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)

    tactic: str
    state_before: str
    state_after: str


class _TheoremRecord(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)

    full_name: str
    file_path: str
    traced_tactics: list[_TracedTactic]


def normalise_state(text: str) -> str:
    """A LeanDojo state as burnqed renders goals: LF line ends, no trailing spaces, one blank line between goals."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _GOALS_HEADER.sub("", text)
    lines = [line.rstrip() for line in text.split("\n")]
    out: list[str] = []
    for line in lines:
        if not line and (not out or not out[-1]):
            continue  # leading blank lines, and a second blank line in a row
        out.append(line)
    while out and not out[-1]:
        out.pop()
    return "\n".join(out)


def load_leandojo(path: str | Path, *, split: str | None = None, limit: int | None = None) -> list[TacticPair]:
    """The tactic pairs of a LeanDojo file, or of ``<dir>/<split>.json`` (split default ``train``), in file order.

    ``split`` names a file of a LeanDojo directory: ``train`` / ``val`` / ``test`` inside
    ``random/`` or ``novel_premises/``, or ``random/train`` and the like from the benchmark
    root. ``limit`` caps the number of pairs returned (after skipping and de-duplication).
    """
    if limit is not None and limit < 0:
        raise LeanDojoError(f"limit must be ≥ 0, not {limit}")
    file = _resolve(Path(path), split)
    pairs: dict[tuple[str, str], TacticPair] = {}
    skipped = {"sorry": 0, "no goals": 0, "duplicate": 0}
    theorems = 0
    for where, raw in _records(file):
        if limit is not None and len(pairs) >= limit:
            break
        record = _validate(raw, where)
        theorems += 1
        for traced in record.traced_tactics:
            if limit is not None and len(pairs) >= limit:
                break
            state, tactic = normalise_state(traced.state_before), traced.tactic.strip()
            if not state or state == NO_GOALS:
                skipped["no goals"] += 1
            elif not tactic or _SORRY.search(tactic):
                skipped["sorry"] += 1
            elif (state, tactic) in pairs:
                skipped["duplicate"] += 1
            else:
                pairs[(state, tactic)] = TacticPair(
                    state=state,
                    tactic=tactic,
                    state_after=normalise_state(traced.state_after),
                    theorem=record.full_name,
                    file_path=record.file_path,
                )
    log.info(
        "%s: %d pairs from %d theorems (skipped: %d sorry/admit, %d no goals, %d duplicates)",
        file, len(pairs), theorems, skipped["sorry"], skipped["no goals"], skipped["duplicate"],
    )
    return list(pairs.values())


def write_pairs(path: str | Path, pairs: Iterable[TacticPair]) -> int:
    """Write pairs as JSON Lines (state, tactic, state_after, source, theorem) atomically; returns the count."""
    path = Path(path)
    if path.suffix != ".jsonl":
        # burnqed.policy.sft.load_pairs reads JSON Lines by suffix (anything else is trajectory Parquet)
        raise LeanDojoError(f"{path}: a pairs file must end in .jsonl")
    lines = [
        json.dumps(
            {
                "state": pair.state,
                "tactic": pair.tactic,
                "state_after": pair.state_after,
                "source": pair.source,
                "theorem": pair.theorem,
            },
            ensure_ascii=False,
        )
        + "\n"
        for pair in pairs
    ]
    write_text_atomic(path, "".join(lines))
    return len(lines)


def _resolve(path: Path, split: str | None) -> Path:
    """The file to read: ``path`` itself, or a split's file in a LeanDojo directory."""
    if path.is_file():
        if split is not None:
            raise LeanDojoError(f"{path} is a file: split={split!r} names a file in a LeanDojo directory")
        return path
    if not path.is_dir():
        raise LeanDojoError(f"{path}: no such file or directory")
    split = split or "train"
    if not _SPLIT.match(split):
        raise LeanDojoError(f"split {split!r}: expected train, val, test or <random|novel_premises>/<train|val|test>")
    for suffix in (".json", ".jsonl"):
        candidate = path / f"{split}{suffix}"
        if candidate.is_file():
            return candidate
    found = sorted(str(p.relative_to(path).with_suffix("")) for p in (*path.glob("*.json*"), *path.glob("*/*.json*")))
    found = [name for name in found if name not in ("corpus", "metadata")]
    hint = f"; found: {', '.join(found)}" if found else ""
    raise LeanDojoError(f"{path}: no {split}.json (split={split!r}){hint}")


def _records(file: Path) -> Iterator[tuple[str, Any]]:
    """(where, raw record) of a JSON array or a JSON Lines file; ``where`` names the file and record."""
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise LeanDojoError(f"{file}: cannot read: {exc}") from exc
    body = text.lstrip()
    if not body:
        raise LeanDojoError(f"{file}: empty file (expected a JSON array or JSON Lines of theorem records)")
    if body.startswith("["):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise LeanDojoError(f"{file}: not JSON: {exc}") from exc
        if not isinstance(data, list):
            raise LeanDojoError(f"{file}: expected a JSON array of theorem records")
        for index, raw in enumerate(data):
            yield f"{file}: record {index}", raw
        return
    index = 0
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{file}:{lineno}: record {index}"
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as exc:
            raise LeanDojoError(f"{where}: not JSON: {exc}") from exc
        yield where, raw
        index += 1


def _validate(raw: Any, where: str) -> _TheoremRecord:
    """A theorem record, or LeanDojoError naming the record and the first bad fields."""
    if not isinstance(raw, dict):
        raise LeanDojoError(f"{where}: expected a theorem object, got {type(raw).__name__}")
    try:
        return _TheoremRecord.model_validate(raw)
    except ValidationError as exc:
        name = raw.get("full_name")
        label = f" ({name})" if isinstance(name, str) else ""
        problems = "; ".join(
            f"{'.'.join(str(part) for part in err['loc'])}: {err['msg']}" for err in exc.errors()[:3]
        )
        more = f" (+{exc.error_count() - 3} more)" if exc.error_count() > 3 else ""
        raise LeanDojoError(f"{where}{label}: {problems}{more}") from exc
