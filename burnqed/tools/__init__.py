"""burnqed.tools: the logic behind the MCP servers.

Modules: ``leases`` (proof handles as leases with idle expiry), ``policy`` (the tactic
policy), ``jobs`` (background jobs recorded on disk), ``calllog`` (logs/tool_calls.jsonl),
``lean_tools`` / ``search_tools`` / ``stats`` / ``blueprint_tools`` (what each server's
tools do), ``*_server`` (the ``build_server(config)`` factories; servers/ re-exports
them), ``serving`` (what every server shares), ``commands`` (``burnqed serve``) and
``bench`` (``burnqed bench mcp``). Importing this package imports nothing heavy.
"""

from __future__ import annotations

from burnqed.lazy import lazy_exports

# burnqed.config imports burnqed.tools.config, which runs this file: importing the MCP SDK
# here would cost every burnqed command seconds, so the public names load on first use.
_EXPORTS: dict[str, str] = {
    "ToolCallLog": "calllog",
    "ToolCallRecord": "calllog",
    "argument_digest": "calllog",
    "ToolsConfig": "config",
    "ToolsRunConfig": "config",
    "BlueprintToolError": "errors",
    "InvalidInput": "errors",
    "JobError": "errors",
    "JobNotFinished": "errors",
    "LeanUnavailable": "errors",
    "LeaseError": "errors",
    "LeaseExpired": "errors",
    "LeaseLost": "errors",
    "PolicyViolation": "errors",
    "ServiceUnavailable": "errors",
    "StatsUnavailable": "errors",
    "TooManyJobs": "errors",
    "TooManyLeases": "errors",
    "ToolsError": "errors",
    "UnknownJob": "errors",
    "UnknownLease": "errors",
    "JobContext": "jobs",
    "JobManager": "jobs",
    "JobOutcome": "jobs",
    "JobProgress": "jobs",
    "JobRecord": "jobs",
    "JobStatus": "jobs",
    "HandleRegistry": "leases",
    "Lease": "leases",
    "PolicyVerdict": "policy",
    "TacticPolicy": "policy",
}

__all__ = [
    "BlueprintToolError",
    "HandleRegistry",
    "InvalidInput",
    "JobContext",
    "JobError",
    "JobManager",
    "JobNotFinished",
    "JobOutcome",
    "JobProgress",
    "JobRecord",
    "JobStatus",
    "LeanUnavailable",
    "Lease",
    "LeaseError",
    "LeaseExpired",
    "LeaseLost",
    "PolicyVerdict",
    "PolicyViolation",
    "ServiceUnavailable",
    "StatsUnavailable",
    "TacticPolicy",
    "TooManyJobs",
    "TooManyLeases",
    "ToolCallLog",
    "ToolCallRecord",
    "ToolsConfig",
    "ToolsRunConfig",
    "ToolsError",
    "UnknownJob",
    "UnknownLease",
    "argument_digest",
]


__getattr__, __dir__ = lazy_exports(__name__, {name: "burnqed.tools." + module for name, module in _EXPORTS.items()})
