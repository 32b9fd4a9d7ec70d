"""The embedded REPL's wire, byte for byte: a fixed request sequence through the real child process.

``golden/requests.txt`` holds one request line each (both request forms, every command the
checker answers, the REPL's error answers, malformed lines); ``golden/answers.txt`` is what the
child printed for them, recorded from main at b29ddea (before the checker's API took protocol
models): ``ready.``, then one answer line per request. The child is started with the argv the
pool builds (burnqed.lean.launch.build_launch, trampoline included). Regenerate only for an
intended wire change: ``python tests/embedded/test_wire_golden.py > tests/embedded/golden/answers.txt``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from burnqed.lean.config import LeanConfig
from burnqed.lean.launch import build_launch

GOLDEN = Path(__file__).parent / "golden"


def run_child() -> str:
    """Everything the child wrote to stdout for the request file, then an empty line."""
    argv = build_launch(LeanConfig(backend="embedded")).argv
    requests = (GOLDEN / "requests.txt").read_text(encoding="utf-8")
    out = subprocess.run(
        argv,
        input=(requests + "\n").encode("utf-8"),
        capture_output=True,
        timeout=300,  # a bound on a hung child, not a speed assertion
        check=True,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    return out.stdout.decode("utf-8")


def test_embedded_repl_answers_the_golden_sequence_byte_for_byte() -> None:
    requests = (GOLDEN / "requests.txt").read_text(encoding="utf-8").splitlines()
    golden = (GOLDEN / "answers.txt").read_text(encoding="utf-8")
    got = run_child()
    assert len(got.splitlines()) == len(requests) + 1  # ready. and one answer per request
    for i, (want, have) in enumerate(zip(golden.splitlines(), got.splitlines(), strict=True)):
        assert have == want, f"line {i} (request {requests[i - 1][:120] if i else 'ready.'!r})"
    assert got == golden


if __name__ == "__main__":
    sys.stdout.write(run_child())
