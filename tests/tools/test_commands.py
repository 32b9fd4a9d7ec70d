"""``burnqed serve``: the four servers are registered and --show-held-out maps to the config."""

from __future__ import annotations

from burnqed.cli import build_parser
from burnqed.config import load_config
from burnqed.tools.servers import SERVERS, build_named_server


def test_serve_flags_map_to_config_keys() -> None:
    args = build_parser().parse_args(["serve", "stats", "--show-held-out"])
    assert args.server == "stats"
    assert args.config_overrides(args) == {"tools.show_held_out": True}
    plain = build_parser().parse_args(["serve", "lean"])
    assert plain.config_overrides(plain) == {"tools.show_held_out": None}


def test_every_named_server_builds_without_starting_anything() -> None:
    config = load_config(None, {})
    for name in SERVERS:
        server = build_named_server(name, config)
        assert server.name == f"burnqed-{name}"
