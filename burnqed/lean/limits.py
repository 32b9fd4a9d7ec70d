"""Resource limits for Lean children: a tiny exec trampoline.

``anyio.open_process`` has no ``preexec_fn``, so a child is started as::

    python -I -S /path/to/limits.py --as-mb N [--cpu-s N] --parent PID -- argv...

which sets RLIMIT_AS (and RLIMIT_CPU), asks the kernel to SIGKILL it when its parent
dies (``prctl(PR_SET_PDEATHSIG)``, kept across exec), and then ``execvp``s the real
program, so the limited process keeps the trampoline's pid. The script is run by path
with ``-I -S`` and imports only os, sys, resource and ctypes: it adds the start-up of a
bare Python (~10-20 ms) per child.
Own process group/session comes from ``start_new_session=True`` at spawn time.
"""

from __future__ import annotations

import os
import sys

# no typing/collections imports at run time: this file's start-up cost is paid per child
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["TRAMPOLINE_PATH", "limited_argv", "main"]

TRAMPOLINE_PATH = os.path.abspath(__file__)

_PR_SET_PDEATHSIG = 1
_SIGKILL = 9


def limited_argv(
    argv: Sequence[str],
    *,
    memory_limit_mb: int | None,
    cpu_limit_s: int | None,
    python: str | None = None,
) -> list[str]:
    """``argv`` wrapped in the trampoline with the given limits (parent = this process)."""
    wrapped = [python or sys.executable, "-I", "-S", TRAMPOLINE_PATH]
    if memory_limit_mb is not None:
        wrapped += ["--as-mb", str(memory_limit_mb)]
    if cpu_limit_s is not None:
        wrapped += ["--cpu-s", str(cpu_limit_s)]
    wrapped += ["--parent", str(os.getpid()), "--", *argv]
    return wrapped


def _set_pdeathsig() -> None:
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_PDEATHSIG, _SIGKILL, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")


def main(args: Sequence[str]) -> int:
    """Apply the limits named in ``args`` and exec the command after ``--``."""
    import resource

    args = list(args)
    if "--" not in args:
        sys.stderr.write("limits: usage: limits.py [--as-mb N] [--cpu-s N] [--parent PID] -- argv...\n")
        return 2
    split = args.index("--")
    opts, command = args[:split], args[split + 1 :]
    if not command:
        sys.stderr.write("limits: no command after --\n")
        return 2
    values = dict(zip(opts[::2], opts[1::2], strict=False))
    if "--as-mb" in values:
        limit = int(values["--as-mb"]) * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    if "--cpu-s" in values:
        cpu = int(values["--cpu-s"])
        # the soft limit sends SIGXCPU first; the hard limit one second later is SIGKILL
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    if sys.platform.startswith("linux"):
        _set_pdeathsig()
    # the parent may have died before prctl took effect: then nobody would kill us
    if "--parent" in values and os.getppid() != int(values["--parent"]):
        return 1
    try:
        os.execvp(command[0], command)
    except OSError as exc:
        sys.stderr.write(f"limits: cannot execute {command[0]!r}: {exc}\n")
        return 127
    return 0  # pragma: no cover - execvp does not return


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
