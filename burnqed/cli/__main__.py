"""``python -m burnqed.cli``: the burnqed command."""

from burnqed.cli import run

raise SystemExit(run())
