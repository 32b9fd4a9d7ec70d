"""Best-first proof search over Lean proof states.

One search holds one proof handle (state ids are local to its worker). The frontier is a
heap on priority = cumulative policy log-prob + λ·(−energy); the most promising state is
expanded by running the policy's candidates and the automation tactics on its first goal
(Lean's order); duplicate states are pruned; a state with no goals whose root is clean
(goal.print: no sorry, no metavariable) ends the exploration, the handle is closed, and
the proof counts only once the replay gate (``pool.verify_proof``) accepts it in a fresh
handle. A REPL error answered to one tactic is a failed tactic, not a failed search.

Outcomes depend on the node budget, not on the clock: frontier ties break by insertion
order, candidates are tried in the order given, and ``time_limit_s`` is a safety cap set
high enough never to bind. An expansion that yields fewer than ``min_new_children`` new
open states asks the policy again for ``resample_factor`` times more samples (fresh
per-row seeds), up to ``resample_rounds`` times; proposals whose normalised text was
already tried on the state are skipped (``candidates_duplicate``).

A worker that dies (a ``lost`` outcome or a lost-handle error) ends the attempt; the
theorem is searched again from scratch up to ``config.lost_retries`` times.
"""

from __future__ import annotations

import heapq
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from burnqed.data.theorems import BY_NAME_TAG, Theorem
from burnqed.lean.errors import (
    HandleLost,
    InvalidStatement,
    OutsideFragment,
    LeanError,
    LeanProcessDied,
    LeanProtocolError,
    LeanReplError,
    LeanStartupError,
    LeanTimeout,
    PoolClosed,
)
from burnqed.lean.protocol import render_goals
from burnqed.policy.errors import PolicyGenerationError, PolicyServerError
from burnqed.policy.presets import split_tactics
from burnqed.policy.types import PromptContext, TacticCandidate
from burnqed.search.config import SearchConfig
from burnqed.search.correction import ChainFailure, correction_turn
from burnqed.search.controls import ConnectiveScorer
from burnqed.search.protocols import (
    ProofPool,
    ProofSession,
    StateScorer,
    TacticGenerator,
    propose,
)
from burnqed.search.results import SearchReason, SearchResult, SearchStats
from burnqed.search.tree import SearchNode, SearchTree

__all__ = ["BY_NAME_TAG", "BestFirstSearch", "SearchLost", "normalize_tactic", "prompt_context"]

log = logging.getLogger(__name__)

class SearchLost(Exception):
    """The worker behind a search died mid-attempt (internal: the attempt is retried)."""


class _CallBudgetSpent(Exception):
    """``search.max_lean_calls`` tactic runs were made (internal: ends the search at its budget)."""


# errors after which the handle (and its worker) are gone: the attempt is retried
_LOST_ERRORS: tuple[type[Exception], ...] = (
    SearchLost,
    HandleLost,
    LeanProcessDied,
    LeanTimeout,
    LeanProtocolError,
    LeanStartupError,
)


_WANT: dict[str, Literal["tactic", "proof"]] = {"step": "tactic", "whole": "proof", "hybrid": "proof"}


def prompt_context(
    theorem: Theorem, state: str, proof_so_far: Sequence[str], *, want: Literal["tactic", "proof"] = "tactic"
) -> PromptContext:
    """What a policy prompt may show for ``state``: the theorem (name, declaration, header) and the
    tactics applied on the path to it."""
    try:
        decl = theorem.model_copy(update={"header": None}).lean_file([]).strip()
    except ValueError:  # a statement the file assembler cannot read: the prompt shows the state only
        decl = ""
    return PromptContext(
        state=state,
        name=theorem.name,
        declaration=decl,
        header=theorem.header,
        proof_so_far=tuple(proof_so_far),
        want=want,
    )


def normalize_tactic(tactic: str) -> str:
    """A tactic's text with runs of whitespace folded: proposals equal under it are one tactic."""
    return " ".join(tactic.split())


def _open(children: list[SearchNode], max_depth: int) -> int:
    return sum(c.depth < max_depth for c in children)


@dataclass(slots=True)
class _Attempt:
    """One attempt at a theorem: its tree, the statistics counted into, and when it began."""

    theorem: Theorem
    iteration: int
    stats: SearchStats
    tree: SearchTree = field(default_factory=SearchTree)
    started: float = field(default_factory=time.perf_counter)


class BestFirstSearch:
    """Best-first search of single theorems on a shared pool, policy and energy head."""

    def __init__(
        self,
        pool: ProofPool,
        generator: TacticGenerator | None,
        scorer: StateScorer | None,
        config: SearchConfig,
    ) -> None:
        self.pool = pool
        self.generator = generator
        if scorer is not None and config.priority_control != "none":
            raise ValueError(f"search.priority_control = {config.priority_control} replaces the energy head: give one")
        # a non-learned control (burnqed.search.controls) stands where a head would
        self.scorer = ConnectiveScorer() if config.priority_control == "connectives" else scorer
        self.config = config

    async def prove(self, theorem: Theorem, *, iteration: int = 0) -> SearchResult:
        """Search ``theorem`` within the budgets; retries a lost worker ``lost_retries`` times."""
        attempts = 0
        while True:
            attempts += 1
            run = _Attempt(theorem, iteration, SearchStats(attempts=attempts))
            try:
                return await self._attempt(run)
            except _CallBudgetSpent:
                return self._result(run, "node_budget", "Lean-call budget")
            except OutsideFragment as exc:
                return self._result(run, "outside_fragment", str(exc))
            except InvalidStatement as exc:
                return self._result(run, "invalid_statement", str(exc))
            except PoolClosed:
                raise
            except _LOST_ERRORS as exc:
                log.warning("search of %s lost its worker (attempt %d): %s", theorem.name, attempts, exc)
                if attempts > self.config.lost_retries:
                    return self._result(run, "lost", str(exc))
            except LeanError as exc:
                log.error("search of %s failed: %s", theorem.name, exc)
                return self._result(run, "error", str(exc))
            except (PolicyServerError, PolicyGenerationError) as exc:
                # a refused or failed policy request (a context-length 400, a 500, a server gone)
                # is this statement's infrastructure outcome, counted apart: never the whole run's end
                log.error("search of %s lost its policy request: %s", theorem.name, exc)
                return self._result(run, "error", f"policy: {exc}")


    async def _attempt(self, run: _Attempt) -> SearchResult:
        candidate, reason = await self._explore(run)
        if candidate is None:
            return self._result(run, reason)
        # the search's handle is closed by now, so the gate's fresh handle can take its worker
        if await self._verify(run.theorem, run.tree.proof(candidate), run.stats):
            return self._result(run, "proved", solved=candidate)
        candidate.rejected = True
        run.stats.proofs_rejected += 1
        return self._result(run, "proof_rejected")

    async def _explore(self, run: _Attempt) -> tuple[SearchNode | None, SearchReason]:
        """Best-first expansion inside one handle: a candidate proof node, or why there is none."""
        theorem, tree, stats = run.theorem, run.tree, run.stats
        cfg = self.config
        deadline = run.started + cfg.time_limit_s
        async with self.pool.start_proof(theorem.target) as proof:
            root = tree.add_root(render_goals(list(proof.goals)), proof.state_id)
            if not proof.goals:
                root.proof_complete = True
                return root, "proved"
            if self.scorer is not None:
                root.energy = (await self._score([root.state], stats))[0]
            frontier: list[tuple[float, int, int]] = [(0.0, 0, root.node_id)]
            seq = 1
            while frontier:
                if stats.nodes_expanded >= cfg.max_nodes:
                    return None, "node_budget"
                if time.perf_counter() >= deadline:
                    return None, "time_limit"
                node = tree.nodes[heapq.heappop(frontier)[2]]
                stats.nodes_expanded += 1
                children: list[SearchNode] = []
                failed: list[tuple[TacticCandidate, ChainFailure]] = []
                tried: set[str] = set()
                whole = cfg.mode == "whole"
                samples = cfg.whole_samples if whole else cfg.num_candidates
                for round_ in range(1 if whole else cfg.resample_rounds + 1):
                    if round_:
                        # too few new states: ask again for more samples, whose per-row seeds differ
                        stats.resamples += 1
                        samples *= cfg.resample_factor
                    context = prompt_context(theorem, node.state, tree.proof(node), want=_WANT[cfg.mode])
                    automation = round_ == 0 and not whole  # whole mode is the model's pass@k alone
                    for cand in await self._candidates(node.state, stats, samples, automation=automation, context=context):
                        key = normalize_tactic(cand.tactic)
                        if key in tried:
                            stats.candidates_duplicate += 1
                            continue
                        tried.add(key)
                        if time.perf_counter() >= deadline:
                            return None, "time_limit"
                        if cfg.mode == "step":
                            solved = await self._try(tree, proof, node, cand, stats, children)
                        else:
                            why: list[ChainFailure] = []
                            solved = await self._run_chain(tree, proof, node, cand, stats, children, why)
                            failed += [(cand, w) for w in why]
                        if solved is not None:
                            return solved, "proved"
                    if self.generator is None or _open(children, cfg.max_depth) >= cfg.min_new_children:
                        break
                if whole:  # pass@k: the k proofs sampled at the root (and their corrections) are the whole search
                    solved = await self._correct(theorem, tree, proof, node, failed, stats, children)
                    if solved is not None:
                        return solved, "proved"
                    break
                stats.depth_capped += len(children) - _open(children, cfg.max_depth)
                open_children = [c for c in children if c.depth < cfg.max_depth]
                if open_children:
                    if self.scorer is not None:
                        energies = await self._score([c.state for c in open_children], stats)
                        for child, energy in zip(open_children, energies, strict=True):
                            child.energy = energy
                    for child in open_children:
                        priority = child.cum_log_prob
                        if child.energy is not None:
                            priority -= cfg.energy_weight * child.energy
                        if cfg.priority_control == "depth_bonus":
                            priority += cfg.depth_bonus * child.depth
                        heapq.heappush(frontier, (-priority, seq, child.node_id))
                        seq += 1
                    stats.peak_frontier = max(stats.peak_frontier, len(frontier))
            stats.frontier_empty_at = stats.nodes_expanded
            return None, "exhausted"

    async def _try(
        self,
        tree: SearchTree,
        proof: ProofSession,
        node: SearchNode,
        cand: TacticCandidate,
        stats: SearchStats,
        children: list[SearchNode],
        seen: list[SearchNode] | None = None,
        why: list[str] | None = None,
    ) -> SearchNode | None:
        """Run one candidate; returns the new node when it closes every goal with a clean root
        (``seen`` receives the existing node when the tactic reached a state already in the tree,
        ``why`` Lean's error when it was refused)."""
        why = why if why is not None else []
        if node.state_id is None:
            raise SearchLost(f"node {node.node_id} has no Lean state")
        if self.config.max_lean_calls is not None and stats.tactics_run >= self.config.max_lean_calls:
            raise _CallBudgetSpent
        t0 = time.perf_counter()
        try:
            out = await proof.run_tactic(node.state_id, cand.tactic)
        except LeanReplError as exc:
            # the REPL answered with an error object instead of a verdict: the pipe is in
            # step and the handle usable, so this is one failed tactic, not a lost search
            stats.lean_s += time.perf_counter() - t0
            stats.tactics_run += 1
            stats.failed_tactics += 1
            log.warning("REPL error on tactic %r: %s", cand.tactic, exc)
            why.append(str(exc))
            return None
        stats.lean_s += time.perf_counter() - t0
        stats.tactics_run += 1
        status = str(out.status)
        if status == "lost":
            raise SearchLost(f"worker lost while running {cand.tactic!r}")
        if status == "timeout":
            # cut off by a clock, not refused by Lean: load-dependent, so counted apart
            stats.tactic_timeouts += 1
            why.append("(deterministic) timeout")
            return None
        if status != "success" or out.has_sorry:
            # a step that needs sorry proves nothing: as good as a failure
            stats.failed_tactics += 1
            why.append(out.error_text if status != "success" else "declaration uses 'sorry'")
            return None
        complete = bool(out.proof_complete)
        goals = list(out.goals or [])
        child = tree.add_child(
            node,
            state=render_goals(goals),
            state_id=out.next_state_id,
            tactic=cand.tactic,
            log_prob=cand.log_prob,
            proof_complete=complete,
        )
        if child is None:
            stats.nodes_pruned += 1
            if seen is not None and (existing := tree.find(render_goals(goals))) is not None:
                seen.append(existing)
            return None
        stats.children_new += 1
        stats.max_depth_reached = max(stats.max_depth_reached, child.depth)
        if not complete:
            children.append(child)
            return None
        if await self._root_is_clean(proof, child, stats):
            return child
        child.rejected = True
        stats.proofs_rejected += 1
        why.append("the proof term holds sorry or an unassigned metavariable")
        return None

    async def _run_chain(
        self,
        tree: SearchTree,
        proof: ProofSession,
        node: SearchNode,
        cand: TacticCandidate,
        stats: SearchStats,
        children: list[SearchNode],
        failure: list[ChainFailure] | None = None,
    ) -> SearchNode | None:
        """Run a whole-proof candidate tactic by tactic from ``node``: every valid step enters the tree
        (its open states join ``children``, so the frontier holds the valid prefix and the search
        resumes from the state where a step failed, as DeepSeek-Prover-V1.5's truncate-and-resume);
        ``failure`` receives where and why it did not prove."""
        current = node
        steps = split_tactics(cand.tactic)
        full = (*tree.proof(node), *steps)
        at = len(full) - len(steps)
        for i, step in enumerate(steps):
            # the candidate's log-prob is credited once, to its first step
            part = TacticCandidate(tactic=step, log_prob=cand.log_prob if i == 0 else 0.0)
            opened: list[SearchNode] = []
            seen: list[SearchNode] = []
            why: list[str] = []
            solved = await self._try(tree, proof, current, part, stats, opened, seen, why)
            if solved is not None:
                return solved
            if seen:  # a state already in the tree: the proof goes on from there
                current = seen[0]
                continue
            if not opened:  # failed or timed out: the valid prefix stays in the tree
                if failure is not None:
                    failure.append(ChainFailure(full, at + i, why[0] if why else "error", current.state))
                return None
            children.extend(opened)
            current = opened[0]
            if current.depth >= self.config.max_depth:
                return None
        if failure is not None and steps:
            failure.append(ChainFailure(full, None, f"unsolved goals\n{current.state}", current.state))
        return None

    async def _correct(
        self,
        theorem: Theorem,
        tree: SearchTree,
        proof: ProofSession,
        node: SearchNode,
        failed: list[tuple[TacticCandidate, ChainFailure]],
        stats: SearchStats,
        children: list[SearchNode],
    ) -> SearchNode | None:
        """Whole mode's correction rounds: each failed proof's errors go back to the model (the
        conversation so far, its answer, the errors), one new proof per round, run as every candidate."""
        for cand, failure in failed:
            turns = []
            for _ in range(self.config.correction_rounds):
                turns.append(correction_turn(theorem, failure, cand.answer))
                context = prompt_context(theorem, node.state, tree.proof(node), want="proof")
                context = context.model_copy(update={"corrections": tuple(turns)})
                stats.corrections += 1
                answers = await self._candidates(node.state, stats, 1, automation=False, context=context)
                if not answers:
                    break
                cand = answers[0]
                why: list[ChainFailure] = []
                solved = await self._run_chain(tree, proof, node, cand, stats, children, why)
                if solved is not None:
                    return solved
                if not why:
                    break
                failure = why[0]
        return None

    async def _root_is_clean(self, proof: ProofSession, node: SearchNode, stats: SearchStats) -> bool:
        """No sorry and no unassigned metavariable in the proof term so far (goal.print)."""
        if node.state_id is None:
            return False
        t0 = time.perf_counter()
        printed = await proof.print_root(node.state_id)
        stats.lean_s += time.perf_counter() - t0
        return not (printed.root_has_sorry or printed.root_has_mvar)

    async def _verify(self, theorem: Theorem, tactics: list[str], stats: SearchStats) -> bool:
        t0 = time.perf_counter()
        verdict = await self.pool.verify_proof(theorem.target, tactics)
        stats.lean_s += time.perf_counter() - t0
        if not verdict.ok:
            log.warning("replay gate rejected a proof of %s: %s", theorem.name, verdict.reason)
        return bool(verdict.ok)

    async def _candidates(
        self, state: str, stats: SearchStats, samples: int, *, automation: bool, context: PromptContext | None = None
    ) -> list[TacticCandidate]:
        """The policy's candidates for ``samples`` samples, then (``automation``) the automation tactics."""
        proposed: list[TacticCandidate] = []
        if self.generator is not None:
            t0 = time.perf_counter()
            batch = await propose(self.generator, [state], samples, [context] if context is not None else None)
            stats.generation_s += time.perf_counter() - t0
            proposed = list(batch[0]) if batch else []
            # samples the policy folded into an equal tactic (or that held none) are duplicates too
            stats.candidates_generated += samples
            stats.candidates_duplicate += max(0, samples - len(proposed))
        if automation:
            proposed += [
                TacticCandidate(tactic=t, log_prob=self.config.automation_log_prob)
                for t in self.config.automation_tactics
            ]
            stats.candidates_generated += len(self.config.automation_tactics)
        return proposed

    async def _score(self, states: Sequence[str], stats: SearchStats) -> list[float]:
        if self.scorer is None:
            return [0.0] * len(states)
        t0 = time.perf_counter()
        energies = await self.scorer.score(list(states))
        stats.scoring_s += time.perf_counter() - t0
        return [float(e) for e in energies]

    def _result(self, run: _Attempt, reason: SearchReason, detail: str | None = None, *,
                solved: SearchNode | None = None) -> SearchResult:
        backend = self.pool.backend
        run.stats.states = len(run.tree)
        run.stats.wall_s = time.perf_counter() - run.started
        records = run.tree.records(
            theorem=run.theorem.name,
            statement_sha=run.theorem.sha,
            solved=solved,
            backend=backend,
            iteration=run.iteration,
        )
        return SearchResult(
            theorem=run.theorem,
            proved=solved is not None,
            proof=run.tree.proof(solved) if solved is not None else None,
            stats=run.stats,
            records=records,
            backend=backend,
            reason=reason,
            detail=detail,
            iteration=run.iteration,
        )
