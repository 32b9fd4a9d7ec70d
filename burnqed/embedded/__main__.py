"""Entry point: ``python -m burnqed.embedded`` runs the JSON-lines REPL."""

from __future__ import annotations

from burnqed.embedded.repl.server import main

__all__: list[str] = []

if __name__ == "__main__":
    from burnqed.collector import process_exit

    raise SystemExit(process_exit(main()))
