"""process_exit: a process's last step, so that the interpreter's teardown does not walk the
whole heap once more (seconds with torch loaded)."""

from __future__ import annotations

import gc

__all__ = ["process_exit"]


def process_exit(code: int) -> int:
    """``code``, after moving every live object to the collector's permanent generation.

    Call it in a process's entry point, after the work, never in a library call: at exit the
    interpreter's collector then skips the heap it would otherwise walk once more (measured:
    an MCP server stops 0.6 s sooner, a process with torch and transformers 1.1-1.4 s), while
    atexit handlers, logging's flush and reference-counted finalisers still run. Every burnqed
    file is written and closed inside the work (with-blocks, atomic writes), not left to a
    collector at exit.
    """
    gc.freeze()
    return code
