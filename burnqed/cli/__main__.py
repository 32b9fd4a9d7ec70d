"""``python -m burnqed.cli``: the burnqed command."""

from burnqed.cli import main

raise SystemExit(main())
