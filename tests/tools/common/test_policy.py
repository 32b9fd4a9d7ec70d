"""The tactic policy refuses text that reaches outside the proof, and is configurable."""

from __future__ import annotations

import pytest

from burnqed.tools.common.config import ToolsConfig
from burnqed.tools.common.errors import InvalidInput, PolicyViolation
from burnqed.tools.common.policy import TacticPolicy

DENIED = [
    ("#eval IO.println 1", "#command"),
    ('run_cmd logInfo "x"', "run_cmd"),
    ("run_tac do pure ()", "run_tac"),
    ("exact (unsafe (cast rfl))", "unsafe"),
    ("open Lean in exact x", "open ... in"),
    ("set_option maxHeartbeats 0 in simp", "set_option"),
    ("import Mathlib", "import"),
    ('macro "x" : tactic => `(tactic| rfl)', "macro"),
    ('elab "t" : tactic => pure ()', "elab"),
    ("axiom cheat : False", "axiom"),
    ("sorry", "sorry"),
    ("exact (admit)", "sorry"),
    ("native_decide", "native_decide"),
    ("theorem x : True := trivial", "declaration"),
]


@pytest.mark.parametrize(("text", "rule"), DENIED)
def test_default_policy_denies_commands_and_meta_programs(text: str, rule: str) -> None:
    with pytest.raises(PolicyViolation) as info:
        TacticPolicy(ToolsConfig()).check_tactic(text)
    assert info.value.rule == rule


@pytest.mark.parametrize(
    "text", ["intro n", "omega", "constructor <;> simp", "rcases h with ⟨x, hx⟩", "use 7\nnorm_num", "rw [h] at h2"]
)
def test_default_policy_allows_ordinary_tactics(text: str) -> None:
    assert TacticPolicy(ToolsConfig()).check_tactic(f"  {text} ") == text


def test_statements_are_checked_too() -> None:
    policy = TacticPolicy(ToolsConfig())
    assert policy.check_statement("∀ (n : Nat), n + 0 = n") == "∀ (n : Nat), n + 0 = n"
    with pytest.raises(PolicyViolation):
        policy.check_statement("(IO.println 1 = IO.println 1)")


def test_lookalike_letters_are_normalised_before_matching() -> None:
    # fullwidth letters NFKC-normalise to ASCII
    with pytest.raises(PolicyViolation):
        TacticPolicy(ToolsConfig()).check_tactic("ｓｏｒｒｙ")


def test_policy_is_configurable() -> None:
    config = ToolsConfig(
        allow_sorry=True, allowed_patterns=["native_decide"], extra_denied_patterns={"omega": r"\bomega\b"}
    )
    policy = TacticPolicy(config)
    assert policy.check_tactic("sorry") == "sorry"
    assert policy.check_tactic("native_decide") == "native_decide"
    with pytest.raises(PolicyViolation):
        policy.check_tactic("omega")
    assert "omega" in policy.rules and "native_decide" not in policy.rules


@pytest.mark.parametrize("text", ["", "   ", "simp\x00", "x" * 5000])
def test_empty_overlong_or_control_text_is_invalid_input(text: str) -> None:
    with pytest.raises(InvalidInput):
        TacticPolicy(ToolsConfig()).check_tactic(text)


@pytest.mark.parametrize(
    "header",
    [
        "import Mathlib\nimport Aesop\n\nset_option maxHeartbeats 400000\n\nopen BigOperators Real Nat Topology Rat\n",
        "import Mathlib\n\nopen Filter Set TopologicalSpace\nopen scoped Topology\n\ndef is_top (X : Type*) (T : Set (Set X)) :=\n  univ ∈ T\n",
        "import Mathlib\n\nset_option checkBinderAnnotations false\n",
    ],
)
def test_headers_follow_the_importers_rules_not_the_deny_list(header: str) -> None:
    """Issue 26: one rule set for headers (burnqed.lean.statement.parse_header), so the benchmark files' headers pass."""
    assert TacticPolicy(ToolsConfig()).check_header(header) == header.strip()


def test_a_header_the_importer_refuses_is_refused_by_name() -> None:
    with pytest.raises(InvalidInput, match="axiom cheat"):
        TacticPolicy(ToolsConfig()).check_header("import Mathlib\naxiom cheat : False")


@pytest.mark.parametrize(
    "statement",
    [
        "∀ (n : Nat), n + 0 = n",
        "(x : ℕ) (h : 0 < x) : 1 ≤ x",
        "theorem t (x : ℕ) (h : 0 < x) : 1 ≤ x := by",
        "lemma l (a b : ℕ) : a + b = b + a := by",
        "example : 2 + 2 = 4 := by",
        "theorem mathd_algebra_10 : abs ((120 : ℝ) / 100 * 30 - 130 / 100 * 20) = 10 := by sorry",
        "theorem t\n  (x : ℕ) (h : 0 < x) :\n  1 ≤ x := by",
    ],
)
def test_every_statement_form_the_importers_accept_is_allowed(statement: str) -> None:
    """Proposition, binder form and theorem form (`theorem`/`lemma`/`example … := by`) pass the
    policy: the declaration rule is for a second declaration, not the one the form is."""
    assert TacticPolicy(ToolsConfig()).check_statement(f" {statement} \n") == statement


@pytest.mark.parametrize(
    ("statement", "refusal"),
    [
        ("theorem t : True := by\ntheorem u : False := by", InvalidInput),  # a second declaration
        ("theorem t : True\ntheorem u : False := by", PolicyViolation),  # one hidden in the type
        ("theorem t : True := trivial", InvalidInput),  # a proof, not a statement
        ("theorem t : True := by\n#eval 1", InvalidInput),  # a command after the form
        ("theorem t : sorry = 1 := by", InvalidInput),
        ("theorem t : IO.println 1 = IO.println 1 := by", PolicyViolation),
        ("theorem t : True := by -- #eval x", PolicyViolation),  # comments are read too
        ("def f : ℕ := 0", PolicyViolation),
        ("axiom a : False", PolicyViolation),
    ],
)
def test_theorem_form_refuses_what_reaches_outside_one_declaration(statement: str, refusal: type) -> None:
    with pytest.raises(refusal):
        TacticPolicy(ToolsConfig()).check_statement(statement)
