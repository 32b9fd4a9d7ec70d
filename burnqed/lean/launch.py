"""From a LeanConfig to the command line and environment of one child process.

- ``embedded``: ``python -m burnqed.embedded IMPORT... --OPT=VALUE...`` (and
  ``--simulated_latency_ms=N`` when that benchmark knob is set; refused on other backends)
- ``pantograph``: ``repl IMPORT... --OPT=VALUE...``, the binary from ``repl_path``, else
  ``$PANTOGRAPH_REPL``, else ``repl`` on PATH; ``lean_path`` entries are prepended to
  LEAN_PATH.
- ``command``: ``config.command`` exactly as given.

``prepare_launch`` (what the pool calls) adds what a Pantograph repl needs from its place:
the Lean version check (burnqed.lean.place: the repl's ``--version``, the project's
``lean-toolchain`` and its Mathlib build, one line naming both versions on a mismatch), the
project directory as the child's working directory, and the project's ``LEAN_PATH`` from
``lake env`` when neither ``lean.lean_path`` nor ``$LEAN_PATH`` gives one (and its
``LEAN_SYSROOT`` when ``lean`` is not on PATH: the repl runs ``lean --print-prefix``), as PyPantograph
starts its server (pantograph/server.py ``get_lean_path``, ``Server.restart``).

Every argv is then wrapped in the limits trampoline (address space, CPU, die with parent).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from burnqed.env import env, environment
from burnqed.lean.config import LeanConfig
from burnqed.lean.errors import LeanConfigError
from burnqed.lean.limits import limited_argv
from burnqed.lean.place import VersionMismatch, elan_bin, find_project, lake_env, repl_version, version_problem

__all__ = ["LaunchSpec", "backend_argv", "backend_by_place", "build_launch", "find_pantograph", "prepare_launch", "project_of"]


class LaunchSpec(BaseModel):
    """What to execute for one worker."""

    model_config = ConfigDict(frozen=True)

    backend: str
    argv: list[str]
    env: dict[str, str] | None = None
    cwd: str | None = None

    @property
    def program(self) -> list[str]:
        """The backend's own argv (after the trampoline's ``--``)."""
        return self.argv[self.argv.index("--") + 1 :] if "--" in self.argv else self.argv


def _lean_args(config: LeanConfig) -> list[str]:
    return [*config.imports, *(f"--{name}={value}" for name, value in config.lean_options.items())]


def find_pantograph(config: LeanConfig) -> Path:
    """The Pantograph ``repl`` binary to run, or LeanConfigError saying how to set it."""

    candidate: str | None
    if config.repl_path is not None:
        candidate, origin = str(config.repl_path), "lean.repl_path"
    elif env("PANTOGRAPH_REPL"):
        candidate, origin = env("PANTOGRAPH_REPL"), "$PANTOGRAPH_REPL"
    else:
        candidate, origin = shutil.which("repl"), "PATH"
    if candidate is None:
        raise LeanConfigError(
            "backend 'pantograph' needs the Pantograph repl binary: set lean.repl_path or "
            "$PANTOGRAPH_REPL (scripts/build_pantograph.sh builds it), or put `repl` on PATH"
        )
    path = Path(candidate)
    if not path.is_file() or not os.access(path, os.X_OK):
        raise LeanConfigError(f"Pantograph repl from {origin} is not an executable file: {path}")
    return path


def backend_argv(config: LeanConfig) -> tuple[list[str], dict[str, str] | None]:
    """The backend's own argv and environment (``None`` = inherit), without limits."""
    if config.backend == "embedded":
        latency = [f"--simulated_latency_ms={config.simulated_latency_ms}"] if config.simulated_latency_ms else []
        return [sys.executable, "-m", "burnqed.embedded", *_lean_args(config), *latency], None
    if config.simulated_latency_ms:
        raise LeanConfigError(
            f"lean.simulated_latency_ms is a benchmark knob of the embedded backend, not of {config.backend!r}"
        )
    if config.backend == "pantograph":
        argv = [str(find_pantograph(config)), *_lean_args(config)]
        if not config.lean_path:
            return argv, None

        entries = [str(p) for p in config.lean_path]
        inherited = env("LEAN_PATH")
        if inherited:
            entries.append(inherited)
        return argv, {**environment(), "LEAN_PATH": os.pathsep.join(entries)}
    if not config.command:
        raise LeanConfigError("backend 'command' needs lean.command, the argv of a protocol-speaking child")
    return list(config.command), None


def build_launch(config: LeanConfig) -> LaunchSpec:
    """The full launch (trampoline + backend argv) for one worker of ``config``."""
    argv, child_env = backend_argv(config)
    # resident memory is watched by the worker (LeanWorker); only an opt-in address-space cap goes to the kernel
    wrapped = limited_argv(argv, memory_limit_mb=config.address_space_limit_mb, cpu_limit_s=config.cpu_limit_s)
    return LaunchSpec(backend=config.backend, argv=wrapped, env=child_env)


def project_of(config: LeanConfig) -> Path | None:
    """The Lean project a worker runs in: ``lean.project_dir``, else the nearest directory with a
    ``lean-toolchain`` from the working directory up, else None."""
    if config.project_dir is not None:
        return config.project_dir.expanduser().resolve()
    return find_project(Path.cwd())


async def prepare_launch(config: LeanConfig) -> LaunchSpec:
    """``build_launch``, and for a Pantograph repl: the version check, the project as working
    directory and the project's LEAN_PATH (``lake env``) when none is given. VersionMismatch or
    LeanConfigError before any worker starts."""
    spec = build_launch(config)
    if config.backend != "pantograph":
        return spec
    repl = find_pantograph(config)
    project = project_of(config)
    problem = version_problem(repl, await repl_version(repl, config.startup_timeout_s), project)
    if problem is not None:
        raise VersionMismatch(problem)
    if project is None:
        return _with_elan(spec)
    child_env = spec.env
    wants_path = not config.lean_path and not env("LEAN_PATH")
    wants_root = not env("LEAN_SYSROOT") and shutil.which("lean") is None
    if wants_path or wants_root:
        found = await lake_env(project, timeout_s=config.startup_timeout_s)
        added = {k: v for k, v in found.items() if (k == "LEAN_PATH" and wants_path) or (k == "LEAN_SYSROOT" and wants_root)}
        child_env = {**(child_env if child_env is not None else environment()), **added}
    return _with_elan(spec.model_copy(update={"cwd": str(project), "env": child_env}))


def _with_elan(spec: LaunchSpec) -> LaunchSpec:
    """The repl runs ``lean --print-prefix`` unless LEAN_SYSROOT is set: with no ``lean`` on PATH
    but elan installed, elan's ``~/.elan/bin`` goes on the child's PATH (an MCP client starts
    servers without the user's shell profile, where elan puts it)."""
    child_env = spec.env if spec.env is not None else environment()
    if child_env.get("LEAN_SYSROOT") or shutil.which("lean", path=child_env.get("PATH")) is not None:
        return spec
    if not (elan_bin() / "lean").is_file():
        return spec
    path = os.pathsep.join(p for p in (str(elan_bin()), child_env.get("PATH", "")) if p)
    return spec.model_copy(update={"env": {**child_env, "PATH": path}})


def backend_by_place(config: LeanConfig) -> tuple[LeanConfig, str]:
    """The backend a place defaults to, and the start-up line that says which and why.

    ``lean.backend`` set in the config file or by ``--set`` stays as it is. Left to the default,
    a directory inside a Lean project (a ``lean-toolchain`` up the tree) with a Pantograph repl
    found gets ``pantograph`` in that project; anywhere else the embedded checker, which says
    it is not Lean.
    """
    if "backend" in config.model_fields_set:
        if config.backend == "embedded":
            return config, "embedded checker (lean.backend = 'embedded'): an offline checker for a fragment of Lean, not Lean"
        return config, f"Lean backend {config.backend!r} (lean.backend)"
    project = project_of(config)
    try:
        repl: Path | None = find_pantograph(config)
    except LeanConfigError:
        repl = None
    if project is not None and repl is not None:
        placed = config.model_copy(update={"backend": "pantograph", "project_dir": project})
        return placed, f"Lean through Pantograph {repl} in the project {project} (lean-toolchain found)"
    why = (
        f"the project {project} has no Pantograph repl (scripts/build_pantograph.sh {project} builds one; "
        "or set lean.repl_path)"
        if project is not None
        else "no lean-toolchain here or above (run in a Lean project, or set lean.project_dir)"
    )
    return config, f"embedded checker: an offline checker for a fragment of Lean, not Lean; {why}"
