"""``burnqed bench soundness``: the soundness campaign of the embedded checker as JSON
(burnqed.embedded.soundness.campaign)."""

from __future__ import annotations

import os
import time
from typing import Any

from burnqed.config import BurnqedConfig
from burnqed.data.sets import soundness_sources
from burnqed.embedded.soundness.campaign import run_campaign
from burnqed.embedded.soundness.kernel_attacks import run_hostile
from burnqed.embedded.soundness.lean_lexis import run_lexer_campaign

__all__ = ["bench"]


async def bench(config: BurnqedConfig, quick: bool) -> dict[str, Any]:
    """The campaign as JSON: attempts (per campaign and per arithmetic family), false
    accepted (with examples), kernel refusals of elaborator acceptances, alpha-renaming
    verdict changes, the kernel's time share, and the hostile-certificate campaign
    against the kernel (burnqed.embedded.soundness.kernel_attacks), and the lexer family:
    proof files with generated comment/string mixtures, where a file accepted whose Lean
    reading (the reference reading) differs from ours is a false acceptance
    (burnqed.embedded.soundness.lean_lexis)."""
    import anyio

    t0 = time.perf_counter()
    drawn, per_source, per_family, certificates = (40, 3, 20, 2000) if quick else (2400, 8, 500, 100_000)
    lexer_files = 5_000 if quick else 100_000
    tally = await anyio.to_thread.run_sync(
        lambda: run_campaign(soundness_sources(0, drawn), per_source=per_source, per_family=per_family)
    )
    wall = time.perf_counter() - t0
    attempts = sum(tally.attempts.values())
    t1 = time.perf_counter()
    workers = os.cpu_count() or 1
    hostile = await anyio.to_thread.run_sync(lambda: run_hostile(count=certificates, workers=workers))
    hostile_wall = time.perf_counter() - t1
    t2 = time.perf_counter()
    lexer = await anyio.to_thread.run_sync(lambda: run_lexer_campaign(count=lexer_files))
    lexer_wall = time.perf_counter() - t2
    return {
        "backend": "embedded",
        "quick": quick,
        "attempts": attempts,
        "attempts_by_campaign": tally.attempts,
        "mutants": tally.mutants,
        "mutants_proved_false": tally.false_mutants,
        "false_accepted": len(tally.false_accepted),
        "false_accepted_examples": tally.false_accepted[:20],
        "elaborator_accepted_kernel_rejected": tally.kernel_rejected,
        "kernel_rejected_examples": tally.kernel_rejected_examples[:20],
        "alpha_verdict_changes": len(tally.alpha_verdict_changes),
        "alpha_examples": tally.alpha_verdict_changes[:10],
        "kernel_time_share": round(tally.kernel_seconds / tally.check_seconds, 4) if tally.check_seconds else 0.0,
        "wall_s": round(wall, 1),
        "attempts_per_s": round(attempts / wall, 1) if wall else 0.0,
        "hostile_certificates": {
            "attempts": sum(hostile.attempts.values()),
            "attempts_by_kind": hostile.attempts,
            "sequents": hostile.sequents,
            "false_sequents": hostile.false_sequents,
            "refused": hostile.refused,
            "false_accepted": len(hostile.false_accepted),
            "false_accepted_examples": hostile.false_accepted[:10],
            "wall_s": round(hostile_wall, 1),
            "per_s": round(sum(hostile.attempts.values()) / hostile_wall, 1) if hostile_wall else 0.0,
        },
        "lexer": {
            "files": lexer.attempts,
            "accepted": lexer.accepted,
            "refused": lexer.refused,
            "false_accepted": len(lexer.false_accepted),
            "false_accepted_examples": lexer.false_accepted[:10],
            "wall_s": round(lexer_wall, 1),
        },
        "targets": {
            "false_accepted==0": not tally.false_accepted,
            "hostile_false_accepted==0": not hostile.false_accepted,
            "lexer_false_accepted==0": not lexer.false_accepted,
            "attempts>=100000": attempts >= 100_000 or quick,
            "hostile_certificates>=100000": sum(hostile.attempts.values()) >= 100_000 or quick,
        },
    }
