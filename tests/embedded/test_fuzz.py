"""Fuzz: no text sent to goal.start or goal.tactic makes the checker answer an internal error.

Random tactic strings (mixes of the fragment's tokens — tactic names, keywords, identifiers,
numerals, subscripts, Unicode symbols — with arbitrary printable text and a few control
characters) run on fixed start states, some of them false; random statements go to
goal.start. Requests travel as JSON lines through the REPL's JSON line (``repl.server.answer_line``), so escapes like
``\\ud800`` are exercised too. Every answer must have one of the protocol's shapes, and a
false start may never end without goals unless sorry was used. The checker runs with a
generous ``timeout`` option: input that took unbounded time would answer the interrupt (an
internal error) and fail here instead of hanging the suite.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from burnqed.embedded import Checker
from burnqed.embedded.syntax.tactic_parser import TACTIC_NAMES
from burnqed.embedded.repl.server import answer_line
from burnqed.lean.protocol import OptionsSet

_CHECKER = Checker()
_CHECKER.options_set(OptionsSet(timeout=20_000))

TRUE_STARTS = [
    "∀ (n : Nat), n + 0 = n",
    "∀ (p q : Prop) (hp : p) (hq : q), p ∧ q",
    "∀ (x y : ℤ) (h₀ : x < y) (h₁ : 0 < x), x + 1 ≤ y",
    "∃ x : ℕ, x > 3 ∧ x < 5",
]
FALSE_STARTS = [
    "∀ (n : Nat), n + 1 = n",
    "∀ (a b : ℕ) (h : a < b), b < a",
    "∃ x : ℕ, x + 1 = 0",
    "∀ (p : Prop), p",
    "∀ (x : ℤ) (h : x ∣ 2), x = 2 ∨ x = 1",
]

_WORDS = sorted(TACTIC_NAMES) + [
    "at", "with", "by", "only", "generalizing", "using", "fun", "from", "show", "this",
    "x", "y", "n", "h", "h₀", "h₁", "hp", "a", "b", "p", "q", "k", "ih", "_", "?_",
    "Nat", "ℕ", "ℤ", "Int", "Prop", "True", "False", "Nat.add_comm", "Nat.succ_le_of_lt",
    "And.intro", "Or.inl", "absurd", "h.1", "h.2", "h.mp", ".symm", "zero", "succ", "inl",
]  # fmt: skip
_SYMBOLS = [
    "0", "1", "2", "21", "177041", "1" * 60, "0.5", "₂", "₀₁", "²", "∀", "∃", "→", "∧", "∨",
    "¬", "↔", "⊢", "⟨", "⟩", "←", "<-", "->", ",", ":", ":=", "=>", "|", "·", ".", ";", "<;>",
    "(", ")", "[", "]", "{", "}", "=", "≠", "<", "≤", ">", "≥", "∣", "+", "-", "*", "/", "%",
    "^", "↑", "«", "»", "/-", "-/", "--", "@", "$", "!", "λ", "∑",
]  # fmt: skip
_CONTROL = [
    "\x00",
    "\t",
    "\r",
    "\x1b",
    "\x7f",
    "\u200b",
    "\ufeff",
    "\ud800",
    "\n",
    "\n  ",
]

token = st.one_of(
    st.sampled_from(_WORDS),
    st.sampled_from(_SYMBOLS),
    st.sampled_from(_CONTROL),
    st.text(st.characters(min_codepoint=32, max_codepoint=0x2BFF), max_size=4),
)


def _joined(parts: list[tuple[str, str]]) -> str:
    return "".join(tok + sep for tok, sep in parts)


text = st.one_of(
    st.lists(
        st.tuples(token, st.sampled_from([" ", " ", "", "\n", "; "])),
        min_size=1,
        max_size=14,
    ).map(_joined),
    st.text(max_size=40),
)
proof_like = st.tuples(
    st.sampled_from(sorted(TACTIC_NAMES) + ["intro n", "intro a b h", "constructor"]),
    st.lists(st.sampled_from(_WORDS + _SYMBOLS), max_size=6),
).map(lambda t: " ".join([t[0], *t[1]]))
tactic_text = st.one_of(text, proof_like)

_STARTED: dict[str, int] = {}


def _ask(cmd: str, **payload: Any) -> dict[str, Any]:
    """One request as a JSON line (ASCII escapes, so lone surrogates survive), one answer."""
    line = json.dumps({"cmd": cmd, "payload": payload})
    answer = answer_line(_CHECKER, line)
    answer.encode("utf-8")  # the server writes it as UTF-8
    decoded: dict[str, Any] = json.loads(answer)
    return decoded


def _start(statement: str) -> int:
    if statement not in _STARTED:
        _STARTED[statement] = _ask("goal.start", expr=statement)["stateId"]
    return _STARTED[statement]


def _check_error(ans: dict[str, Any], allowed: set[str]) -> None:
    assert set(ans) == {"error", "desc"}, ans
    assert ans["error"] in allowed, ans
    assert isinstance(ans["desc"], str) and ans["desc"], ans


def _check_tactic_answer(ans: dict[str, Any]) -> None:
    """Success, failure with error messages, parseError, or an index error (goalId)."""
    if "error" in ans:
        _check_error(ans, {"index"})
    elif "parseError" in ans:
        assert set(ans) == {"parseError", "hasSorry", "hasUnsafe"} and ans["parseError"].startswith(
            "<Pantograph>:"
        )
    elif "nextStateId" in ans:
        assert isinstance(ans["goals"], list) and isinstance(ans["hasSorry"], bool), ans
        for goal in ans["goals"]:
            assert "target" in goal and "pp" in goal["target"], goal
    else:
        assert "goals" not in ans, ans
        assert any(m["severity"] == "error" and m["data"] for m in ans["messages"]), ans


def _run(statement: str, tactics: list[str], goal_id: int, false: bool) -> None:
    sid = _start(statement)
    created: list[int] = []
    try:
        for i, tactic in enumerate(tactics):
            payload: dict[str, Any] = {"stateId": sid, "tactic": tactic}
            if i == 0 and goal_id:
                payload["goalId"] = goal_id
            ans = _ask("goal.tactic", **payload)
            _check_tactic_answer(ans)
            if "nextStateId" not in ans:
                return
            sid = ans["nextStateId"]
            created.append(sid)
            if not ans["goals"]:
                if false:
                    root = _ask("goal.print", stateId=sid)
                    assert root["rootHasSorry"], (
                        f"{tactics[: i + 1]} closed the false {statement!r}"
                    )
                return
    finally:
        _ask("goal.delete", stateIds=created)


_FUZZ = settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@_FUZZ
@given(
    statement=st.sampled_from(TRUE_STARTS + FALSE_STARTS),
    tactics=st.lists(tactic_text, min_size=1, max_size=2),
    goal_id=st.sampled_from([0, 0, 0, 1, 3]),
)
def test_random_tactic_text_gets_a_protocol_answer_and_never_closes_a_false_goal(
    statement: str, tactics: list[str], goal_id: int
) -> None:
    _run(statement, tactics, goal_id, statement in FALSE_STARTS)


@_FUZZ
@given(
    statement=st.one_of(
        text, st.tuples(text, text).map(lambda t: f"∀ (x : ℕ), {t[0]} = {t[1]}")
    )
)
def test_random_statement_text_is_started_or_refused_as_parsing_or_elab(
    statement: str,
) -> None:
    ans = _ask("goal.start", expr=statement)
    if "error" in ans:
        _check_error(ans, {"parsing", "elab"})
        assert ans["desc"].startswith("<Pantograph>:"), ans
        return
    assert set(ans) == {"stateId", "root"}, ans
    _ask("goal.delete", stateIds=[ans["stateId"]])


def test_garbage_policy_tactic_is_a_parse_error() -> None:
    sid = _start(TRUE_STARTS[0])
    ans = _ask("goal.tactic", stateId=sid, tactic="21₂ ∀ 177041")
    assert ans == {"hasSorry": False, "hasUnsafe": False, "parseError": "<Pantograph>:1:2: unexpected character '₂'"}
