"""The rows of ``burnqed doctor``: each looks at one part of the real set-up and says how to fix it."""

from __future__ import annotations

import json
import socket
from enum import Enum
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from pydantic import BaseModel, ConfigDict, Field

from burnqed.cluster.config import ClusterConfig
from burnqed.env import env
from burnqed.lean.config import LeanConfig
from burnqed.lean.errors import LeanConfigError
from burnqed.lean.launch import backend_by_place, find_pantograph, project_of
from burnqed.lean.place import (
    find_lake,
    mathlib_toolchain,
    project_toolchain,
    release_for_version,
    repl_version,
    version_problem,
)
from burnqed.policy.config import PolicyConfig

__all__ = ["DoctorReport", "Row", "RowStatus", "run_doctor"]

REPL_VERSION_TIMEOUT_S = 30.0
TOKENIZER_FILES = ("tokenizer.json", "tokenizer.model", "tokenizer_config.json")


class RowStatus(str, Enum):
    """How one part of the set-up stands."""

    OK = "ok"
    WARN = "warn"
    BLOCKER = "blocker"
    SKIP = "skip"


class Row(BaseModel):
    """One checked part of the set-up: what was found and how to fix it."""

    model_config = ConfigDict(frozen=True)

    check: str
    status: RowStatus
    found: str
    fix: str = ""


class DoctorReport(BaseModel):
    """Every row, whether any blocks the configured run, and the one next step."""

    model_config = ConfigDict(frozen=True)

    rows: list[Row]
    next_step: str = Field(description="the first blocker's fix, else the first warning's, else what to run")

    @property
    def blocked(self) -> bool:
        """Some row is a blocker: the configured run cannot start."""
        return any(r.status is RowStatus.BLOCKER for r in self.rows)


class _Lean(BaseModel):
    """What the Lean rows share: the backend this place gets and the repl's answer."""

    config: LeanConfig
    note: str
    repl: Path | None = None
    version: str | None = None
    project: Path | None = None


def _serious(lean: _Lean) -> RowStatus:
    """A missing Lean part blocks a Pantograph run and only warns on the embedded checker."""
    return RowStatus.BLOCKER if lean.config.backend == "pantograph" else RowStatus.WARN


async def _lean_rows(config: LeanConfig) -> list[Row]:
    placed, note = backend_by_place(config)
    lean = _Lean(config=placed, note=note, project=project_of(placed))
    real = placed.backend != "embedded"
    rows = [Row(check="backend", status=RowStatus.OK if real else RowStatus.WARN, found=note)]
    if placed.backend in ("embedded", "command") and "backend" in config.model_fields_set:
        return [*rows, *(Row(check=c, status=RowStatus.SKIP, found=f"lean.backend = {placed.backend!r}")
                         for c in ("project", "mathlib", "repl", "lean version", "LEAN_PATH"))]
    rows += _project_rows(lean)
    build = f"scripts/build_pantograph.sh {lean.project or 'PROJECT_DIR'}"
    try:
        lean.repl = find_pantograph(placed)
    except LeanConfigError:
        rows.append(Row(check="repl", status=_serious(lean), found="no Pantograph repl (lean.repl_path, $PANTOGRAPH_REPL, PATH)",
                        fix=f"{build} (then set lean.repl_path or $PANTOGRAPH_REPL to the path it prints)"))
    if lean.repl is not None:
        try:
            lean.version = await repl_version(lean.repl, REPL_VERSION_TIMEOUT_S)
        except LeanConfigError as exc:
            rows.append(Row(check="repl", status=RowStatus.BLOCKER, found=str(exc), fix=f"rebuild it: {build}"))
        else:
            release = release_for_version(lean.version)
            found = f"{lean.repl}: Pantograph {lean.version}" + (f" for Lean {release.lean}" if release else "")
            rows.append(Row(check="repl", status=RowStatus.OK if release else RowStatus.WARN, found=found,
                            fix="" if release else f"an unknown Pantograph release: burnqed speaks v0.3.4's protocol; {build}"))
    rows.append(_version_row(lean, build))
    rows.append(_lean_path_row(lean))
    return rows


def _project_rows(lean: _Lean) -> list[Row]:
    project = lean.project
    if project is None:
        return [
            Row(check="project", status=_serious(lean), found="no lean-toolchain here or above",
                fix="run in a Lean project with Mathlib (`lake new NAME math`, then `lake exe cache get` in it) or "
                "set lean.project_dir"),
            Row(check="mathlib", status=RowStatus.SKIP, found="no project"),
        ]
    toolchain = project_toolchain(project)
    mathlib = mathlib_toolchain(project)
    return [
        Row(check="project", status=RowStatus.OK if toolchain else RowStatus.BLOCKER,
            found=f"{project}: Lean {toolchain}" if toolchain else f"{project}: unreadable lean-toolchain",
            fix="" if toolchain else "write `leanprover/lean4:vX.Y.Z` into its lean-toolchain"),
        Row(check="mathlib", status=RowStatus.OK if mathlib else RowStatus.WARN,
            found=f"built for Lean {mathlib}" if mathlib else "no .lake/packages/mathlib in the project",
            fix="" if mathlib else f"`lake exe cache get` in {project} (after `require mathlib` in its lakefile)"),
    ]


def _version_row(lean: _Lean, build: str) -> Row:
    if lean.project is None or lean.repl is None or lean.version is None:
        return Row(check="lean version", status=RowStatus.SKIP, found="no project and repl to compare")
    problem = version_problem(lean.repl, lean.version, lean.project)
    if problem is not None:
        line, _, fix = problem.partition("; ")
        return Row(check="lean version", status=RowStatus.BLOCKER, found=line, fix=fix.removeprefix("fix: "))
    if release_for_version(lean.version) is None:
        return Row(check="lean version", status=RowStatus.WARN, found=f"Pantograph {lean.version}: its Lean is unknown",
                   fix=build)
    return Row(check="lean version", status=RowStatus.OK,
               found=f"repl, project and Mathlib agree ({project_toolchain(lean.project)})")


def _lean_path_row(lean: _Lean) -> Row:
    given = [str(p) for p in lean.config.lean_path] or ([env("LEAN_PATH") or ""] if env("LEAN_PATH") else [])
    if given:
        return Row(check="LEAN_PATH", status=RowStatus.OK, found=f"given: {':'.join(given)[:120]}")
    if lean.project is None:
        return Row(check="LEAN_PATH", status=RowStatus.SKIP, found="no project: the repl imports Lean's own library only")
    lake = find_lake()
    if lake is None:
        return Row(check="LEAN_PATH", status=_serious(lean), found="no `lake` on PATH or in ~/.elan/bin",
                   fix="install elan (https://github.com/leanprover/elan), or set lean.lean_path")
    return Row(check="LEAN_PATH", status=RowStatus.OK, found=f"from `{lake} env` in {lean.project} at start-up")


def _model_row(model_dir: Path | None, needed: bool) -> Row:
    if model_dir is None:
        return Row(check="model", status=RowStatus.OK if needed else RowStatus.SKIP,
                   found="policy.model_dir unset: the run's newest checkpoint, else the tiny model")
    if not (model_dir / "config.json").is_file():
        return Row(check="model", status=RowStatus.BLOCKER, found=f"{model_dir}: no config.json",
                   fix=f"hf download MODEL --local-dir {model_dir}")
    try:
        meta: dict[str, Any] = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return Row(check="model", status=RowStatus.BLOCKER, found=f"{model_dir}/config.json unreadable: {exc}",
                   fix="download the model again")
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES

    kind = str(meta.get("model_type", "?"))
    tokenizer = [f for f in TOKENIZER_FILES if (model_dir / f).is_file()]
    custom = "auto_map" in meta
    found = (f"{model_dir.name}: {kind} ({', '.join(meta.get('architectures', []) or ['?'])}), "
             f"tokenizer {'present' if tokenizer else 'missing'}, custom code {'needed' if custom else 'not needed'}")
    if kind not in CONFIG_MAPPING_NAMES:
        return Row(check="model", status=RowStatus.BLOCKER, found=found,
                   fix=f"architecture {kind!r} is not in this transformers: upgrade transformers, or pick another model")
    if not tokenizer:
        return Row(check="model", status=RowStatus.BLOCKER, found=found, fix="download the tokenizer files too")
    if custom:
        return Row(check="model", status=RowStatus.WARN, found=found,
                   fix="the model ships its own code (auto_map): burnqed loads only built-in architectures")
    return Row(check="model", status=RowStatus.OK, found=found)


def _torch_row(device: str, needed: bool) -> Row:
    try:
        import torch
    except ImportError:
        return Row(check="torch", status=RowStatus.BLOCKER if needed else RowStatus.WARN, found="not installed",
                   fix="make venv (CPU) or make venv TORCH_SPEC=torch (CUDA)")
    if torch.cuda.is_available():
        names = ", ".join(torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count()))
        return Row(check="torch", status=RowStatus.OK, found=f"torch {torch.__version__}, CUDA {torch.version.cuda}: {names}")
    found = f"torch {torch.__version__}, no CUDA device" + ("" if torch.version.cuda else " (a CPU build)")
    if needed and device.startswith("cuda"):
        return Row(check="torch", status=RowStatus.BLOCKER, found=found,
                   fix="policy.device is cuda: install a CUDA torch (make venv TORCH_SPEC=torch) on a GPU machine")
    return Row(check="torch", status=RowStatus.WARN if needed else RowStatus.OK, found=found,
               fix="a 7B policy needs a GPU: a CUDA torch on a GPU machine, or a vLLM/SGLang server (policy.backend = "
               "'openai')" if needed else "")


async def _server_row(policy: PolicyConfig) -> Row:
    if policy.backend != "openai":
        return Row(check="server", status=RowStatus.SKIP, found="policy.backend = 'local' (no server)")
    from burnqed.policy.errors import PolicyError
    from burnqed.policy.openai_api import OpenAIPolicy

    try:
        async with OpenAIPolicy.connect(policy, max_retries=0) as served:
            return Row(check="server", status=RowStatus.OK, found=f"{policy.base_url} serves {served.model!r}")
    except PolicyError as exc:
        return Row(check="server", status=RowStatus.BLOCKER, found=str(exc).split("\n")[0],
                   fix="start vLLM/SGLang with the model (vllm serve DIR --served-model-name NAME), or fix "
                   "policy.base_url / policy.model")


def _ray_row(address: str) -> Row:
    try:
        import ray
    except ImportError:
        return Row(check="ray", status=RowStatus.BLOCKER, found="not installed", fix="pip install -e '.[cluster]'")
    found = f"ray {ray.__version__}, cluster.address = {address!r}"
    if address.startswith("ray://"):
        url = urlparse(address)
        try:
            with socket.create_connection((url.hostname or "", url.port or 10001), timeout=5):
                pass
        except OSError as exc:
            return Row(check="ray", status=RowStatus.BLOCKER, found=f"{found}: unreachable ({exc.strerror or exc})",
                       fix="start the head node (ray start --head --ray-client-server-port PORT) or fix cluster.address")
        return Row(check="ray", status=RowStatus.OK, found=f"{found}: reachable")
    return Row(check="ray", status=RowStatus.OK, found=found)


async def run_doctor(lean: LeanConfig, policy: PolicyConfig, *, cluster: ClusterConfig | None = None) -> DoctorReport:
    """Check the set-up these sections describe (Ray only with ``cluster``); nothing is started or downloaded."""
    local = policy.backend == "local"
    rows = await _lean_rows(lean)
    rows.append(_model_row(policy.model_dir, local))
    rows.append(_torch_row(policy.device, local and policy.model_dir is not None))
    rows.append(await _server_row(policy))
    rows.append(_ray_row(cluster.address) if cluster is not None else Row(check="ray", status=RowStatus.SKIP,
                                                                          found="no --cluster"))
    first = next((r for r in rows if r.status is RowStatus.BLOCKER), None) or next(
        (r for r in rows if r.status is RowStatus.WARN and r.fix), None
    )
    step = first.fix if first is not None else "ready: `burnqed serve lean` (or `burnqed prove \"…\"`)"
    return DoctorReport(rows=rows, next_step=step)

