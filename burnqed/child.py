"""ChildProcess: one child in a session of its own, spoken to one line at a time.

The life cycle both process owners share (the Lean worker, ``burnqed.lean.worker``, and the
policy model's process, ``burnqed.policy.process_runner``): spawn with ``start_new_session``
(so the child's pid is its process group, and a kill reaches whatever it started), stdin and
stdout as pipes, stderr into an unnamed temporary file whose tail survives the child's death
for error messages, and a kill that SIGKILLs the group, reaps it and closes everything. The
owners keep their protocols, their time-outs and their error classes; this module raises only
what the pipes raise (``PIPE_ERRORS``, ``anyio.DelimiterNotFound``) and ``OSError`` at spawn.
"""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from typing import IO

import anyio
from anyio.abc import Process
from anyio.streams.buffered import BufferedByteReceiveStream

__all__ = ["PIPE_ERRORS", "ChildProcess", "resident_mb"]

PIPE_ERRORS: tuple[type[BaseException], ...] = (
    anyio.BrokenResourceError,
    anyio.ClosedResourceError,
    anyio.EndOfStream,
    anyio.IncompleteRead,
    BrokenPipeError,
    ConnectionResetError,
)
"""What writing to or reading from a child that has gone raises."""

_REAP_TIMEOUT_S = 5.0


def resident_mb(pid: int) -> float | None:
    """The process's own resident memory in MB (RssAnon + RssShmem from /proc), or None if unreadable."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as fh:
            fields = dict(line.split(":", 1) for line in fh if ":" in line)
    except OSError:
        return None
    try:
        kb = sum(int(fields[key].split()[0]) for key in ("RssAnon", "RssShmem") if key in fields)
    except (ValueError, IndexError):
        return None
    return kb / 1024


class ChildProcess:
    """One child process: ``spawn()``, then ``send``/``read_line``, then ``stop`` or ``kill`` (idempotent)."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        max_line_bytes: int,
        stderr_tail_bytes: int,
    ) -> None:
        """``env`` None inherits this process's environment, ``cwd`` None its working directory;
        ``stderr_tail_bytes`` bounds ``stderr_tail``."""
        self.argv = list(argv)
        self.env = dict(env) if env is not None else None
        self.cwd = cwd
        self.max_line_bytes = max_line_bytes
        self.stderr_tail_bytes = stderr_tail_bytes
        self._process: Process | None = None
        self._stdout: BufferedByteReceiveStream | None = None
        self._stderr: IO[bytes] | None = None
        self._stderr_at_death = ""
        self._killed = False

    @property
    def spawned(self) -> bool:
        """``spawn()`` succeeded (the child may have exited since)."""
        return self._process is not None

    @property
    def pid(self) -> int | None:
        """The child's pid (also its process group id), once spawned."""
        return self._process.pid if self._process is not None else None

    @property
    def returncode(self) -> int | None:
        """The child's exit status once it has exited and been reaped, else None."""
        return self._process.returncode if self._process is not None else None

    @property
    def running(self) -> bool:
        """Spawned and not yet exited."""
        return self._process is not None and self._process.returncode is None

    def stderr_tail(self) -> str:
        """The last ``stderr_tail_bytes`` the child wrote to stderr, decoded (kept after its death)."""
        if self._stderr is None or self._stderr.closed:
            return self._stderr_at_death
        try:
            size = self._stderr.seek(0, os.SEEK_END)
            self._stderr.seek(max(0, size - self.stderr_tail_bytes))
            return self._stderr.read().decode("utf-8", "replace")
        except (OSError, ValueError):
            return ""

    async def spawn(self) -> None:
        """Start the child in a new session with piped stdin/stdout; raises OSError if it cannot start."""
        if self._process is not None:
            raise RuntimeError("a ChildProcess spawns once")
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the child; closed in kill
        try:
            # shielded: a cancellation half-way through the spawn would orphan the child
            with anyio.CancelScope(shield=True):
                process = await anyio.open_process(
                    self.argv,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=self._stderr,
                    env=self.env,
                    cwd=self.cwd,
                    start_new_session=True,
                )
        except OSError:
            self._stderr.close()
            raise
        self._process = process
        if process.stdin is None or process.stdout is None:
            await self.kill()
            raise OSError("the child started without its stdin/stdout pipes")
        self._stdout = BufferedByteReceiveStream(process.stdout)

    async def send(self, line: bytes) -> None:
        """Write ``line`` to the child's stdin (raises one of PIPE_ERRORS if it has gone)."""
        process = self._process
        if process is None or process.stdin is None:
            raise anyio.ClosedResourceError
        await process.stdin.send(line)

    async def read_line(self) -> bytes:
        """One line from the child's stdout, without its newline.

        Raises one of PIPE_ERRORS at EOF and anyio.DelimiterNotFound past max_line_bytes.
        """
        if self._stdout is None:
            raise anyio.ClosedResourceError
        return await self._stdout.receive_until(b"\n", self.max_line_bytes)

    async def stop(self, grace_s: float, *, goodbye: bytes | None = None) -> None:
        """Ask the child to exit (write ``goodbye``, or close its stdin when None), wait up to
        ``grace_s``, then ``kill()``; shielded from cancellation."""
        process = self._process
        if process is None:
            return
        with anyio.CancelScope(shield=True):
            if process.returncode is None:
                with anyio.move_on_after(grace_s):
                    try:
                        if goodbye is not None:
                            await self.send(goodbye)
                        elif process.stdin is not None:
                            await process.stdin.aclose()
                    except (*PIPE_ERRORS, OSError):
                        pass  # already gone: the kill below reaps it
                    await process.wait()
            await self.kill()

    def signal_group(self) -> None:
        """SIGKILL the child's process group now, without waiting (a no-op once it is gone)."""
        if self._process is None or self._killed:
            return
        try:
            # the group id stays reserved while any member lives, so this cannot reach a
            # stranger; it also ends what the child started when the child itself has exited
            os.killpg(self._process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    async def kill(self) -> None:
        """SIGKILL the process group, reap the child, close the pipes and keep the stderr tail (idempotent)."""
        process = self._process
        if process is None or self._killed:
            return
        with anyio.CancelScope(shield=True):
            self.signal_group()
            self._killed = True  # reaped below: the pid may be a stranger's from now on
            with anyio.move_on_after(_REAP_TIMEOUT_S):
                await process.aclose()
            if self._stderr is not None and not self._stderr.closed:
                self._stderr_at_death = self.stderr_tail()
                self._stderr.close()
