"""Helpers for the embedded-checker tests: drive an in-process Checker step by step.

Tests that read answers as the JSON the pool sees send their requests through the REPL's JSON
line in process (``wire``: repl/server.answer_line, the code the child runs per line); the
others call the checker's typed API (``Checker.run`` and the per-command methods).
"""

from __future__ import annotations

import json
from typing import Any

from burnqed.embedded import Checker
from burnqed.embedded.repl.server import answer_line
from burnqed.lean.protocol import Goal, dump_json, render_goals

__all__ = ["Session", "wire"]


def wire(checker: Checker, request: dict[str, Any]) -> dict[str, Any]:
    """One request object through the REPL's JSON line; its answer as the JSON object."""
    return json.loads(answer_line(checker, dump_json(request)))


class Session:
    """A thin driver over the REPL's JSON line (``wire``) that keeps the last state id."""

    def __init__(self, checker: Checker | None = None) -> None:
        self.c = checker or Checker()
        self.sid: int | None = None
        self.last: dict[str, Any] = {}

    def call(self, cmd: str, **payload: Any) -> dict[str, Any]:
        """One request."""
        self.last = wire(self.c, {"cmd": cmd, "payload": payload})
        return self.last

    def start(self, expr: str) -> dict[str, Any]:
        """goal.start; remembers the state."""
        ans = self.call("goal.start", expr=expr)
        self.sid = ans.get("stateId")
        return ans

    def tac(self, tactic: str, goal_id: int | None = None) -> dict[str, Any]:
        """goal.tactic on the current state; moves on when it succeeds."""
        payload: dict[str, Any] = {"stateId": self.sid, "tactic": tactic}
        if goal_id is not None:
            payload["goalId"] = goal_id
        ans = self.call("goal.tactic", **payload)
        if "nextStateId" in ans:
            self.sid = ans["nextStateId"]
        return ans

    def goals_text(self) -> str:
        """The current goals rendered as Lean prints them."""
        ans = self.call("goal.print", stateId=self.sid, goals=True)
        return render_goals([Goal.model_validate(g) for g in ans["goals"]])

    def error_text(self) -> str:
        """The error messages of the last answer."""
        return "\n".join(
            m["data"] for m in self.last.get("messages", []) if m["severity"] == "error"
        )
