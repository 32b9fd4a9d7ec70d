"""The built-in theorem sets, by name: ``core``, ``benchmark-test``, ``benchmark-train``, ``depth-test``, ``depth-tune``.

``core`` and ``benchmark-test`` ship with the package as JSON Lines files, so they are the
same bytes on every machine; ``benchmark-train`` is generated from its seed on first use
and cached under ``<paths.home>/data/`` (a file name that records the generator version,
seed and size, so a change of any of them builds a new file). ``depth-test`` is the held-out set
of the depth world (burnqed.data.depth), drawn from its fixed seed; ``depth-tune`` its tuning
split, from another seed and disjoint from it (``TUNE_SETS``, ``split_of``). Both ship as files
of the current DEPTH_VERSION (``depth_split_path``; ``write_depth_splits`` draws them again, and
tests/data/test_depth.py checks the files equal a fresh draw); a version without its files is
drawn on first use and cached under ``<paths.home>/data/``.
"""

from __future__ import annotations

import random
from functools import cache
from pathlib import Path

from burnqed.data.benchmark import GENERATOR_VERSION, generate_test, generate_train
from burnqed.data.config import DataConfig
from burnqed.data.families import FAMILIES
from burnqed.data.theorems import Theorem, TheoremSetError, load_theorems, save_theorems
from burnqed.embedded.repl.verify import new_checker

__all__ = [
    "BUILTIN_SETS",
    "DATA_DIR",
    "builtin_sets",
    "depth_split_path",
    "HELD_OUT_SPLITS",
    "TUNE_SETS",
    "held_out_hashes",
    "load_builtin",
    "shipped_path",
    "soundness_sources",
    "split_of",
    "train_cache_path",
    "write_depth_splits",
]

DATA_DIR = Path(__file__).resolve().parent

BUILTIN_SETS: dict[str, str] = {
    "core": "about 30 named theorems in the style of Lean core, with reference proofs",
    "benchmark-test": "the held-out benchmark: 300 graded statements from a fixed seed (shipped)",
    "benchmark-train": "the default training benchmark (data.train_size statements, seed data.train_seed)",
    "depth-test": "the depth world's held-out test split: 150 statements of 3 to 5 composed parts, fixed seed (generated)",
    "depth-tune": "the depth world's tuning split: depth-test's distribution from another seed, disjoint (generated)",
}

TUNE_SETS: dict[str, str] = {"depth-test": "depth-tune"}
"""A held-out test set → its tuning split (``iteration.eval_split = "tune"`` evaluates the latter)."""

HELD_OUT_SPLITS: dict[str, str] = {"depth-test": "test", "depth-tune": "tune", "benchmark-test": "test"}
"""Which split a built-in held-out set is."""


def split_of(theorem_set: str) -> str:
    """The split an evaluation's ``theorem_set`` ("depth-tune[150]") used: test, tune, or "own" (a file or other set)."""
    name = theorem_set.split("[", 1)[0]
    return HELD_OUT_SPLITS.get(name, "own")

_SHIPPED = {"core": "core.jsonl", "benchmark-test": "benchmark-test.jsonl"}


def builtin_sets() -> list[str]:
    """Names of the built-in sets."""
    return list(BUILTIN_SETS)


def shipped_path(name: str) -> Path:
    """The package file of a shipped set (``core`` or ``benchmark-test``)."""
    try:
        return DATA_DIR / _SHIPPED[name]
    except KeyError as exc:
        raise TheoremSetError(f"{name!r} is not a shipped set (shipped: {', '.join(_SHIPPED)})") from exc


def train_cache_path(home: Path, size: int, seed: int) -> Path:
    """Where a generated training set of this size and seed is cached."""
    return Path(home) / "data" / f"benchmark-train-v{GENERATOR_VERSION}-seed{seed}-n{size}.jsonl"


def load_builtin(name: str, *, home: Path | None = None, config: DataConfig | None = None) -> list[Theorem]:
    """Load a built-in set by name; ``benchmark-train`` is generated and cached under ``home``."""
    if name in _SHIPPED:
        path = shipped_path(name)
        if name == "benchmark-test" and not path.is_file():
            return generate_test()
        return load_theorems(path)
    if name in ("depth-test", "depth-tune"):
        return _depth_split(name, home)
    if name != "benchmark-train":
        raise TheoremSetError(f"unknown built-in set {name!r} (known: {', '.join(builtin_sets())})")
    config = config or DataConfig()
    cached = train_cache_path(home, config.train_size, config.train_seed) if home is not None else None
    if cached is not None and cached.is_file():
        return load_theorems(cached)
    theorems = generate_train(
        config.train_size,
        config.train_seed,
        checker=new_checker(config.verify_timeout_s),
        held_out=held_out_hashes(),
        max_attempts=config.max_attempts,
    )
    if cached is not None:
        save_theorems(cached, theorems)
    return theorems


def depth_split_path(name: str) -> Path:
    """The package file of a depth split at this DEPTH_VERSION (written by ``write_depth_splits``)."""
    from burnqed.data.depth import DEPTH_VERSION

    return DATA_DIR / f"{name}-v{DEPTH_VERSION}.jsonl"


def write_depth_splits() -> list[Path]:
    """Draw the depth splits again and write them as the package's files (after a DEPTH_VERSION change)."""
    from burnqed.data.depth import depth_test, depth_tune

    test = depth_test()
    paths = [depth_split_path("depth-test"), depth_split_path("depth-tune")]
    save_theorems(paths[0], test)
    save_theorems(paths[1], depth_tune(test=test))
    return paths


def _depth_split(name: str, home: Path | None) -> list[Theorem]:
    from burnqed.data.depth import depth_test, depth_tune

    # shipped: every statement of a split is checked when it is drawn (seconds), and a search
    # server reads the held-out split at every start; tests/data/test_depth.py draws them again
    shipped = depth_split_path(name)
    if shipped.is_file():
        return load_theorems(shipped)
    cached = Path(home) / "data" / shipped.name if home is not None else None
    if cached is not None and cached.is_file():
        return load_theorems(cached)
    # the tuning split excludes the test split: read it from the cache rather than draw it again
    theorems = depth_test() if name == "depth-test" else depth_tune(test=_depth_split("depth-test", home))
    if cached is not None:
        save_theorems(cached, theorems)
    return theorems


@cache
def held_out_hashes() -> frozenset[str]:
    """Statement hashes of the held-out set (what every training set excludes)."""
    return frozenset(t.sha for t in load_builtin("benchmark-test"))


def soundness_sources(seed: int, drawn: int) -> list[tuple[str, list[str]]]:
    """The soundness campaign's true statements with their reference proofs: core and
    benchmark-test, then ``drawn`` statements of the benchmark families (seeded)."""
    out = [(t.statement, list(t.proof)) for t in load_builtin("core") + load_builtin("benchmark-test")]
    rng = random.Random(seed)
    families = sorted(FAMILIES.values(), key=lambda f: f.name)
    for _ in range(drawn):
        d = rng.choice(families).make(rng)
        out.append((d.statement, list(d.proof)))
    return out
