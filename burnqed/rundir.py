"""A run directory on the floor every layer stands on: its root, its one writer's lock and its
logs folder. Each layer names its own files in it:

- the iterations (burnqed.iteration.layout.RunLayout): BLUEPRINT.md, checkpoints/, trajectories/,
  eval_results/, data/, cache/, stores/, state/, iterate.jsonl, report.png;
- the tools (burnqed.tools.common.run_files): jobs/ and logs/tool_calls.jsonl;
- the coordination (burnqed.coordination.control.DaemonPaths, burnqed.coordination.demo):
  coordinator/ and the demo's solve_rates.html / solve_rates.json.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Self

from burnqed.writelock import RUN_LOCK_NAME, Held, hold

__all__ = ["RunDir"]


class RunDir:
    """A run directory: root, writer lock (``run.lock``) and logs folder."""

    def __init__(self, run_dir: str | Path) -> None:
        self.root = Path(run_dir)

    @property
    def lock(self) -> Path:
        """The run's writer lock (flock; see ``hold``)."""
        return self.root / RUN_LOCK_NAME

    @contextmanager
    def hold(self, role: str) -> Iterator[Held]:
        """Be the run directory's one writer for the block (``LockHeld`` names the holder when
        another process is; the holder's descendants pass, ``Held.borrowed``)."""
        with hold(self.lock, role, what=f"run directory {self.root}") as held:
            yield held

    @property
    def logs(self) -> Path:
        """Machine-read logs of the run (the tools' tool-call log)."""
        return self.root / "logs"

    @classmethod
    def enclosing(cls, path: str | Path, marks: Iterable[str]) -> Self | None:
        """The run directory ``path`` lies in: the nearest ancestor holding ``run.lock`` or one of
        ``marks`` (the files its layers name), or None."""
        names = (RUN_LOCK_NAME, *marks)
        here = Path(path).resolve().parent
        for directory in (here, *here.parents):
            if any((directory / name).exists() for name in names):
                return cls(directory)
        return None
