"""Where a Lean project is and which Lean it needs, read before the first proof.

- The project is the nearest directory, from ``lean.project_dir`` or the working directory
  up, holding a ``lean-toolchain`` file (``leanprover/lean4:v4.21.0``): what elan and Lake read.
- Its Mathlib build is ``.lake/packages/mathlib/lean-toolchain`` (a project that requires
  Mathlib), or the project's own toolchain when the project is Mathlib.
- The repl's Lean: Pantograph answers ``repl --version`` with its own version and exits
  (Main.lean lines 58-60 at 757db11a, ``Pantograph.version`` in Pantograph/Version.lean), and
  each release is built for one Lean, its ``lean-toolchain``: PANTOGRAPH_RELEASES, read from
  the release tags of github.com/lenianiva/Pantograph.
- The repl runs in the project with the project's ``LEAN_PATH``, which ``lake env printenv
  LEAN_PATH`` prints there: the way PyPantograph starts its server (pantograph/server.py,
  ``get_lean_path`` and ``Server.restart``: ``cwd=project_path``, ``LEAN_PATH`` from Lake).

A mismatch is one line naming both versions and the fix (VersionMismatch). Nothing here
decides a proof.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import anyio
from pydantic import BaseModel, ConfigDict

from burnqed.lean.errors import LeanConfigError, VersionMismatch

__all__ = [
    "PANTOGRAPH_RELEASES",
    "PantographRelease",
    "VersionMismatch",
    "LAKE_ENV_KEYS",
    "elan_bin",
    "find_lake",
    "find_project",
    "lake_env",
    "lean_release",
    "mathlib_toolchain",
    "project_toolchain",
    "release_for_lean",
    "release_for_version",
    "repl_version",
    "version_problem",
]

TOOLCHAIN_FILE = "lean-toolchain"


class PantographRelease(BaseModel):
    """One Pantograph release: its tag, what ``repl --version`` prints, its commit and its Lean."""

    model_config = ConfigDict(frozen=True)

    tag: str
    version: str
    commit: str
    lean: str


PANTOGRAPH_RELEASES: tuple[PantographRelease, ...] = (
    PantographRelease(tag="v0.3.4", version="0.3.4", commit="757db11a77dfb9f2f62330c596a7e42565b3b143", lean="v4.21.0"),
    PantographRelease(tag="v0.3.3", version="0.3.3", commit="4c7f77b7ca0d3d82c921061cbc68ce1352355321", lean="v4.20.1"),
    PantographRelease(tag="v0.3.1", version="0.3.1", commit="120eb9029106b999d8eea6ef9f5675144bacd13d", lean="v4.18.0"),
)
"""Pantograph's 0.3 releases, newest first: tag, ``Pantograph.version``, commit and ``lean-toolchain``
at that tag (github.com/lenianiva/Pantograph; v0.3.2 shares v0.3.3's Lean, v0.3.0 v0.3.1's). burnqed
speaks v0.3.4's protocol (PANTOGRAPH.md); the older ones are listed so a project on their Lean can
be served, and 0.2 releases (a different protocol) are not."""


def lean_release(toolchain: str) -> str:
    """``leanprover/lean4:v4.21.0`` → ``v4.21.0`` (a bare ``4.1.0`` gets its ``v``)."""
    text = toolchain.strip().rsplit(":", 1)[-1]
    return f"v{text}" if re.match(r"\d", text) else text


def find_project(start: Path) -> Path | None:
    """The nearest directory from ``start`` up that holds a ``lean-toolchain`` file, else None."""
    start = start.resolve()
    for directory in (start, *start.parents):
        if (directory / TOOLCHAIN_FILE).is_file():
            return directory
    return None


def project_toolchain(project: Path) -> str | None:
    """The Lean release a project's ``lean-toolchain`` names (``v4.21.0``), else None."""
    path = project / TOOLCHAIN_FILE
    try:
        return lean_release(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return None


def mathlib_toolchain(project: Path) -> str | None:
    """The Lean release the project's Mathlib is built for: its package's ``lean-toolchain``, or the
    project's own when the project is Mathlib (``Mathlib.lean`` beside its toolchain); None without Mathlib."""
    package = project / ".lake" / "packages" / "mathlib"
    if (package / TOOLCHAIN_FILE).is_file():
        return project_toolchain(package)
    if (project / "Mathlib.lean").is_file():
        return project_toolchain(project)
    return None


def release_for_version(version: str) -> PantographRelease | None:
    """The release whose ``repl --version`` prints ``version``, else None."""
    return next((r for r in PANTOGRAPH_RELEASES if r.version == version.strip()), None)


def release_for_lean(lean: str) -> PantographRelease | None:
    """The newest release built for Lean ``lean`` (``v4.21.0``), else None."""
    return next((r for r in PANTOGRAPH_RELEASES if r.lean == lean_release(lean)), None)


async def repl_version(repl: Path, timeout_s: float = 30.0) -> str:
    """What ``repl --version`` prints (Pantograph: its version, then it exits); LeanConfigError if it cannot say."""
    try:
        with anyio.fail_after(timeout_s):
            done = await anyio.run_process([str(repl), "--version"], check=False)
    except TimeoutError as exc:
        raise LeanConfigError(f"{repl} --version did not answer in {timeout_s:g} s") from exc
    except OSError as exc:
        raise LeanConfigError(f"cannot run {repl} --version: {exc.strerror or exc}") from exc
    text = done.stdout.decode("utf-8", "replace").strip()
    if done.returncode != 0 or not text:
        raise LeanConfigError(f"{repl} --version failed (exit {done.returncode}): is it Pantograph's repl?")
    return text.splitlines()[-1].strip()


def elan_bin() -> Path:
    """elan's directory of tool shims (``lean``, ``lake``): ``~/.elan/bin``."""
    return Path.home() / ".elan" / "bin"


def find_lake() -> str | None:
    """``lake`` on PATH, else elan's ``~/.elan/bin/lake`` (an MCP client starts servers without the
    user's shell profile, so elan's directory is often not on PATH), else None."""
    found = shutil.which("lake")
    if found is not None:
        return found
    elan = elan_bin() / "lake"
    return str(elan) if elan.is_file() else None


LAKE_ENV_KEYS = ("LEAN_PATH", "LEAN_SYSROOT")
"""What a repl needs from ``lake env``: the project's libraries, and Lean's own root (the repl
runs ``lean --print-prefix`` unless LEAN_SYSROOT is set)."""


async def lake_env(project: Path, lake: str | None = None, timeout_s: float = 120.0) -> dict[str, str]:
    """``LEAN_PATH`` and ``LEAN_SYSROOT`` as ``lake env printenv`` prints them in the project."""
    lake = lake or find_lake()
    if lake is None:
        raise LeanConfigError(
            f"the project {project} needs `lake env` for its LEAN_PATH, and `lake` is neither on PATH nor in "
            "~/.elan/bin: install elan, or set lean.lean_path"
        )
    try:
        with anyio.fail_after(timeout_s):
            done = await anyio.run_process([lake, "env", "printenv", *LAKE_ENV_KEYS], cwd=project, check=False)
    except TimeoutError as exc:
        raise LeanConfigError(f"`lake env` in {project} did not answer in {timeout_s:g} s") from exc
    except OSError as exc:
        raise LeanConfigError(f"cannot run `{lake} env` in {project}: {exc.strerror or exc}") from exc
    lines = done.stdout.decode("utf-8", "replace").strip().splitlines()
    if len(lines) != len(LAKE_ENV_KEYS):
        err = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise LeanConfigError(
            f"`lake env printenv {' '.join(LAKE_ENV_KEYS)}` failed in {project}: {err[-1] if err else 'no output'}"
        )
    return dict(zip(LAKE_ENV_KEYS, lines, strict=True))


def version_problem(repl: Path, version: str, project: Path | None) -> str | None:
    """One line naming both versions and the fix when the repl's Lean is not the project's or its
    Mathlib's; None when they agree or one side is unknown (a repl not in PANTOGRAPH_RELEASES)."""
    release = release_for_version(version)
    if release is None or project is None:
        return None
    fix = f"fix: scripts/build_pantograph.sh {project} (builds the Pantograph release for that Lean)"
    wanted = project_toolchain(project)
    if wanted is not None and wanted != release.lean:
        match = release_for_lean(wanted)
        if match is None:
            fix = (
                f"no Pantograph release is built for {wanted} (releases: "
                f"{', '.join(f'{r.tag} for {r.lean}' for r in PANTOGRAPH_RELEASES)}): "
                f"move the project to {release.lean}"
            )
        return (
            f"Lean version mismatch: the repl {repl} is Pantograph {release.version} for Lean {release.lean}, "
            f"the project {project} is on {wanted} ({TOOLCHAIN_FILE}); {fix}"
        )
    mathlib = mathlib_toolchain(project)
    if mathlib is not None and mathlib != release.lean:
        return (
            f"Lean version mismatch: the repl {repl} is Pantograph {release.version} for Lean {release.lean}, "
            f"the project's Mathlib build is for {mathlib}; fix: `lake update` then `lake exe cache get` in "
            f"{project} so Mathlib matches its {TOOLCHAIN_FILE}"
        )
    return None
