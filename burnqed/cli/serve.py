"""``burnqed serve lean|search|stats|blueprint``: MCP over stdio, or streamable HTTP behind
bearer tokens."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from burnqed.config import BurnqedConfig, load_config
from burnqed.env import env
from burnqed.tools.common.run_files import TOOL_CALLS_NAME
from burnqed.tools.servers import SERVERS, build_named_server

__all__ = ["module_server", "register"]


def _placed(server: str, config: BurnqedConfig) -> BurnqedConfig:
    """The config with the backend the place defaults to (burnqed.lean.launch.backend_by_place),
    said on stderr at start-up with where the server reads its run (a client's log shows which
    checker answers, and a run directory that is missing or empty before any tool says nothing)."""
    say = lambda text: print(f"burnqed-{server}: {text}", file=sys.stderr, flush=True)  # noqa: E731
    if server in ("stats", "search"):
        from burnqed.tools.stats.service import run_dir_note

        if run_dir_note(config.paths.run_dir) is not None:
            state = "is empty" if config.paths.run_dir.is_dir() else "does not exist"
            say(f"run directory {config.paths.run_dir.resolve()} (paths.run_dir) {state}: nothing to read until a run writes there")
    if server == "blueprint" and not config.blueprint.path.exists():
        say(f"BLUEPRINT {config.blueprint.path.resolve()} (blueprint.path) does not exist: no targets until one is written")
    if server not in ("lean", "search"):
        return config
    from burnqed.lean.launch import backend_by_place

    lean, note = backend_by_place(config.lean)
    say(note)
    return config.model_copy(update={"lean": lean})


async def _serve(args: argparse.Namespace, config: BurnqedConfig) -> int:
    config = _placed(args.server, config)
    if args.transport == "stdio":
        await build_named_server(args.server, config).run_stdio_async()
        return 0
    from burnqed.tools.common.http import HttpServeError, check_auth, resolve_tokens, serve_http

    tools = config.tools
    host = args.host or tools.http_host
    port = args.port or tools.http_port
    try:
        tokens = resolve_tokens(tools, Path(args.token_file) if args.token_file else None)
        check_auth(tools, host, tokens, args.no_auth)
        server = build_named_server(args.server, config)

        def ready() -> None:
            print(f"burnqed-{args.server}: serving http://{host}:{port}/mcp"
                  + ("" if tokens else " (no token: this machine only)"), file=sys.stderr, flush=True)

        from burnqed.tools.common.serving import call_log_path

        await serve_http(server, tools, host=host, port=port, tokens=tokens, allow_no_auth=args.no_auth,
                         on_ready=ready, call_log=call_log_path(config))
    except HttpServeError as exc:
        print(f"burnqed serve: {exc}", file=sys.stderr)
        return 2
    return 0


def register(sub: argparse._SubParsersAction, parent: argparse.ArgumentParser) -> None:
    """Add this package's sub-commands to the burnqed parser."""
    serve = sub.add_parser(
        "serve",
        parents=[parent],
        help="run an MCP server on stdio or streamable HTTP (Claude Code / Desktop, mcp dev, the coordinator)",
        description="Run one of burnqed's MCP servers over stdio (default) or streamable HTTP at "
        "http://HOST:PORT/mcp, where every request needs Authorization: Bearer <token> (token from "
        f"$BURNQED_MCP_TOKEN or --token-file). Tool calls are logged to <paths.logs_dir>/{TOOL_CALLS_NAME}.",
    )
    serve.add_argument("server", choices=sorted(SERVERS), help="which server")
    serve.add_argument(
        "--show-held-out",
        action="store_true",
        default=None,
        help="stats server: expose held-out evaluation results (never for the coordinator)",
    )
    serve.add_argument("--transport", choices=["stdio", "streamable-http"], default="stdio")
    serve.add_argument("--host", help="HTTP: address to bind (default tools.http_host, 127.0.0.1)")
    serve.add_argument("--port", type=int, help="HTTP: port (default tools.http_port, 8765)")
    serve.add_argument(
        "--token-file", help="HTTP: bearer tokens, one per line as TOKEN or NAME TOKEN (else $BURNQED_MCP_TOKEN)"
    )
    serve.add_argument(
        "--no-auth", action="store_true",
        help="HTTP: serve without a token; allowed only on a loopback address",
    )
    serve.set_defaults(handler=_serve, config_overrides=lambda a: {"tools.show_held_out": a.show_held_out})


def module_server(build: Callable[[BurnqedConfig], Any]) -> Callable[[str], Any]:
    """A module ``__getattr__`` that builds the module's ``mcp`` server on first access.

    ``mcp dev`` / ``mcp run`` look for a module-level ``mcp`` object; building it lazily
    keeps importing the module free of work. The config is $BURNQED_CONFIG if set, else
    ./burnqed.toml if present, else the defaults.
    """
    cache: dict[str, Any] = {}

    def __getattr__(name: str) -> Any:
        if name != "mcp":
            raise AttributeError(name)
        if "mcp" not in cache:
            cache["mcp"] = build(load_config(env("BURNQED_CONFIG")))
        return cache["mcp"]

    return __getattr__
