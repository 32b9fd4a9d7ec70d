"""burnqed.tools: the logic behind the MCP servers (handle leases, jobs, tool-call log)."""
