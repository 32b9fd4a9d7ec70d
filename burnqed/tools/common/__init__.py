"""The common wing of burnqed.tools: what every MCP server shares (serving, errors, config, the call log, jobs, the tactic policy, the held-out fence, HTTP)."""

__all__: list[str] = []
