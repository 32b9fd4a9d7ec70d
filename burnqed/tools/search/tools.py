"""The logic of the search tools: search jobs over theorem sets, tactic generation, state scoring.

A search runs as a job (burnqed.tools.common.jobs): launch_search returns at once with a job id;
the job searches the theorems with burnqed.search.search_theorems on the server's pool,
writes its trajectories to ``<jobs_dir>/<job id>.parquet`` and its EvalReport as the full
result. Both ways go through ``burnqed.runs.run_statements``: on the server's pool, or
with ``cluster=True`` over Ray Lean actors (the statement store beside the Parquet file
until the job ends). The policy and the energy head are loaded on first use and kept for the server's
life. Held-out theorem sets (burnqed.tools.common.held_out: ToolsConfig.held_out_sets and the
configured evaluation set) and held-out statements (by hash, text or elaborated form) are
refused unless the server may show held-out results, and a job over held-out theorems —
launched by such a server, or by the operator — is not shown by one that may not. A job
belongs to the client that launched it: only that client (or an operator token) cancels it.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Literal

import anyio

from burnqed.data.theorems import Theorem, TheoremSetError
from burnqed.iteration.layout import RunLayout
from burnqed.runs.ray import RayAccess
from burnqed.runs.spec import RunOutcome, RunStart
from burnqed.search.components import Components
from burnqed.search.config import SearchConfig
from burnqed.search.protocols import ProofPool
from burnqed.search.results import SearchResult
from burnqed.tools.common.config import ToolsRunConfig
from burnqed.tools.common.errors import InvalidInput, Refused, ServiceUnavailable
from burnqed.tools.common.held_out import HeldOutIndex, held_out_set_names, load_held_out

# the theorem set that names a run's own training statements (`--theorems FILE`: RUN/targets/train.jsonl)
TARGETS_SET = "targets"
from burnqed.tools.search.host import ContextHost
from burnqed.tools.common.jobs import (
    JobContext,
    JobManager,
    JobOutcome,
    JobProgress,
    JobRecord,
    JobStatus,
)
from burnqed.tools.common.policy import TacticPolicy
from burnqed.tools.search.models import (
    CandidateView,
    GenerateTacticsResult,
    JobList,
    JobResultView,
    JobView,
    ScoreStatesResult,
    SearchBudget,
    job_view,
)

__all__ = [
    "CandidateView",
    "GenerateTacticsResult",
    "JobList",
    "JobResultView",
    "JobView",
    "ScoreStatesResult",
    "SearchBudget",
    "SearchTools",
    "TARGETS_SET",
    "job_view",
    "latest_checkpoint",
]

PolicyName = Literal["model", "none"]
Detail = Literal["summary", "full"]
_ITER_DIR = re.compile(r"^iter_(\d+)$")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def latest_checkpoint(directory: Path) -> Path | None:
    """The ``iter_N`` sub-directory with the highest N, or None."""
    if not directory.is_dir():
        return None
    found = [(int(m.group(1)), p) for p in directory.iterdir() if p.is_dir() and (m := _ITER_DIR.match(p.name))]
    return max(found)[1] if found else None


class SearchTools:
    """Search jobs, generation and scoring over one pool; lives in the search server's lifespan."""

    def __init__(self, config: ToolsRunConfig, pool: ProofPool, jobs: JobManager, host: ContextHost) -> None:
        self.config = config
        self.pool = pool
        self.jobs = jobs
        self.policy = TacticPolicy(config.tools)
        self._host = host
        # the server's Ray: started or joined on the first cluster job, kept for the server's life
        self.cluster = RayAccess(config.cluster, campaigns=config.tools.max_running_jobs)
        self.held_out_names = held_out_set_names(config)
        self._held_out: HeldOutIndex | None = None
        self._held_out_lock = anyio.Lock()

    # ------------------------------------------------------------------ the held-out fence

    async def held_out_index(self) -> HeldOutIndex:
        """The held-out statements (loaded and indexed once, in a thread: a set may have to be read or generated)."""
        async with self._held_out_lock:
            if self._held_out is None:
                # hashing and normalising hundreds of statements would hold up the event loop too
                self._held_out = await anyio.to_thread.run_sync(lambda: HeldOutIndex(load_held_out(self.config)))
            return self._held_out

    async def warm_held_out(self) -> None:
        """Elaborate the held-out set ahead of the first statements launch (the server's lifespan starts this)."""
        if self.config.tools.show_held_out:
            return
        index = await self.held_out_index()
        await index.elaborated(self.pool)

    def _may_show(self, record: JobRecord) -> bool:
        """Whether this server may show ``record``: never a job over held-out theorems unless show_held_out."""
        if self.config.tools.show_held_out:
            return True
        spec, summary = record.spec or {}, record.summary or {}
        if spec.get("held_out") or spec.get("theorem_set") in self.held_out_names:
            return False
        return summary.get("theorem_set") not in self.held_out_names

    def _visible(self, job_id: str) -> JobRecord:
        record = self.jobs.get(job_id)
        if not self._may_show(record):
            raise Refused("held_out", f"job {job_id} searched held-out theorems: this server may not show it")
        return record

    def _check_owner(self, record: JobRecord, client: str | None) -> None:
        if client is None or record.client is None or record.client == client:
            return
        if client in self.config.tools.operator_clients:
            return
        raise Refused("ownership", f"job {record.job_id} belongs to another client")

    # ------------------------------------------------------------------ components

    def _ebm_path(self) -> Path | None:
        return self.config.tools.ebm_checkpoint or latest_checkpoint(RunLayout(self.config.paths.run_dir).checkpoints_ebm)

    def _model_dir(self) -> Path | None:
        return self.config.policy.model_dir or latest_checkpoint(RunLayout(self.config.paths.run_dir).checkpoints_llm)

    async def components(self, policy: PolicyName, use_ebm: bool) -> Components:
        """The generator and scorer for (policy, use_ebm), opened once and kept."""
        from burnqed.search.components import open_components

        ebm = self._ebm_path() if use_ebm else None
        if use_ebm and ebm is None:
            raise ServiceUnavailable("no energy-head checkpoint (set tools.ebm_checkpoint or run an iteration)")
        model_dir = self._model_dir()
        try:
            return await self._host.open(
                (policy, ebm),
                lambda: open_components(self.config.policy, self.config.paths, policy=policy, model_dir=model_dir, ebm=ebm),
            )
        except (OSError, ValueError, RuntimeError) as exc:
            raise ServiceUnavailable(f"cannot load the {policy} policy / energy head: {exc}") from exc

    # ------------------------------------------------------------------ theorems

    def check_set(self, theorem_set: str) -> None:
        """Refuse an unknown set, and a held-out set unless this server may show held-out results."""
        from burnqed.data.sets import builtin_sets

        if theorem_set == TARGETS_SET and self.config.iteration.theorems is not None:
            return  # the user's own training statements (burnqed.iteration.targets); never the held-out ones
        if theorem_set not in builtin_sets():
            raise InvalidInput(f"unknown theorem set {theorem_set!r} (known: {', '.join(builtin_sets())})")
        if theorem_set in self.held_out_names and not self.config.tools.show_held_out:
            raise Refused("held_out", f"{theorem_set!r} is held out: this server may not search it")

    async def statement_theorems(self, statements: list[str]) -> tuple[list[Theorem], bool]:
        """Theorems named statement_i for propositions the policy allows, and whether any is held out
        (refused unless show_held_out: by hash, by text up to spacing and binder names, or by its
        elaborated form)."""
        if not statements:
            raise InvalidInput("the statement list is empty")
        checked = [self.policy.check_statement(s) for s in statements]
        index = await self.held_out_index()
        held = False
        for i, s in enumerate(checked):
            if await index.contains(self.pool, s):
                if not self.config.tools.show_held_out:
                    raise Refused("held_out", f"statement {i} is a held-out statement: this server may not search it")
                held = True
        theorems = [Theorem(name=f"statement_{i}", statement=s, source="mcp") for i, s in enumerate(checked)]
        return theorems, held

    async def load_set(self, theorem_set: str) -> list[Theorem]:
        """A built-in set; a training set not cached yet is generated in a child process (the loop stays free)."""
        from burnqed.data.sets import load_builtin, train_cache_path

        data, home = self.config.data, self.config.paths.home
        if theorem_set == TARGETS_SET and self.config.iteration.theorems is not None:
            from burnqed.data.theorems import load_theorems

            try:
                return load_theorems(self.config.iteration.train_set)
            except TheoremSetError as exc:
                raise InvalidInput(f"the run's targets cannot be read: {exc}") from exc
        if theorem_set == "benchmark-train" and not train_cache_path(home, data.train_size, data.train_seed).is_file():
            code = (
                "import sys; from pathlib import Path; from burnqed.data.config import DataConfig; "
                "from burnqed.data.sets import load_builtin; "
                "load_builtin('benchmark-train', home=Path(sys.argv[1]), config=DataConfig.model_validate_json(sys.argv[2]))"
            )
            await anyio.run_process([sys.executable, "-c", code, str(home), data.model_dump_json()], check=True)
        try:
            return load_builtin(theorem_set, home=home, config=data)
        except TheoremSetError as exc:
            raise InvalidInput(str(exc)) from exc

    def _bounded(self, theorems: list[Theorem], limit: int | None) -> list[Theorem]:
        theorems = theorems[:limit] if limit is not None else theorems
        if len(theorems) > self.config.tools.max_statements_per_job:
            raise InvalidInput(f"more than {self.config.tools.max_statements_per_job} theorems in one job")
        return theorems

    # ------------------------------------------------------------------ jobs

    async def launch_search(
        self,
        theorem_set: str | None,
        statements: list[str] | None,
        budget: SearchBudget,
        policy: PolicyName = "model",
        use_ebm: bool = False,
        limit: int | None = None,
        cluster: bool = False,
        client: str | None = None,
    ) -> JobView:
        """Start a search job; returns once it is launched (a set is loaded by the job itself).

        ``cluster``: the job spreads the statements over Ray Lean actors (``[cluster]``)
        through the same Campaign as ``burnqed search --cluster``; Ray is started or joined
        here first, so a missing Ray or an unreachable cluster is this call's error.
        """
        if (theorem_set is None) == (statements is None):
            raise InvalidInput("give exactly one of theorem_set and statements")
        if use_ebm and policy == "none":
            # the energy head scores the policy's candidates: with no policy there is nothing to score
            raise InvalidInput("use_ebm needs a policy: policy='none' runs the automation tactics alone")
        given: list[Theorem] | None = None
        held = False
        if cluster and not self.config.tools.allow_cluster_jobs:
            raise Refused(
                "cluster",
                "this server does not run cluster jobs (an operator enables them with tools.allow_cluster_jobs; "
                "an MCP call never starts infrastructure otherwise)",
            )
        if theorem_set is not None:
            self.check_set(theorem_set)
            held = theorem_set in self.held_out_names
        else:
            found, held = await self.statement_theorems(statements or [])
            given = self._bounded(found, limit)
        if use_ebm and self._ebm_path() is None:
            raise ServiceUnavailable("no energy-head checkpoint (set tools.ebm_checkpoint or run an iteration)")
        search_config = self.config.search.model_copy(update=budget.model_dump(exclude_none=True))
        # a search holds one worker and its replay gate needs another: leave one free
        workers = self.config.lean.num_workers
        search_config = search_config.model_copy(
            update={"concurrency": max(1, min(search_config.concurrency, workers - 1))}
        )
        if cluster:
            await self.cluster.start()
        spec = {
            "theorem_set": theorem_set,
            "statements": len(statements) if statements is not None else None,
            "limit": limit,
            "budget": budget.model_dump(exclude_none=True),
            "policy": policy,
            "use_ebm": use_ebm,
            "cluster": cluster,
            "held_out": held,
        }
        set_name = theorem_set or "statements"

        async def work(job: JobContext) -> JobOutcome:
            from burnqed.search.evaluation import report_from_results

            theorems = given if given is not None else self._bounded(await self.load_set(set_name), limit)
            proved = 0
            done = 0
            started = anyio.current_time()

            def on_result(result: SearchResult) -> None:
                nonlocal proved, done
                done += 1
                proved += int(result.proved)
                job.report(JobProgress(done=done, total=len(theorems), succeeded=proved, message=result.theorem.name))

            ran = await self._run(job, theorems, search_config, policy, use_ebm, cluster, on_result)
            report = report_from_results(
                ran.results,
                label=ran.label,
                backend=ran.backend,
                search=search_config,
                policy=ran.policy_id,
                ebm=ran.ebm_id,
                theorem_set=set_name,
                run_wall_s=anyio.current_time() - started,
            )
            summary = {
                "theorem_set": set_name,
                "total": report.total,
                "solved": report.solved,
                "solve_rate": report.solve_rate,
                "nodes_expanded": report.budget.nodes_expanded,
                "backend": report.backend,
                "label": report.label,
                "trajectories": str(job.path(".parquet")),
            }
            if ran.cluster is not None:
                summary["cluster"] = {
                    "lean_actors": self.config.cluster.lean_actors,
                    "requeued": ran.cluster.requeued,
                    "actor_failures": ran.cluster.actor_failures,
                }
            return JobOutcome(summary=summary, full=report.model_dump(mode="json"))

        return job_view(
            self.jobs.launch("search", spec, work, total=len(given) if given is not None else 0, client=client)
        )

    async def _run(
        self,
        job: JobContext,
        theorems: list[Theorem],
        config: SearchConfig,
        policy: PolicyName,
        use_ebm: bool,
        cluster: bool,
        on_result: Callable[[SearchResult], None],
    ) -> RunOutcome:
        """The job's statements through the one run call: the server's pool, or Ray Lean actors;
        rows to the job's Parquet file (its store beside it until the job ends, however it ends)."""
        from burnqed.cluster.spec import ClusterSpec
        from burnqed.runs.run import run_statements
        from burnqed.runs.spec import Local, StatementRun
        from burnqed.search.store import store_dir

        out = job.path(".parquet")

        def started(start: RunStart) -> None:
            actors = f"{start.lean_actors} Lean actors" if start.lean_actors is not None else "searching"
            job.report(JobProgress(total=len(theorems), message=actors))

        def run(where: Local | ClusterSpec) -> StatementRun:
            return StatementRun(theorems, config, where, store_dir(out), trajectories=out, resume=False)

        if cluster:
            job.report(JobProgress(total=len(theorems), message="starting the Lean actors"))
            ebm = self._ebm_path() if use_ebm else None
            spec = ClusterSpec.of(self.config, search=config, policy=policy, model_dir=self._model_dir(), ebm=ebm)
            return await run_statements(run(spec), on_result, on_start=started)
        job.report(JobProgress(total=len(theorems), message="loading the policy"))
        comps = await self.components(policy, use_ebm)
        return await run_statements(run(Local(self.pool, comps)), on_result, on_start=started)

    def job_status(self, job_id: str) -> JobView:
        """The job's status and progress."""
        return job_view(self._visible(job_id))

    async def wait_job(
        self, job_id: str, wait_s: float, on_progress: Callable[[JobRecord], Awaitable[None]] | None = None
    ) -> JobView:
        """Wait up to ``wait_s`` (capped by ToolsConfig.max_wait_s) for the job to finish, reporting progress."""
        deadline = anyio.current_time() + min(wait_s, self.config.tools.max_wait_s)
        record = self._visible(job_id)
        while not record.status.finished:
            left = deadline - anyio.current_time()
            if left <= 0:
                break
            previous, record = record, await self.jobs.wait(job_id, left)
            if on_progress is not None and record != previous:
                await on_progress(record)
        return job_view(record)

    async def job_result(self, job_id: str, detail: Detail = "summary") -> JobResultView:
        """A finished job's summary, and its full report with detail='full'."""
        record = self._visible(job_id)
        if not record.status.finished or detail == "full":
            full = self.jobs.full_result(job_id)  # raises JobNotFinished with the reason
        else:
            full = None
        if full is not None and not self.config.tools.show_held_out:
            # a job recorded before its spec said so (or an operator's): judge it by what it searched
            shas = (await self.held_out_index()).shas
            outcomes = full.get("outcomes") if isinstance(full.get("outcomes"), list) else []
            if any(isinstance(o, dict) and o.get("statement_sha") in shas for o in outcomes):
                raise Refused("held_out", f"job {job_id} searched held-out theorems: this server may not show it")
        outcome = record.summary or {}
        return JobResultView(
            job_id=record.job_id,
            status=record.status,
            solved=outcome.get("solved"),
            total=outcome.get("total"),
            solve_rate=outcome.get("solve_rate"),
            error=record.error,
            outcome=record.summary,
            result=full,
        )

    async def cancel_job(self, job_id: str, client: str | None = None) -> JobView:
        """Cancel a running job of ``client`` (a finished one is returned as it is)."""
        self._check_owner(self._visible(job_id), client)
        return job_view(await self.jobs.cancel(job_id, timeout_s=self.config.tools.max_wait_s))

    def list_jobs(self, status: JobStatus | None = None, limit: int = 20) -> JobList:
        """Jobs this server may show, newest first."""
        records = [
            r for r in self.jobs.list(limit=10_000) if (status is None or r.status is status) and self._may_show(r)
        ]
        return JobList(jobs=[job_view(r) for r in records[:limit]])

    # ------------------------------------------------------------------ policy and energy head

    async def generate_tactics(self, state: str, n: int, policy: PolicyName = "model") -> GenerateTacticsResult:
        """Up to ``n`` tactics for a rendered proof state."""
        state = self._check_state(state)
        n = min(n, self.config.tools.max_generate_n)
        comps = await self.components(policy, False)
        if comps.generator is None:
            raise ServiceUnavailable("no tactic generator")
        with anyio.move_on_after(self.config.tools.max_call_s) as scope:
            batches = await comps.generator.generate([state], n)
        if scope.cancelled_caught:
            raise ServiceUnavailable(f"generation took longer than {self.config.tools.max_call_s:g} s")
        return GenerateTacticsResult(
            candidates=[CandidateView(tactic=c.tactic, log_prob=c.log_prob) for c in batches[0]],
            policy=comps.policy_id,
        )

    def _check_state(self, state: str) -> str:
        """A rendered proof state within the size limit, without control characters (checked before
        any model is loaded, so a bad state costs nothing)."""
        state = state.replace("\r\n", "\n").replace("\t", " ")
        if not state.strip():
            raise InvalidInput("empty state")
        if len(state) > self.config.tools.max_state_chars:
            raise InvalidInput(f"state longer than {self.config.tools.max_state_chars} characters")
        if _CONTROL.search(state):
            raise InvalidInput("state contains control characters")
        return state

    async def score_states(self, states: list[str]) -> ScoreStatesResult:
        """Energies of rendered proof states (lower = more provable)."""
        if not states:
            raise InvalidInput("no states")
        if len(states) > self.config.tools.max_score_states:
            raise InvalidInput(f"more than {self.config.tools.max_score_states} states")
        states = [self._check_state(s) for s in states]
        comps = await self.components("model", True)
        with anyio.move_on_after(self.config.tools.max_call_s) as scope:
            energies = await comps.scorer.score(states)
        if scope.cancelled_caught:
            raise ServiceUnavailable(f"scoring took longer than {self.config.tools.max_call_s:g} s")
        return ScoreStatesResult(energies=[float(e) for e in energies], ebm=str(comps.ebm_id))
