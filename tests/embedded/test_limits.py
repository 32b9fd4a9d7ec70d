"""Hostile input is bounded: huge numerals, exponents, nesting and expansions fail fast."""

from __future__ import annotations

from tests.embedded.util import Session


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
        "desc": "<Pantograph>:1:7: outside the embedded fragment: unsupported type 'ℝ' (the fragment has Nat, Int and Prop)",
    }
    ans = s.start("∀ n : Nat, -n = 0")
    assert ans["error"] == "elab" and "Neg Nat" in ans["desc"]


def test_nesting_past_the_limit_is_a_parse_error_with_its_position() -> None:
    s = Session()
    ans = s.call("expr.echo", expr="↑" * 900 + "n = 0")
    assert ans == {"error": "parsing", "desc": "<Pantograph>:1:200: maximum nesting depth 200 exceeded"}
    s.start("True")
    for tactic in ("(" * 900 + "trivial" + ")" * 900, "try " * 900 + "trivial", "rintro " + "⟨" * 900):
        ans = s.tac(tactic)
        assert "maximum nesting depth 200 exceeded" in ans["parseError"], tactic
        assert not ans["parseError"].startswith("<Pantograph>:1:0:"), tactic


def test_deeply_nested_by_blocks_fail_as_lean_recursion() -> None:
    s = Session()
    s.start("∀ (p : Prop) (h : p), p")
    s.tac("intro p h")
    term = "h"
    for _ in range(150):
        term = f"(by exact {term})"
    ans = s.tac("exact " + term)
    assert "nextStateId" not in ans and "maximum recursion depth" in s.error_text()


def test_exponential_tactic_work_runs_out_of_heartbeats() -> None:
    s = Session()
    s.start("∀ (n : Nat), n + 0 = n")
    for tactic in (
        "by_cases h : True <;> " * 18 + "skip",
        "repeat (all_goals (by_cases h : True))",
        "try (repeat (repeat (have h : True := trivial)))",
    ):
        ans = s.tac(tactic)
        assert "nextStateId" not in ans, tactic
        assert "maximum number of heartbeats (20000)" in s.error_text(), tactic


def test_looping_rewrite_rules_stop_at_the_term_size_bound() -> None:
    s = Session()
    s.start("∀ (n : ℕ) (h : n = n + n + n + n), n = 0")
    s.tac("intro n h")
    start = s.sid
    for tactic in ("simp [h]", "simp_all", "simp [h] at h", "rw [" + ", ".join(["h"] * 12) + "]"):
        s.sid = start
        ans = s.tac(tactic)
        assert "nextStateId" not in ans and "20000 nodes" in s.error_text(), tactic
