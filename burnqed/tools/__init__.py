"""burnqed.tools: the MCP servers, one wing per server and a common wing.

``servers`` names the four servers and builds one from a config. Each wing holds a server
(``server``: its factory and tool declarations; servers/ re-exports them), its logic and
its models:

- ``lean/``: ``server``, ``tools`` (leased proof handles under the tactic policy, and the
  output models), ``leases`` (proof handles as leases with idle expiry), ``fairness`` (each
  token's fair share of the Lean workers);
- ``search/``: ``server``, ``tools`` (search jobs, generation, scoring; a job's statements
  go through ``burnqed.runs.run_statements``), ``models`` (its typed results), ``host`` (a
  task that owns context managers opened on demand);
- ``stats/``: ``server``, ``service`` (the run's statistics and the tool-call statistics);
- ``blueprint/``: ``server``, ``tools`` (the BLUEPRINT.md targets), ``proof_gate`` (the
  verification gate before a target counts as done);
- ``common/``: ``serving`` (what every server shares: the Toolset, construction, results),
  ``errors`` (the tool errors and the one error contract), ``config``, ``calllog``
  (logs/tool_calls.jsonl), ``run_files`` (the tools' files in a run directory: jobs/ and the
  tool-call log), ``jobs`` (background jobs recorded on disk), ``policy`` (the
  tactic policy), ``held_out`` (what an agent may never search or read), ``http`` (serving
  over streamable HTTP behind bearer tokens), ``sessions`` (HTTP session caps that reclaim
  abandoned sessions, and each token's share of requests in flight).

A wing imports the common wing and nothing of another wing. ``burnqed serve`` is
``burnqed/cli/serve.py``, ``burnqed bench mcp`` ``burnqed/bench/mcp.py``. Importing this
package (or a wing) imports nothing heavy.
"""

from __future__ import annotations

from burnqed.lazy import lazy_exports

# burnqed.config imports burnqed.tools.common.config, which runs this file: importing the MCP SDK
# here would cost every burnqed command seconds, so each public name (listed once, under
# the module that defines it) loads on first use.
_EXPORTS: dict[str, tuple[str, ...]] = {
    "burnqed.tools.common.calllog": ("ToolCallLog", "ToolCallRecord", "argument_digest"),
    "burnqed.tools.common.config": ("ToolsConfig", "ToolsRunConfig"),
    "burnqed.tools.common.errors": (
        "BlueprintToolError",
        "InvalidInput",
        "JobError",
        "JobNotFinished",
        "LeanUnavailable",
        "LeaseError",
        "LeaseExpired",
        "LeaseLost",
        "PolicyViolation",
        "ServiceUnavailable",
        "StatsUnavailable",
        "TooManyJobs",
        "TooManyLeases",
        "ToolsError",
        "UnknownJob",
        "UnknownLease",
    ),
    "burnqed.tools.common.jobs": (
        "JobContext", "JobManager", "JobOutcome", "JobProgress", "JobRecord", "JobStatus",
    ),
    "burnqed.tools.lean.leases": ("HandleRegistry", "Lease"),
    "burnqed.tools.common.policy": ("PolicyVerdict", "TacticPolicy"),
}

__all__ = sorted(name for names in _EXPORTS.values() for name in names)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
