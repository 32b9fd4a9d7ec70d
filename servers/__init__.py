"""burnqed's MCP servers: thin entry points; the tools are declared in burnqed.tools.*_server.

Each module exposes ``build_server(config)`` and a lazily built module-level ``mcp`` for
``mcp dev servers/<name>.py`` and ``mcp run servers/<name>.py``.
"""

__all__: list[str] = []
