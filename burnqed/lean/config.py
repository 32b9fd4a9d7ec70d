"""Configuration of the Lean layer: which backend to launch and the pool's limits."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["LeanConfig"]


class LeanConfig(BaseModel):
    """How to launch Lean processes and how the pool manages them."""

    model_config = ConfigDict(extra="forbid")

    backend: Literal["embedded", "pantograph", "command"] = "embedded"
    command: list[str] | None = Field(
        default=None, description="explicit argv for backend='command' (a protocol-speaking child)"
    )
    repl_path: Path | None = Field(
        default=None, description="Pantograph repl binary; else $PANTOGRAPH_REPL, else `repl` on PATH"
    )
    imports: list[str] = Field(default_factory=lambda: ["Init"], description="modules imported per process")
    lean_options: dict[str, str] = Field(
        default_factory=lambda: {"maxHeartbeats": "0", "maxRecDepth": "100000"},
        description="Lean options passed as --NAME=VALUE",
    )
    lean_path: list[Path] = Field(default_factory=list, description="extra LEAN_PATH entries (lake env)")
    num_workers: int = Field(default=4, ge=1, le=256, description="workers per import group")
    max_import_groups: int = Field(
        default=2,
        ge=1,
        le=64,
        description="worker groups for header imports beyond lean.imports; the least recently used idle one makes room",
    )
    read_timeout_s: float = Field(default=30.0, gt=0)
    repl_timeout_margin_s: float = Field(
        default=2.0, ge=0, description="Lean's own timeout option is set this much below read_timeout_s"
    )
    startup_timeout_s: float = Field(default=120.0, gt=0)
    acquire_timeout_s: float = Field(default=60.0, gt=0)
    max_requests_per_worker: int = Field(default=1000, ge=1)
    max_worker_age_s: float = Field(default=1800.0, gt=0)
    memory_limit_mb: int | None = Field(
        default=8192,
        ge=64,
        description="resident-memory limit per child (anonymous RSS, polled; over it the child is killed and "
        "replaced); a Mathlib worker's own memory is a few GB, its mapped .olean files are not counted",
    )
    memory_poll_s: float = Field(default=0.5, gt=0, description="how often a busy child's resident memory is read")
    address_space_limit_mb: int | None = Field(
        default=None,
        ge=64,
        description="opt-in RLIMIT_AS per child; a Mathlib worker maps its .olean files and needs tens of GB of "
        "address space, so leave it unset there",
    )
    cpu_limit_s: int | None = Field(default=None, ge=1, description="CPU-seconds limit per child")
    max_line_bytes: int = Field(default=64 * 1024 * 1024, ge=1024, description="longest answer line accepted")
    max_input_chars: int = Field(
        default=100_000, ge=16, description="longest statement / tactic sent; longer input is refused locally"
    )
    shutdown_grace_s: float = Field(default=1.0, ge=0, description="wait this long for a child to exit before SIGKILL")
    restart_attempts: int = Field(default=3, ge=1, description="start-up attempts when replacing a worker")
    final_check_command: list[str] | None = Field(
        default=None,
        description="compiler for the whole-file final check, e.g. ['lake', 'env', 'lean']; default `lean` on the "
        "pantograph backend, none on embedded (its kernel re-checks every proof in the replay)",
    )
    project_dir: Path | None = Field(default=None, description="the Lean project the final check compiles in (cwd)")
    final_check_timeout_s: float = Field(default=600.0, gt=0, description="time limit of one final-check compile")
    final_check_memory_mb: int | None = Field(
        default=None, ge=64, description="opt-in address-space limit of that compile (lean maps Mathlib's .olean files)"
    )
    simulated_latency_ms: int = Field(
        default=0,
        ge=0,
        le=60_000,
        description="benchmark/testing knob, embedded backend only, 0 (off) by default: each tactic's answer "
        "comes this long after the request (the checker sleeps), as from a Lean process spending that time on "
        "its own node; `burnqed bench cluster --simulated-latency-ms` measures the orchestration's scaling with it",
    )
