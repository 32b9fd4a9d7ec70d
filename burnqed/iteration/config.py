"""Configuration of expert iteration (defaults sized for the embedded benchmark on a laptop CPU)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from burnqed.blueprint.config import BlueprintConfig
from burnqed.cluster.config import ClusterConfig
from burnqed.data.config import DataConfig
from burnqed.ebm.config import EBMConfig
from burnqed.lean.config import LeanConfig
from burnqed.paths import PathsConfig
from burnqed.policy.config import PolicyConfig
from burnqed.search.config import SearchConfig

__all__ = [
    "IterationConfig",
    "IterationRunConfig",
    "evaluation_search_config",
    "iteration_search_config",
    "matched_nodes",
    "pool_seed",
    "seeded_policy",
]


class IterationConfig(BaseModel):
    """Sizes, budgets and seeds of an expert-iteration run."""

    model_config = ConfigDict(extra="forbid")

    iterations: int = Field(default=3, ge=1, description="iterations `burnqed iterate` runs (0 … N-1)")
    train_set: str = Field(default="benchmark-train", description="built-in set name or a .jsonl path")
    train_size: int = Field(default=150, ge=1, description="training theorems searched per iteration")
    fresh_train_set: bool = Field(
        default=False,
        description="iteration N searches benchmark-train generated with seed data.train_seed + N (new theorems)",
    )
    curriculum: bool = Field(
        default=False,
        description="search a difficulty band of an unlabeled pool; learn from a small seed plus what search found",
    )
    pool_size: int = Field(default=1500, ge=1, description="curriculum: statements in the unlabeled pool (levels 1 … 6)")
    world: Literal["benchmark", "depth"] = Field(
        default="benchmark",
        description="curriculum: the pool's generator: the benchmark families, or the depth world (burnqed.data.depth)",
    )
    labelled_depth: int = Field(
        default=2, ge=1, le=6, description="depth world: pool statements up to this depth carry a reference proof"
    )
    seed_size: int = Field(default=40, ge=1, description="curriculum: pool statements whose reference proofs are the seed")
    seed_max_level: int = Field(default=3, ge=1, le=6, description="curriculum: highest level of a seed statement")
    explore_share: float = Field(
        default=0.5, ge=0.0, le=1.0, description="curriculum: share of the sample drawn from untried statements"
    )
    give_up_after: int = Field(
        default=2, ge=1, description="curriculum: attempts without a proof after which a statement is 'never'"
    )
    band_width: int = Field(default=1, ge=0, description="curriculum: untried statements up to frontier + this level")
    frontier_rate: float = Field(
        default=0.5, gt=0.0, le=1.0, description="curriculum: solve rate that puts a level behind the frontier"
    )
    start_level: int = Field(default=2, ge=1, le=6, description="curriculum: the frontier before any history")
    eval_set: str = Field(default="benchmark-test", description="held-out set name or a .jsonl path")
    eval_size: int = Field(default=60, ge=0, description="held-out theorems evaluated (evenly spaced); 0 = all")
    eval_split: Literal["test", "tune"] = Field(
        default="test",
        description="'test' evaluates eval_set; 'tune' its tuning split (burnqed.data.sets.TUNE_SETS: depth-test → "
        "depth-tune, another seed, disjoint): every choice is made on 'tune', 'test' once per final configuration",
    )
    seed: int = Field(default=0, description="the run's seed: fine-tuning (+ N), and with seed_scope 'all' more")
    seed_scope: Literal["all", "fine_tuning"] = Field(
        default="all",
        description="'all': iteration.seed also offsets the pool's generator seed (data.train_seed + seed, so the "
        "seed set, drawn from the pool, changes with it) and policy.seed (+ seed); 'fine_tuning': the fine-tuning "
        "shuffle only (the runs measured before issue 42). Seed 0 is the same run either way",
    )
    max_nodes: int | None = Field(default=32, ge=1, description="node budget per theorem; None = search.max_nodes")
    num_candidates: int | None = Field(
        default=8, ge=1, description="tactics sampled per state; None = search.num_candidates"
    )
    time_limit_s: float | None = Field(
        default=None, gt=0, description="wall budget per theorem; None = search.time_limit_s (a safety cap only)"
    )
    eval_max_nodes: int | None = Field(
        default=None, ge=1, description="held-out node budget; None = max_nodes as configured (a plan does not move it)"
    )
    eval_num_candidates: int | None = Field(
        default=None, ge=1, description="held-out tactics per state; None = num_candidates as configured"
    )
    ebm_eval: Literal["every", "last"] = Field(
        default="every",
        description="held-out evaluation with the energy head in every iteration, or only in the last (iterations - 1): "
        "the no-head evaluation (the curve) runs in every iteration either way",
    )
    use_ebm: bool = Field(default=True, description="search the training set with the energy head when one exists")
    expert_rules: bool = Field(
        default=False,
        description="the training search also tries the rules' structural tactics (never the held-out evaluation; local only)",
    )
    cluster: bool = Field(
        default=False,
        description="the search and both evaluate steps spread their statements over Ray Lean actors ([cluster], "
        "extra 'cluster'), the iteration's policy and energy head in the policy actor; SFT and EBM training stay local",
    )
    first_sft_epochs: int = Field(default=12, ge=1, description="epochs of iteration 0 (fine-tunes the base model)")
    sft_epochs: int = Field(default=4, ge=1, description="epochs of later iterations (from the previous checkpoint)")
    sft_from: Literal["previous", "base"] = Field(
        default="previous", description="iteration N>0 fine-tunes iteration N-1's policy, or the base again"
    )
    reference_pairs: Literal["first", "always", "never"] = Field(
        default="always",
        description="train on the reference proofs only in iteration 0, in every iteration, or never (search-first runs)",
    )
    theorems: Path | None = Field(
        default=None,
        description="the user's own statements (.lean file of theorems ending in `sorry`/`by`, a miniF2F-style or "
        "plain-statement JSONL); no proofs needed: the run's training and held-out sets are carved from it "
        "(burnqed.iteration.targets) and iteration 0 searches with the base model",
    )
    held_out: Path | None = Field(
        default=None, description="with `theorems`: the held-out statements as their own file (same formats)"
    )
    held_out_share: float = Field(
        default=0.2, gt=0.0, lt=1.0,
        description="with `theorems` and no `held_out` file: share of statements held out by the hash of the statement",
    )
    start: Literal["reference", "search"] | None = Field(
        default=None,
        description="iteration 0 fine-tunes on reference proofs ('reference'), or searches with the base model as it "
        "is and every later iteration trains on the proofs found so far ('search'; reference proofs and extra pairs a "
        "warm start when there are any); None = 'search' with `theorems`, else 'reference'",
    )
    extra_pairs: list[Path] = Field(
        default_factory=list,
        description="more (state, tactic) pair files (.jsonl or trajectory Parquet) for every iteration's SFT",
    )
    torch_threads: int = Field(
        default=0, ge=0, description="torch CPU threads while iterating; 0 = half the CPU cores (Lean gets the rest)"
    )
    ebm_min_positives: int = Field(default=4, ge=1, description="proof-path states needed to train an energy head")
    baselines: list[Literal["rules", "reference", "reference_matched", "supervised"]] = Field(
        default_factory=list,
        description="baselines `burnqed iterate` evaluates after the iterations (burnqed.iteration.baselines)",
    )
    baseline_reference_size: int = Field(
        default=0, ge=0, description="reference baseline: statements whose reference proofs it trains on (0 = all)"
    )
    baseline_temperature: float | None = Field(
        default=None, gt=0, description="the reference baselines' sampling temperature (tuned on the tuning split); "
        "None = policy.temperature"
    )
    baseline_num_candidates: int | None = Field(
        default=None, ge=1, description="the reference baselines' tactics per state (tuned on the tuning split); "
        "None = the held-out evaluation's"
    )
    head_controls: list[Literal["connectives", "depth_bonus"]] = Field(
        default_factory=list,
        description="non-learned priorities evaluated beside the head on the last iteration's held-out set "
        "(eval_results/iter_N_control_<name>.json; burnqed.iteration.controls)",
    )


    @property
    def search_first(self) -> bool:
        """Whether iteration 0 searches with the base model and the proofs found are the supervision."""
        return self.start == "search" or (self.start is None and self.theorems is not None)

    @property
    def held_out_set(self) -> str:
        """The held-out set evaluated: eval_set, or its tuning split with ``eval_split = "tune"``."""
        if self.eval_split == "test":
            return self.eval_set
        from burnqed.data.sets import TUNE_SETS

        return TUNE_SETS[self.eval_set]

    @model_validator(mode="after")
    def _tune_split_exists(self) -> IterationConfig:
        from burnqed.data.sets import TUNE_SETS

        if self.eval_split == "tune" and self.eval_set not in TUNE_SETS:
            raise ValueError(f"iteration.eval_split = 'tune': {self.eval_set!r} has no tuning split "
                             f"(known: {', '.join(f'{k} → {v}' for k, v in TUNE_SETS.items())})")
        return self

    @model_validator(mode="after")
    def _own_theorems_are_the_sets(self) -> IterationConfig:
        if self.theorems is not None and (self.curriculum or self.fresh_train_set):
            raise ValueError("iteration.theorems gives the training set: turn off iteration.curriculum and fresh_train_set")
        if self.search_first and self.curriculum:
            raise ValueError("iteration.start = 'search' does not combine with iteration.curriculum (its seed is the start)")
        return self

    @model_validator(mode="after")
    def _depth_world_is_a_curriculum(self) -> IterationConfig:
        if self.world == "depth" and not self.curriculum:
            raise ValueError("iteration.world = 'depth' is the curriculum's pool: set iteration.curriculum = true")
        return self

    @model_validator(mode="after")
    def _expert_rules_run_locally(self) -> IterationConfig:
        if self.expert_rules and self.cluster:
            raise ValueError("iteration.expert_rules widens the local search only: turn off iteration.cluster with it")
        return self


class IterationRunConfig(BaseModel):
    """What an expert-iteration run reads: its own section and those of the floors below it.

    The layers above extend this model with their sections (tools, coordinator) and the
    composed ``burnqed.config.BurnqedConfig`` is the top one, so a BurnqedConfig is an
    IterationRunConfig and this layer never imports the composed config.
    """

    model_config = ConfigDict(extra="forbid")

    lean: LeanConfig = Field(default_factory=LeanConfig)
    policy: PolicyConfig = Field(default_factory=PolicyConfig)
    ebm: EBMConfig = Field(default_factory=EBMConfig)
    search: SearchConfig = Field(default_factory=SearchConfig)
    iteration: IterationConfig = Field(default_factory=IterationConfig)
    data: DataConfig = Field(default_factory=DataConfig)
    blueprint: BlueprintConfig = Field(default_factory=BlueprintConfig)
    cluster: ClusterConfig = Field(default_factory=ClusterConfig)
    paths: PathsConfig = Field(default_factory=PathsConfig)


def iteration_search_config(config: IterationRunConfig) -> SearchConfig:
    """The search config with the iteration's budgets (training search, held-out evaluation, baselines alike)."""
    it = config.iteration
    updates: dict[str, object] = {}
    if it.max_nodes is not None:
        updates["max_nodes"] = it.max_nodes
    if it.num_candidates is not None:
        updates["num_candidates"] = it.num_candidates
    if it.time_limit_s is not None:
        updates["time_limit_s"] = it.time_limit_s
    # a search holds its worker while the replay gate opens a second handle: with every
    # worker held by a search, the gate would wait for a worker that never comes free
    updates["concurrency"] = min(config.search.concurrency, max(1, config.lean.num_workers - 1))
    return config.search.model_copy(update=updates)


def evaluation_search_config(config: IterationRunConfig) -> SearchConfig:
    """The held-out evaluation's search config (baselines too): the iteration's, at ``eval_max_nodes`` /
    ``eval_num_candidates`` where set, so that every iteration and baseline is compared at one budget."""
    it = config.iteration
    updates: dict[str, object] = {}
    if it.eval_max_nodes is not None:
        updates["max_nodes"] = it.eval_max_nodes
    if it.eval_num_candidates is not None:
        updates["num_candidates"] = it.eval_num_candidates
    return iteration_search_config(config).model_copy(update=updates)


def pool_seed(config: IterationRunConfig) -> int:
    """The curriculum pool's generator seed: data.train_seed, offset by iteration.seed with seed_scope 'all'."""
    it = config.iteration
    return config.data.train_seed + (it.seed if it.seed_scope == "all" else 0)


def seeded_policy(config: IterationRunConfig) -> PolicyConfig:
    """The policy config a run samples with: policy.seed offset by iteration.seed with seed_scope 'all'."""
    it, policy = config.iteration, config.policy
    if it.seed_scope != "all" or policy.seed is None or it.seed == 0:
        return policy
    return policy.model_copy(update={"seed": policy.seed + it.seed})


def matched_nodes(config: IterationRunConfig) -> int:
    """The compute-matched baseline's node budget: the held-out budget times the iterations that made the
    last policy (k iterations, k held-out-sized searches' worth of nodes per statement)."""
    return evaluation_search_config(config).max_nodes * config.iteration.iterations
