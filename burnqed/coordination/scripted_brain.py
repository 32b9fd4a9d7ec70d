"""The ``scripted`` brain: a deterministic session with no LLM.

It is the offline default and the baseline an LLM brain has to beat. Each session it reads
the blueprint and the training-side solve curve, probes the current policy with one search
job on a small theorem set, and schedules the next expert iteration, raising the node
budget when the probe's solve rate did not improve on the previous session's.
"""

from __future__ import annotations

import json
from typing import Any

import anyio

from burnqed.coordination.brain import BrainOutcome, BrainTransientError, SessionContext
from burnqed.coordination.config import CoordinatorConfig
from burnqed.coordination.log import SessionLog
from burnqed.coordination.toolbox import Toolbox, ToolResult

__all__ = ["ScriptedBrain"]

_FINISHED = {"succeeded", "failed", "cancelled", "interrupted"}


def _field(result: ToolResult, key: str) -> Any:
    if result.structured is not None and key in result.structured:
        return result.structured[key]
    try:
        return json.loads(result.text).get(key)
    except (ValueError, AttributeError):
        return None


class ScriptedBrain:
    """A fixed schedule: read, probe, schedule one iteration, summarise."""

    name = "scripted"

    def __init__(self, config: CoordinatorConfig) -> None:
        self._config = config

    async def run(self, toolbox: Toolbox, context: SessionContext, log: SessionLog) -> BrainOutcome:
        """Run the schedule; a failing tool is reported in the summary, not raised."""
        lines: list[str] = [f"Session {context.session} (scripted brain)."]
        turns = 0

        targets = await toolbox.call("list_targets", {})
        turns += 1
        counts = _field(targets, "counts") or {}
        lines.append(f"Blueprint targets: {', '.join(f'{k} {v}' for k, v in sorted(counts.items())) or 'none'}.")

        curve = await toolbox.call("solve_curve", {})
        turns += 1
        if not curve.is_error:
            lines.append(f"Solve curve: {curve.text.splitlines()[0] if curve.text else 'empty'}.")

        rate, job_id, outcomes = await self._probe(toolbox, lines)
        turns += 3
        turns += await self._record_targets(toolbox, job_id, outcomes, lines)

        previous = context.previous_probe_rate
        stalled = rate is not None and previous is not None and rate <= previous
        spec: dict[str, Any] = {"label": f"iter_{context.next_iteration}", "note": "scheduled by the scripted brain"}
        if stalled:
            spec["max_nodes"] = self._config.probe_max_nodes * 2
            spec["note"] += "; probe stalled, doubling the node budget"
        scheduled = await toolbox.call("schedule_iteration", {"spec": spec})
        turns += 1
        if scheduled.is_error:
            lines.append(f"Scheduling {spec['label']} failed: {scheduled.text[:300]}")
        else:
            lines.append(f"Scheduled {spec['label']} ({'stalled: more nodes' if stalled else 'default plan'}).")
        summary = "\n".join(lines)
        log.event("turn", turn=turns, stop_reason="script_done", text=summary, tool_uses=[])
        return BrainOutcome(stop_reason="script_done", turns=turns, summary=summary, probe_solve_rate=rate)

    async def _record_targets(
        self, toolbox: Toolbox, job_id: str | None, outcomes: list[dict[str, Any]], lines: list[str]
    ) -> int:
        """Write the probe's per-theorem outcomes to the blueprint targets of those names: a
        proved one through record_proof (the server replays the job's proof), others as failed."""
        calls = 0
        done = failed = rejected = 0
        for outcome in outcomes:
            label = str(outcome.get("name"))
            target = await toolbox.call("get_target", {"label": label})
            calls += 1
            if target.is_error or _field(target, "status") in {"done", "exhausted"}:
                continue
            if outcome.get("proved") and job_id:
                updated = await toolbox.call("record_proof", {"label": label, "job_id": job_id})
                calls += 1
                done += int(not updated.is_error)
                rejected += int(updated.is_error)
                if not updated.is_error:
                    continue
            note = f"probe search: {outcome.get('reason', 'not proved')}"
            updated = await toolbox.call("update_status", {"label": label, "status": "failed", "note": note})
            calls += 1
            failed += int(not updated.is_error)
        if done or failed:
            lines.append(f"Blueprint: {done} probe targets proved (replayed by the server), {failed} failed (attempts counted).")
        if rejected:
            lines.append(f"Blueprint: {rejected} probe proofs were refused by the server's replay.")
        return calls

    async def _probe(
        self, toolbox: Toolbox, lines: list[str]
    ) -> tuple[float | None, str | None, list[dict[str, Any]]]:
        """One search job on the probe set: its solve rate (None when it failed), id and per-theorem outcomes."""
        launch = await toolbox.call(
            "launch_search",
            {
                "theorem_set": self._config.probe_set,
                "limit": self._config.probe_limit,
                "budget": {"max_nodes": self._config.probe_max_nodes},
            },
        )
        if launch.is_error:
            if "budget" in launch.text or "limit" in launch.text:
                lines.append(f"Probe not launched: {launch.text[:200]}")
                return None, None, []
            raise BrainTransientError(f"launch_search failed: {launch.text[:300]}")
        job_id = _field(launch, "job_id")
        status = _field(launch, "status")
        while status not in _FINISHED:
            polled = await toolbox.call("job_status", {"job_id": job_id, "wait_s": 5})
            if polled.is_error:
                lines.append(f"Probe {job_id}: status unavailable ({polled.text[:200]}).")
                return None, None, []
            status = _field(polled, "status")
            if status not in _FINISHED:
                await anyio.sleep(self._config.job_poll_interval_s)
        result = await toolbox.call("job_result", {"job_id": job_id, "detail": "full"})
        report = _field(result, "result")
        outcomes = list(report.get("outcomes", [])) if isinstance(report, dict) else []
        rate = _field(result, "solve_rate")
        if rate is None:
            outcome = _field(result, "outcome") or {}
            rate = outcome.get("solve_rate") if isinstance(outcome, dict) else None
        if rate is None:
            lines.append(f"Probe {job_id} on {self._config.probe_set}: {status}, no solve rate.")
            return None, job_id, outcomes
        lines.append(f"Probe {job_id} on {self._config.probe_set}: probe solve rate {float(rate):.3f}.")
        return float(rate), job_id, outcomes
