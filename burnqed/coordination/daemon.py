"""The coordinator daemon: sessions in a loop, then the daemon's own work.

A session = the brain acting through the toolbox (allow-listed MCP tools only). After
each session the daemon — not the agent — executes the iterations the agent scheduled in
the blueprint (burnqed.iteration), reads their held-out evaluation (never shown to the
agent), appends a line to sessions.jsonl and carries a short handover summary into the
next session. Transient errors back off exponentially; fatal ones (authentication, billing)
stop the daemon. SIGTERM / SIGINT cancel the work in flight (iteration steps resume) and stop cleanly.
"""

from __future__ import annotations

import logging
import math
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import anyio
import tomli_w
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from burnqed.coordination.anthropic_brain import AnthropicBrain
from burnqed.coordination.brain import (
    Brain,
    BrainFatalError,
    BrainOutcome,
    SessionContext,
)
from burnqed.coordination.config import CoordinationRunConfig
from burnqed.coordination.control import (
    BlueprintDamaged,
    ControlError,
    DaemonPaths,
    clock_mark,
    read_state,
    run_lock,
    seconds_since,
    write_pid,
    write_state,
)
from burnqed.coordination.log import SessionLog, append_jsonl, read_jsonl
from burnqed.coordination.scripted_brain import ScriptedBrain
from burnqed.coordination.targets import own_targets, record_found_proofs
from burnqed.coordination.toolbox import Toolbox
from burnqed.files import write_text_atomic
from burnqed.interrupt import STOP_SIGNALS, shield_cleanup
from burnqed.iteration.layout import RunLayout

if TYPE_CHECKING:
    from burnqed.blueprint import Entry
    from burnqed.iteration.runner import IterationReport

__all__ = [
    "AGENT_TOOLS_SETTINGS",
    "BlueprintDamaged",
    "Daemon",
    "IterationSummary",
    "SessionRecord",
    "make_brain",
    "prepare_run_config",
    "session_history",
    "write_config_snapshot",
]

log = logging.getLogger(__name__)

BrainFactory = Callable[[CoordinationRunConfig], Brain]

# settings the coordinator's servers always run with (the toolbox also passes them as --set)
AGENT_TOOLS_SETTINGS: dict[str, Any] = {"show_held_out": False, "allow_cluster_jobs": False}


class IterationSummary(BaseModel):
    """One iteration as a session record and the handover see it (training side first)."""

    model_config = ConfigDict(frozen=True)

    label: str
    train_solve_rate: float | None = None
    train_proved: int | None = None
    held_out: float | None = Field(default=None, description="operator only: never in the handover")
    held_out_no_ebm: float | None = None
    executed: list[str] = Field(default_factory=list)
    seconds: float = 0.0


class SessionRecord(BaseModel):
    """One line of sessions.jsonl (the daemon's record; the agent never reads it)."""

    model_config = ConfigDict(frozen=True)

    session: int
    brain: str
    started: float
    seconds: float
    stop_reason: str | None = None
    turns: int = 0
    tool_calls: int = 0
    refused_calls: int = 0
    tool_usage: dict[str, int] = Field(default_factory=dict)
    usage: dict[str, Any] = Field(default_factory=dict)
    iterations: list[IterationSummary] = Field(default_factory=list)
    error: str | None = None
    handover: str = ""
    probe_solve_rate: float | None = None


class _BrainPhase(BaseModel):
    """A session's finished brain part (``coordinator/session_brain.json``): what a restart
    needs to finish the session without running its brain again."""

    session: int
    brain: str
    started: float
    clock: str | None = None  # clock_mark() at the start: the session's seconds on the monotonic clock
    finished: bool = True
    next_iteration: int = 0
    outcome: BrainOutcome | None = None
    tool_calls: int = 0
    refused_calls: int = 0
    tool_usage: dict[str, int] = Field(default_factory=dict)


def make_brain(config: CoordinationRunConfig) -> Brain:
    """The brain the config names."""
    if config.coordinator.brain == "anthropic":
        return AnthropicBrain(config.coordinator)
    return ScriptedBrain(config.coordinator)


C = TypeVar("C", bound=CoordinationRunConfig)


def prepare_run_config(config: C, run_dir: Path) -> C:
    """The config with every run-local path pointing into ``run_dir`` (servers see the same files)."""
    run_dir = run_dir.resolve()
    layout = RunLayout(run_dir)
    return config.model_copy(
        update={
            "paths": config.paths.model_copy(update={"run_dir": run_dir, "logs_dir": layout.logs}),
            "blueprint": config.blueprint.model_copy(update={"path": layout.blueprint}),
            # the agent's servers start from this config: whatever burnqed.toml says for a
            # person's own server, they never show held-out results nor start infrastructure
            "tools": config.tools.model_copy(update=AGENT_TOOLS_SETTINGS),
        }
    )


def write_config_snapshot(config: CoordinationRunConfig, path: Path) -> Path:
    """Write the config as TOML (the daemon's MCP servers start from it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = config.model_dump(mode="json", exclude_none=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(tomli_w.dumps(data), encoding="utf-8")
    os.replace(tmp, path)
    return path


def _iteration_summary(report: IterationReport) -> IterationSummary:
    search = report.steps.search
    return IterationSummary(
        label=report.label,
        train_solve_rate=search.proved_rate if search else None,
        train_proved=search.proved if search else None,
        held_out=report.solve_rate,
        held_out_no_ebm=report.solve_rate_no_ebm,
        executed=list(report.executed),
        seconds=report.seconds,
    )


def _handover(outcome: BrainOutcome | None, iterations: list[IterationSummary], limit: int) -> str:
    """What the next session is told: the agent's summary and training-side numbers only."""
    parts: list[str] = []
    if outcome is not None and outcome.summary:
        parts.append(outcome.summary.strip())
    for it in iterations:
        rate = it.train_solve_rate
        shown = "n/a" if rate is None else f"{100 * rate:.1f}%"
        parts.append(f"The daemon ran {it.label}: training-set solve rate {shown} ({it.train_proved} proved).")
    text = "\n".join(parts)
    return text if len(text) <= limit else text[: limit - 1] + "…"


class Daemon:
    """Runs coordinator sessions for one run directory."""

    def __init__(
        self,
        config: CoordinationRunConfig,
        run_dir: Path,
        *,
        brain_factory: BrainFactory = make_brain,
        progress: Any = None,
    ) -> None:
        # with iteration.theorems: the user's statements carved, registered (locked) and probed
        self.config = own_targets(prepare_run_config(config, run_dir), run_dir)
        self.paths = DaemonPaths(run_dir=run_dir.resolve())
        self._brain_factory = brain_factory
        self._progress = progress
        self._stop = anyio.Event()
        self._scope: anyio.CancelScope | None = None
        self._shielded: dict[int, Any] = {}
        self.state = read_state(self.paths)

    def request_stop(self) -> None:
        """Stop after cancelling the work in flight (what finished is kept)."""
        self._stop.set()
        if self._scope is not None:
            self._scope.cancel()

    def _save(self, **changes: Any) -> None:
        self.state = self.state.model_copy(update=changes)
        write_state(self.paths, self.state)

    def _next_iteration(self) -> int:
        from burnqed.blueprint import BlueprintStore

        return BlueprintStore(self.config.blueprint.path, self.config.blueprint).read().next_iteration_index()

    def _iterations_to_run(self) -> list[Entry]:
        """The blueprint's pending iterations and its failed ones, in file order: a failed
        iteration (a full disk mid-step) is retried, as ``burnqed iterate --pending`` does, so a
        session never counts as done while its work failed (one over its crash budget raises
        in the runner, naming the way out)."""
        from burnqed.blueprint import BlueprintStore
        from burnqed.blueprint.store import PENDING_ITERATION_STATUSES

        store = BlueprintStore(self.config.blueprint.path, self.config.blueprint)
        runnable = PENDING_ITERATION_STATUSES | {"failed"}
        return [e for e in store.list_entries(kind="iteration") if e.status in runnable]

    async def _execute_iterations(self) -> list[IterationSummary]:
        """Run the iterations of _iterations_to_run (none: no Lean pool is started)."""
        entries = self._iterations_to_run()
        if not entries:
            return []
        self._save(status="iteration")
        return await self._run_entries(entries)

    async def _run_entries(self, entries: list[Entry]) -> list[IterationSummary]:
        """Run ``entries`` on one Lean pool; an iteration's failure raises (its entry is marked failed)."""
        from burnqed.iteration.runner import IterationRunner
        from burnqed.lean import LeanPool
        from burnqed.runs.ray import ray_session

        async with LeanPool(self.config.lean) as pool:
            runner = IterationRunner(self.config, self.paths.run_dir, pool, progress=self._progress)
            # one Ray session for all of them (each iteration joins it), as run_pending does
            async with ray_session(self.config.cluster, enabled=self.config.iteration.cluster):
                summaries = [_iteration_summary(await runner.run_entry(entry)) for entry in entries]
        # the proofs the iterations found become the user's targets' proofs, through the agent's gate
        await record_found_proofs(self.config, self.paths.run_dir)
        return summaries

    def _finished_unrecorded(self, phase: _BrainPhase) -> list[IterationSummary]:
        """The done iterations from ``phase``'s first label on that no session record names."""
        from burnqed.blueprint import BlueprintStore, iteration_index
        from burnqed.iteration.runner import IterationReport
        from burnqed.iteration.summaries import read_summaries

        recorded = {
            str(it.get("label"))
            for r in read_jsonl(self.paths.sessions_file)
            for it in (r.get("iterations") or [])
            if isinstance(it, dict)
        }
        layout = RunLayout(self.paths.run_dir)
        out: list[IterationSummary] = []
        for entry in BlueprintStore(self.config.blueprint.path, self.config.blueprint).list_entries(kind="iteration"):
            index = iteration_index(entry.label)
            if entry.status != "done" or index is None or index < phase.next_iteration or entry.label in recorded:
                continue
            steps = read_summaries(layout, index)
            report = IterationReport(index=index, label=entry.label, executed=[], skipped=steps.finished(),
                                     steps=steps, seconds=0.0)
            out.append(_iteration_summary(report))
        return out

    def _check_blueprint(self) -> None:
        """Refuse (BlueprintDamaged) to run a session on a blueprint that fails validation or
        whose locked statements were changed by hand: the daemon would build on a target that
        is not the one registered."""
        from burnqed.blueprint import BlueprintStore

        path = self.config.blueprint.path
        problems = BlueprintStore(path, self.config.blueprint).problems() if path.is_file() else []
        if problems:
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            raise BlueprintDamaged(
                f"{path} fails its checks: {problems[0]}{more}; restore it by hand (`burnqed blueprint validate` "
                "and `burnqed blueprint audit` list every problem), then start the coordinator again"
            )

    def _previous_probe_rate(self) -> float | None:
        for raw in reversed(read_jsonl(self.paths.sessions_file)):
            try:
                return SessionRecord.model_validate(raw).probe_solve_rate
            except ValidationError:
                continue
        return None

    async def run_session(self) -> SessionRecord:
        """One session, then the scheduled iterations; returns (and appends) its record.

        Iterations left pending by an interrupted run are finished first, so a session
        never starts while earlier work is unfinished. A session whose brain had finished
        when the daemon stopped (a crash or SIGTERM in its iterations) is resumed there: its
        brain does not run again (no second probe, no extra iteration), its iterations are
        finished and its record is the one an uninterrupted run writes.
        """
        session = self.state.sessions_done
        blueprint = self.config.blueprint.path
        if blueprint.is_file() and not blueprint.read_bytes().strip():
            # a session could neither pick a target nor schedule work: refused, not counted
            raise ControlError(f"{blueprint} is empty: nothing for a session to work on; restore it, or remove "
                               "it to start a new blueprint (burnqed demo registers the benchmark's targets)")
        self._check_blueprint()
        pending = self._pending_brain(session)
        # a kill after an iteration's last step and before this session's record: those
        # iterations are done, not pending, and still this session's
        finished = self._finished_unrecorded(pending) if pending is not None else []
        resumed = finished + await self._execute_iterations()
        if pending is None:
            pending = await self._brain_phase(session)
        iterations = resumed + await self._execute_iterations()
        outcome = pending.outcome
        text = _handover(outcome, iterations, self.config.coordinator.handover_chars)
        write_text_atomic(self.paths.root / "handover.md", text)
        record = SessionRecord(
            session=session,
            brain=pending.brain,
            started=pending.started,
            seconds=round(seconds_since(pending.clock, pending.started), 2),  # a clock set back changes nothing
            stop_reason=outcome.stop_reason if outcome else "time_limit",
            turns=outcome.turns if outcome else 0,
            tool_calls=pending.tool_calls,
            refused_calls=pending.refused_calls,
            tool_usage=pending.tool_usage,
            usage=outcome.usage if outcome else {},
            iterations=iterations,
            handover=text,
            probe_solve_rate=outcome.probe_solve_rate if outcome else None,
        )
        if not any(r.get("session") == session for r in read_jsonl(self.paths.sessions_file)):
            # a kill between this line and the state's update must not record the session twice
            append_jsonl(self.paths.sessions_file, record.model_dump())
        best, best_label = self.state.best_held_out, self.state.best_held_out_iteration
        for it in iterations:
            rate = it.held_out
            if rate is not None and (best is None or rate > best):
                best, best_label = rate, it.label
        last = iterations[-1].label if iterations else self.state.last_iteration
        self._save(status="idle", sessions_done=session + 1, last_iteration=last, best_held_out=best,
                   best_held_out_iteration=best_label, consecutive_failures=0, last_error=None)
        self._brain_file.unlink(missing_ok=True)
        return record

    @property
    def _brain_file(self) -> Path:
        return self.paths.root / "session_brain.json"

    def _read_brain_file(self, session: int) -> _BrainPhase | None:
        try:
            phase = _BrainPhase.model_validate_json(self._brain_file.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            raise ControlError(f"{self._brain_file} is damaged ({type(exc).__name__}); repair or remove it") from None
        return phase if phase.session == session else None  # an older session's is already recorded

    def _pending_brain(self, session: int) -> _BrainPhase | None:
        """The finished brain phase of ``session`` an interrupted run left, or None."""
        phase = self._read_brain_file(session)
        if phase is None or not phase.finished:
            return None
        log.warning("session %d: its brain had finished before the daemon stopped; finishing its iterations", session)
        return phase

    async def _brain_phase(self, session: int) -> _BrainPhase:
        """The brain's part of a session; written down before its iterations run."""
        write_config_snapshot(self.config, self.paths.config_file)
        handover_path = self.paths.root / "handover.md"
        handover = handover_path.read_text(encoding="utf-8") if handover_path.is_file() else ""
        # a brain cut short (a kill mid-session) runs again with the iteration label it was given,
        # so what it schedules again is the same entry, never an extra iteration
        cut_short = self._read_brain_file(session)
        next_iteration = cut_short.next_iteration if cut_short is not None else self._next_iteration()
        context = SessionContext(session=session, handover=handover, next_iteration=next_iteration,
                                 train_set=self.config.iteration.train_set,
                                 previous_probe_rate=self._previous_probe_rate())
        session_log = SessionLog(self.paths.turns_file(session), session)
        brain = self._brain_factory(self.config)
        self._save(status="session", session=session, pid=os.getpid())
        started, clock = time.time(), clock_mark()
        begun = _BrainPhase(session=session, brain=brain.name, started=started, clock=clock, finished=False,
                            next_iteration=next_iteration)
        write_text_atomic(self._brain_file, begun.model_dump_json())
        session_log.event("session_start", brain=brain.name, handover=handover)
        outcome: BrainOutcome | None = None
        task = None
        if self._progress is not None:
            task = self._progress.add_task(f"session {session}: {brain.name} brain at work", total=None)
        async with Toolbox(self.config.coordinator, session_log, config_path=self.paths.config_file) as toolbox:
            with anyio.move_on_after(self.config.coordinator.session_time_limit_s):
                outcome = await brain.run(toolbox, context, session_log)
            tool_calls, refused, usage = toolbox.total_calls, toolbox.refused_calls, toolbox.usage()
        if task is not None:
            self._progress.update(task, description=f"session {session}: {tool_calls} tool calls", total=1, completed=1)
        session_log.event("session_end", stop_reason=outcome.stop_reason if outcome else "time_limit")
        phase = begun.model_copy(update={"finished": True, "outcome": outcome, "tool_calls": tool_calls,
                                         "refused_calls": refused, "tool_usage": usage})
        write_text_atomic(self._brain_file, phase.model_dump_json(indent=2))
        return phase

    async def _backoff(self, failures: int) -> None:
        cfg = self.config.coordinator
        delay = min(cfg.backoff_max_s, cfg.backoff_initial_s * math.pow(2, failures - 1))
        self._save(status="backoff")
        log.warning("session failed (%d in a row); retrying in %.1f s", failures, delay)
        with anyio.move_on_after(delay):
            await self._stop.wait()

    async def _watch_signals(self, scope: anyio.CancelScope, *, task_status: Any = anyio.TASK_STATUS_IGNORED) -> None:
        with anyio.open_signal_receiver(*STOP_SIGNALS) as signals:
            task_status.started()
            async for signum in signals:
                log.warning("received %s; stopping", signal.Signals(signum).name)
                self.request_stop()
                scope.cancel()
                break
        if self._stop.is_set():
            # the clean-up (entry marked partial, writers finalised, state saved) is not cut short
            self._shielded = shield_cleanup()

    async def run(self, *, handle_signals: bool = True) -> int:
        """Sessions until stopped, ``max_sessions`` is reached or a fatal error; the exit code."""
        cfg = self.config.coordinator
        with run_lock(self.paths):  # the run dir's one writer, for the daemon's whole life
            write_pid(self.paths)
            code = 0
            try:
                async with anyio.create_task_group() as tg:
                    if handle_signals:  # in place before the first session starts
                        await tg.start(self._watch_signals, tg.cancel_scope)
                    code = await self._loop(cfg.max_sessions)
                    tg.cancel_scope.cancel()
            finally:
                stopped = self._stop.is_set()
                status = "stopped" if stopped or code == 0 else "failed"
                self._save(status=status, pid=None)
                self.paths.pid_file.unlink(missing_ok=True)
                for signum, handler in self._shielded.items():
                    signal.signal(signum, handler)
        return code

    async def _loop(self, max_sessions: int | None) -> int:
        failures = 0
        while not self._stop.is_set():
            if max_sessions is not None and self.state.sessions_done >= max_sessions:
                return 0
            with anyio.CancelScope() as scope:
                self._scope = scope
                try:
                    await self.run_session()
                    failures = 0
                except BrainFatalError as exc:
                    self._save(last_error=str(exc)[:500])
                    log.error("fatal brain error, stopping: %s", exc)
                    return 3
                except BlueprintDamaged as exc:
                    # no retry can help: the operator must restore the file
                    self._save(last_error=str(exc)[:500])
                    log.error("%s", exc)
                    return 2
                except Exception as exc:
                    log.exception("session %d failed", self.state.sessions_done)
                    failures += 1
                    self._save(consecutive_failures=failures, last_error=f"{type(exc).__name__}: {exc}"[:500])
                    if failures >= self.config.coordinator.max_consecutive_failures:
                        log.error("%d consecutive failures, stopping", failures)
                        return 4
                    await self._backoff(failures)
                finally:
                    self._scope = None
            if scope.cancelled_caught:
                return 0
            if self.config.coordinator.pause_between_sessions_s and not self._stop.is_set():
                with anyio.move_on_after(self.config.coordinator.pause_between_sessions_s):
                    await self._stop.wait()
        return 0


def session_history(paths: DaemonPaths) -> list[dict[str, Any]]:
    """Every recorded session."""
    return read_jsonl(paths.sessions_file)
