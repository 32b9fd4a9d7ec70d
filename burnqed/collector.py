"""The cyclic garbage collector around a process's heavy moments: paused while a large library
is imported or a model loaded (``paused``), and kept off the heap at exit (``process_exit``).

Both pay off where a process builds a large heap at once (torch and transformers, the MCP SDK's
models): the collector otherwise walks that heap again and again while it grows, and once more
when the interpreter tears it down.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["paused", "process_exit"]


@contextmanager
def paused() -> Iterator[None]:
    """The collector off for the block (an import or a model load), back on as it was after.

    Measured: importing torch, transformers and the MCP SDK takes about 1 s less CPU. Nothing
    is kept for good: cyclic garbage the block leaves is found by the first collection after it.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


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
