"""Automation: rw, simp, norm_num, ring, omega, linarith, nlinarith, positivity."""

from __future__ import annotations

__all__: list[str] = []
