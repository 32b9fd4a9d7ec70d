"""Run the coordinator daemon in the foreground: ``python -m coordinator.daemon [--run-dir R]``.

Thin entry point over burnqed.coordination.daemon (same as ``burnqed coordinator run``).
"""

from __future__ import annotations

import sys

from burnqed.cli import main
from burnqed.collector import process_exit

if __name__ == "__main__":
    raise SystemExit(process_exit(main(["coordinator", "run", *sys.argv[1:]])))
