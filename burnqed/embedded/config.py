"""Settings of the embedded checker (its own bounds; the pool passes them as ``--name=value``)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["EmbeddedConfig"]


class EmbeddedConfig(BaseModel):
    """Bounds and solver time limits of the embedded checker."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    z3_timeout_ms: int = Field(
        default=2000, ge=1, description="time bound of one z3 call"
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
    z3_cert_timeout_ms: int = Field(
        default=2000, ge=1, description="time bound of the search for one arithmetic certificate"
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
