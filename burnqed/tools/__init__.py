"""burnqed.tools: the logic behind the MCP servers.

Modules: ``servers`` (the four servers by name) and their factories ``lean_server``,
``search_server``, ``stats_server``, ``blueprint_server`` (servers/ re-exports them);
``lean_tools``, ``search_tools``, ``stats``, ``blueprint_tools`` (what each server's tools
do; ``search_models`` the search server's typed results; a search job's statements go
through ``burnqed.runs.run_statements``); ``serving`` (what every server shares), ``http`` (serving
over streamable HTTP behind bearer tokens), ``sessions`` (HTTP session caps that reclaim
abandoned sessions, and each token's share of requests in flight), ``fairness`` (each
token's fair share of the Lean workers), ``host`` (a task that owns context managers
opened on demand); ``leases`` (proof handles as leases with idle expiry), ``policy`` (the
tactic policy), ``held_out`` (what an agent may never search or read), ``proof_gate`` (the
verification gate before a target counts as done), ``jobs`` (background jobs recorded on
disk), ``calllog`` (logs/tool_calls.jsonl), ``errors`` (the tool errors) and ``config``.
``burnqed serve`` is ``burnqed/cli/serve.py``, ``burnqed bench mcp`` ``burnqed/bench/mcp.py``.
Importing this package imports nothing heavy.
"""

from __future__ import annotations

from burnqed.lazy import lazy_exports

# burnqed.config imports burnqed.tools.config, which runs this file: importing the MCP SDK
# here would cost every burnqed command seconds, so each public name (listed once, under
# the module that defines it) loads on first use.
_EXPORTS: dict[str, tuple[str, ...]] = {
    "burnqed.tools.calllog": ("ToolCallLog", "ToolCallRecord", "argument_digest"),
    "burnqed.tools.config": ("ToolsConfig", "ToolsRunConfig"),
    "burnqed.tools.errors": (
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
    "burnqed.tools.jobs": ("JobContext", "JobManager", "JobOutcome", "JobProgress", "JobRecord", "JobStatus"),
    "burnqed.tools.leases": ("HandleRegistry", "Lease"),
    "burnqed.tools.policy": ("PolicyVerdict", "TacticPolicy"),
}

__all__ = sorted(name for names in _EXPORTS.values() for name in names)

__getattr__, __dir__ = lazy_exports(__name__, {name: module for module, names in _EXPORTS.items() for name in names})
