"""The JSON-lines loop: ``ready.``, then one compact JSON answer per request line.

This is the one place where the embedded checker meets JSON: a line becomes a request model
(repl/request.py), ``Checker.run`` answers it with an answer model, and the model is written as
compact key-sorted JSON (``dump_json`` of its ``wire()``). An empty line or EOF ends the loop. Answers go to stdout (flushed per line); nothing else
is ever written there. Logging goes to stderr. With ``--simulated_latency_ms=N`` (a benchmark
knob, off by default) each ``goal.tactic`` answer is held until N ms after its request was read.
"""

from __future__ import annotations

import logging
import sys
import time
from typing import TextIO

from burnqed.embedded.repl.checker import Checker
from burnqed.embedded.config import EmbeddedConfig
from burnqed.embedded.repl.request import decode_request
from burnqed.lean.protocol import GoalTactic, ReplErrorAnswer, Request, dump_json

__all__ = ["answer_line", "main", "serve"]

log = logging.getLogger("burnqed.embedded")


def _answer(checker: Checker, request: Request | ReplErrorAnswer) -> str:
    answer = request if isinstance(request, ReplErrorAnswer) else checker.run(request)
    return dump_json(answer.wire())


def answer_line(checker: Checker, line: str) -> str:
    """One request line in, the compact key-sorted JSON answer line out (no newline): what
    the loop writes for it, without the loop's guard against a checker bug."""
    return _answer(checker, decode_request(line))


def serve(checker: Checker, stdin: TextIO, stdout: TextIO, latency_s: float = 0.0) -> int:
    """Answer requests until an empty line or EOF; returns the exit code.

    ``latency_s`` > 0 holds each goal.tactic answer until that long after its line was read."""
    stdout.write("ready.\n")
    stdout.flush()
    for line in stdin:
        if not line.strip():
            break
        read_at = time.monotonic()
        request: Request | ReplErrorAnswer | None = None
        try:
            request = decode_request(line)
            answer = _answer(checker, request)
            answer.encode("utf-8")  # what cannot be written must not end the loop
        except (
            Exception
        ) as exc:  # a checker bug must not kill the REPL or desynchronise the pipe
            log.exception("internal error")
            internal = ReplErrorAnswer(
                error="internal", desc=f"embedded checker error: {type(exc).__name__}: {exc}"
            )
            answer = dump_json(internal.wire())
        if latency_s > 0 and isinstance(request, GoalTactic):
            # sleep, not spin: a real Lean spends this time on its own node's CPU, not ours
            time.sleep(max(0.0, read_at + latency_s - time.monotonic()))
        stdout.write(answer + "\n")
        stdout.flush()
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m burnqed.embedded [MODULE ...] [--OPTION=VALUE ...]``."""
    args = list(sys.argv[1:] if argv is None else argv)
    if "--version" in args:
        sys.stdout.write("burnqed-embedded 0.1.0 (Pantograph protocol 0.3.4)\n")
        return 0
    config, _lean_args = EmbeddedConfig.from_argv(
        args
    )  # modules and Lean options are accepted and ignored
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 4 * config.max_depth + 1000))
    stdin = open(sys.stdin.fileno(), encoding="utf-8", errors="replace", closefd=False)  # noqa: SIM115
    stdout = open(sys.stdout.fileno(), "w", encoding="utf-8", closefd=False)  # noqa: SIM115
    return serve(Checker(config), stdin, stdout, config.simulated_latency_ms / 1000)
