"""Configuration of the MCP tool layer (handle leases, jobs, tactic policy, call log)."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from burnqed.iteration.config import IterationRunConfig

__all__ = ["DEFAULT_DENIED_PATTERNS", "ToolsConfig", "ToolsRunConfig"]

# Lean text that reaches outside the proof: commands, meta-programming, IO, unsafe code,
# options and imports. Each entry is a regex searched in the tactic or statement text. A
# statement in theorem form is one declaration by its form: TacticPolicy.check_statement
# parses it first and applies `declaration` (and `sorry`) to its name and signature only, so
# the rule refuses a second declaration there, not the one the statement is.
DEFAULT_DENIED_PATTERNS: dict[str, str] = {
    "#command": r"#[A-Za-z_]",  # #eval, #print, #exit, #check …
    "run_cmd": r"\brun_cmd\b",
    "run_tac": r"\brun_tac\b",
    "run_elab": r"\brun_elab\b",
    "run_meta": r"\brun_meta\b",
    "IO": r"\bIO\b",
    "unsafe": r"\bunsafe\b",
    "open ... in": r"\bopen\b[^\n]*\bin\b",
    "set_option": r"\bset_option\b",
    "import": r"\bimport\b",
    "macro": r"\bmacro(_rules)?\b",
    "elab": r"\belab(_rules)?\b",
    "syntax": r"\bsyntax\b",
    "axiom": r"\baxiom\b",
    "implemented_by": r"\bimplemented_by\b",
    "extern": r"\bextern\b",
    "native_decide": r"\bnative_decide\b",
    "ofReduceBool": r"\bofReduceBool\b",
    "declaration": r"(^|\n)\s*(theorem|lemma|def|instance|example|abbrev|opaque|namespace|section|end|attribute)\b",
}


class ToolsConfig(BaseModel):
    """Limits and policies of the tools the MCP servers expose."""

    model_config = ConfigDict(extra="forbid")

    # handle leases (lean_pool server)
    handle_idle_timeout_s: float = Field(default=300.0, gt=0, description="a proof handle idle this long expires")
    max_live_handles: int = Field(default=32, ge=1, description="cap on open proof handles per server")
    handle_warm_s: float = Field(
        default=2.0, ge=0, description="a proof handle keeps its last worker this long between calls (if one is idle)"
    )
    lease_sweep_interval_s: float = Field(default=5.0, gt=0, description="how often expired handles are closed")
    max_handles_per_client: int = Field(
        default=8, ge=1, description="open proof handles one client (over HTTP: one token) may hold"
    )
    max_handle_states: int = Field(default=4096, ge=1, description="states one proof handle may hold")
    max_handle_depth: int = Field(
        default=256, ge=1, description="longest tactic path from a handle's root (bounds a cold call's replay)"
    )
    operator_clients: list[str] = Field(
        default_factory=list,
        description="HTTP token names that may act on any client's handles and jobs (others act on their own)",
    )
    expired_memory: int = Field(default=1024, ge=0, description="expired lease ids remembered (to say 'expired')")
    # tactic / statement policy
    denied_patterns: dict[str, str] = Field(
        default_factory=lambda: dict(DEFAULT_DENIED_PATTERNS),
        description="name -> regex; a tactic or statement matching one is rejected",
    )
    extra_denied_patterns: dict[str, str] = Field(default_factory=dict, description="added to denied_patterns")
    allowed_patterns: list[str] = Field(default_factory=list, description="names of denied_patterns to allow")
    allow_sorry: bool = Field(default=False, description="accept `sorry` / `admit` in tactics")
    max_tactic_chars: int = Field(default=4000, ge=1)
    max_statement_chars: int = Field(default=8000, ge=1)
    max_proof_tactics: int = Field(default=512, ge=1, description="longest tactic list verify_proof accepts")
    # jobs (search server)
    jobs_dir: Path | None = Field(default=None, description="job records; default <paths.run_dir>/jobs")
    max_running_jobs: int = Field(default=2, ge=1)
    max_wait_s: float = Field(default=5.0, ge=0, description="longest a tool call waits (job_status wait_s)")
    max_generate_n: int = Field(default=64, ge=1, description="most candidates generate_tactics returns per state")
    max_score_states: int = Field(default=256, ge=1, description="most states score_states takes in one call")
    max_statements_per_job: int = Field(default=1000, ge=1)
    max_call_s: float = Field(default=5.0, gt=0, description="generate_tactics / score_states give up after this")
    max_state_chars: int = Field(default=16000, ge=1, description="longest proof state generate_tactics / score_states take")
    allow_cluster_jobs: bool = Field(
        default=False,
        description="launch_search(cluster=true) may start or join Ray (an operator's server; never the coordinator's)",
    )
    fair_lean_calls: bool = Field(
        default=True,
        description="Lean calls of the clients (tokens) are granted the pool's workers max-min fair: a free worker "
        "goes to the waiting client with the fewest calls running, so a flooding token queues behind its own calls; "
        "false: first come, first served (each client still capped at lean.num_workers - 1)",
    )
    fair_recent_s: float = Field(
        default=2.0, ge=0,
        description="with fair_lean_calls: a client whose last Lean call ended this recently still counts as "
        "active, so the others are held to their fair share (workers // active clients) and its next call "
        "finds a worker free",
    )
    held_out_sets: list[str] = Field(
        default_factory=lambda: ["benchmark-test", "depth-test"],
        description="theorem sets launch_search refuses unless show_held_out (the coordinator must not see them); "
        "iteration.eval_set is always held out too",
    )
    ebm_checkpoint: Path | None = Field(
        default=None,
        description="energy head for score_states / use_ebm; default: latest <run_dir>/checkpoints/ebm/iter_N",
    )
    # streamable HTTP transport (burnqed serve NAME --transport streamable-http)
    http_host: str = Field(default="127.0.0.1", description="address the HTTP server binds")
    http_port: int = Field(default=8765, ge=1, le=65535)
    http_token_env: str = Field(default="BURNQED_MCP_TOKEN", description="env var holding the bearer token")
    http_token_file: Path | None = Field(default=None, description="file holding the bearer token (wins over the env var)")
    http_session_idle_timeout_s: float = Field(
        default=600.0, gt=0, description="an HTTP session with no request in flight this long is closed"
    )
    http_max_sessions: int = Field(
        default=32, ge=1, description="open HTTP sessions; at the cap the least recently used idle one is ended"
    )
    http_max_sessions_per_client: int = Field(
        default=8, ge=1,
        description="open HTTP sessions of one token; at the cap its least recently used idle one is ended "
        "(so abandoned sessions never lock the token out, and one token cannot fill the table)",
    )
    http_requests_per_client: int | None = Field(
        default=4, ge=1,
        description="HTTP requests of one token served at once; the rest wait their turn (one token's flood "
        "queues behind itself, not in front of the others); null: no cap",
    )
    # stats and logging
    show_held_out: bool = Field(
        default=False, description="expose held-out evaluation results (never to the coordinator)"
    )
    call_log: Path | None = Field(
        default=None, description="tool-call JSONL log; default <paths.logs_dir>/tool_calls.jsonl"
    )
    server_log_level: str = Field(default="WARNING", description="log level of the MCP SDK inside servers")


class ToolsRunConfig(IterationRunConfig):
    """What the MCP servers read: the tools section on top of everything an iteration reads
    (launch_search and schedule_iteration run the layers below)."""

    tools: ToolsConfig = Field(default_factory=ToolsConfig)
