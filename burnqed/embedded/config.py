"""Settings of the embedded checker (its own bounds; the pool passes them as ``--name=value``)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["EmbeddedConfig"]


class EmbeddedConfig(BaseModel):
    """Bounds and solver time limits of the embedded checker."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # Every bound that decides a verdict is a count, never a time, so the same proof gets the
    # same verdict whatever the machine load; the request's `timeout` (options.set) is only a
    # safety net for hung work, and a request it stops answers the timeout (interrupt) answer.
    z3_rlimit: int = Field(
        default=5_000_000,
        ge=1,
        description="z3 resource units (its `rlimit`: a count of its own work steps) of one "
        "omega/linarith/nlinarith decision call",
    )
    max_input_chars: int = Field(
        default=20_000, ge=16, description="longest statement or tactic text"
    )
    max_depth: int = Field(default=200, ge=8, description="deepest nesting of a term")
    max_numeral_digits: int = Field(
        default=200, ge=1, description="longest numeral literal"
    )
    max_bits: int = Field(
        default=4096,
        ge=64,
        description="largest closed arithmetic result computed, in bits",
    )
    max_expand_exponent: int = Field(
        default=32,
        ge=1,
        description="largest literal exponent expanded by ring/nlinarith",
    )
    max_repeat: int = Field(default=64, ge=1, description="iterations of `repeat`")
    max_heartbeats: int = Field(
        default=20_000,
        ge=100,
        description="work units of one goal.tactic request (a basic tactic step costs 1 + (goals + hypotheses of the main goal) / 8)",
    )
    max_term_size: int = Field(
        default=20_000,
        ge=100,
        description="largest term (in nodes) a rewrite or simp may build",
    )

    kernel: Literal["enforce", "audit", "off"] = Field(
        default="enforce",
        description="the independent kernel: enforce (a step it refuses fails), audit (refusals are only counted), off",
    )
    cert_rlimit: int = Field(
        default=1_000_000,
        ge=1,
        description="z3 resource units one search for an arithmetic certificate may spend over "
        "all its solver calls (the remainder searches of certify_mod/certify_powmod share them)",
    )
    cert_nodes: int = Field(
        default=256,
        ge=1,
        description="nodes (Farkas attempts, disjunction cases, cut sides) of one certificate "
        "search; the remainder searches get 2× and 4× (each leaf of their product cuts is a "
        "linear search of its own)",
    )
    cert_cuts: int = Field(
        default=24,
        ge=0,
        description="integer cuts (branch and bound, value splits) of one certificate search "
        "(scaled as cert_nodes)",
    )
    cert_quick_nodes: int = Field(
        default=32,
        ge=1,
        description="nodes of omega's first, solver-free certificate try (no cuts)",
    )
    simulated_latency_ms: int = Field(
        default=0,
        ge=0,
        le=60_000,
        description="benchmark/testing knob, 0 (off) by default: each goal.tactic answer is held until this "
        "long after its request was read (sleeping), so the checker behaves like a Lean process that "
        "spends the time on its own node (`burnqed bench cluster --simulated-latency-ms`)",
    )

    @classmethod
    def from_argv(cls, argv: list[str]) -> tuple[EmbeddedConfig, list[str]]:
        """Options ``--name=value`` that name a field; the rest (modules, Lean options) is returned."""
        values: dict[str, int | str] = {}
        rest: list[str] = []
        for arg in argv:
            name, sep, raw = (
                arg[2:].partition("=") if arg.startswith("--") else ("", "", "")
            )
            key = name.replace("-", "_")
            if sep and key in cls.model_fields:
                values[key] = raw if key == "kernel" else int(raw)
            else:
                rest.append(arg)
        return cls(**values), rest
