"""Hostile input is bounded: huge numerals, exponents, nesting and expansions fail fast."""

from __future__ import annotations

from tests.lean.embedded.util import Session


def test_huge_numeral_is_a_parsing_error() -> None:
    s = Session()
    ans = s.start("1" * 5000 + " = 1")
    assert ans["error"] == "parsing" and "digits" in ans["desc"]


def test_deep_nesting_is_a_parsing_error() -> None:
    s = Session()
    ans = s.start("(" * 1000 + "1" + ")" * 1000 + " = 1")
    assert ans["error"] == "parsing" and "nesting" in ans["desc"]
    ans = s.start("¬" * 1000 + "True")
    assert ans["error"] == "parsing"


def test_overlong_input_is_refused() -> None:
    s = Session()
    ans = s.start("True ∧ " * 5000 + "True")
    assert ans["error"] == "parsing" and "longer than" in ans["desc"]


def test_tower_of_exponents_fails_without_computing() -> None:
    s = Session()
    s.start("2 ^ 2 ^ 2 ^ 2 ^ 2 ^ 2 = 0")
    start = s.sid
    for tactic in ("decide", "norm_num", "simp", "omega", "rfl", "ring"):
        s.sid = start
        ans = s.tac(tactic)
        assert ans.get("goals") != [], tactic


def test_huge_expansion_is_refused() -> None:
    s = Session()
    s.start(
        "∀ (a b c d e f g : Int), (a + b + c + d + e + f + g) ^ 30 = (a - b + c - d + e - f + g) ^ 30"
    )
    s.tac("intro a b c d e f g")
    ans = s.tac("ring")
    assert "nextStateId" not in ans and "too large" in s.error_text()


def test_unsupported_constructs_name_themselves() -> None:
    s = Session()
    ans = s.start("∀ (f : Nat → Nat), f 0 = 0")
    assert ans["error"] in ("elab", "parsing")
    ans = s.start("∀ (x : ℝ), x = x")
    assert ans == {
        "error": "elab",
        "desc": "<Pantograph>:1:7: unsupported type 'ℝ' (the fragment has Nat, Int and Prop)",
    }
    ans = s.start("∀ n : Nat, -n = 0")
    assert ans["error"] == "elab" and "Neg Nat" in ans["desc"]
