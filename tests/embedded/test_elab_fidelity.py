"""The elaborator reads and unifies as Lean 4 does: each false acceptance found in the
elaborator / tactic layer has a test here, checked with the kernel enforced and with the
kernel off (the elaborator must refuse on its own), and the Lean reading it must keep.

Causes: metavariables leaking out of ``by`` blocks and ``rfl`` (no occurs check), bound
variables compared by name, capture under binders, binders named like constants, untyped
binders typed against Lean's elaboration order, ``↑`` and ``∣`` elaborated the way
``binop%`` / ``Dvd.dvd`` do, notation (nested comments, precedences)."""

from __future__ import annotations

import pytest

from burnqed.embedded import Checker
from burnqed.embedded.config import EmbeddedConfig
from burnqed.embedded.elab.elaborate import ElabError, elab_prop
from burnqed.embedded.tactics.proofterm import fresh_mvar, unify
from burnqed.embedded.syntax.parser import Limits, ParseError, parse_statement
from burnqed.embedded.elab.expr import Binder, BVar, Num, Op, Rel, pp
from burnqed.lean.protocol import OptionsSet
from tests.embedded.util import Session


@pytest.fixture(scope="module", params=["enforce", "off"])
def checker(request: pytest.FixtureRequest) -> Checker:
    c = Checker(EmbeddedConfig(kernel=request.param))
    c.options_set(OptionsSet(timeout=5000))
    return c


def read(text: str) -> str:
    """The statement as the checker elaborates it, printed."""
    return pp(elab_prop(parse_statement(text, Limits()), {}))


def refused(text: str) -> str:
    """The message of a statement that does not parse or elaborate."""
    with pytest.raises((ParseError, ElabError)) as info:
        elab_prop(parse_statement(text, Limits()), {})
    return info.value.message


# (false statement in Lean's reading, a script that proves the checker's old misreading
# or exploits the old unification)
FALSE_ACCEPTED: list[tuple[str, list[str]]] = [
    # 1. metavariables from a nested by / rfl leaking out
    ("(3 : Nat) = 5", ["exact Eq.symm (by rfl)"]),
    ("(3 : Nat) = 3 → (3 : Nat) = 5", ["intro h", "exact Eq.trans h rfl"]),
    ("(3 : Nat) = 3 → (3 : Nat) = 5", ["intro h", "exact Eq.trans h (by rfl)"]),
    # 2. bound variables compared by name
    (
        "(∃ a : Nat, ∀ b : Nat, a = 0 ∨ b = 5) → ∃ b : Nat, ∀ c : Nat, c = 0 ∨ c = 5",
        ["intro h", "exact h"],
    ),
    # 3. simp rewriting under binders with capture
    (
        "(∀ n : Nat, (n = 7 ↔ ∃ y : Nat, y = n ∧ y = 7)) → ∀ y : Nat, y = 7",
        ["intro h", "simp only [h]", "use 7"],
    ),
    # 4. binders named like constants (local names first)
    ("∀ (True : Prop), True", ["intro h", "omega"]),
    ("∀ (True : Prop), True", ["intro h", "trivial"]),
    # 5. untyped binders: the first use that fixes the type wins, as in Lean
    ("∀ x, (x : ℤ) ≥ 0", ["intro x", "omega"]),
    ("∃ x, x = (0 : ℕ) - 1 ∧ (x : ℤ) ≠ 0", ["exact ⟨-1, by decide⟩"]),
    ("∃ x, x = (0 : ℕ) - 1 ∧ (x : ℤ) ≠ 0", ["use -1"]),
    ("∃ x, x < 0", ["use -1"]),
    # 6. ↑ takes the type of its tree (ℕ here: ↑a - ↑b is truncated subtraction)
    ("∀ (a b : ℕ), ↑a - ↑b + b = a", ["intro a b", "omega"]),
    # 6. block comments nest: the statement is `False`
    ("/- /- -/ True ∨ -- -/\n False", ["left", "trivial"]),
    ("/- /- -/ True ∨ -- -/\n False", ["simp"]),
]


@pytest.mark.parametrize(("statement", "script"), FALSE_ACCEPTED)
def test_false_statement_is_refused(checker: Checker, statement: str, script: list[str]) -> None:
    assert not checker.check_proof(statement, script).ok


# statements Lean refuses to elaborate, which the checker used to read one way and prove
LEAN_REFUSES: list[tuple[str, list[str], str]] = [
    ("∀ x, True", ["intro x", "trivial"], "failed to infer binder type"),
    ("∀ x y, x * y = y * x", ["intro x y", "ring"], "failed to infer binder type"),
    ("∀ (Nat : Prop), ∀ (x : Nat), x + 1 > x", ["intro h x", "omega"], "proof, not a number"),
    ("∀ (x : ℕ), x - 1 ∣ (x : ℤ) - 1", ["intro x", "simp"], "type mismatch"),
    ("∀ (a b : ℕ), ↑a = ↑b → a = b", ["intro a b h", "omega"], "stuck"),
    ("∀ (ℕ : Prop), ℕ", ["intro h", "exact h"], "expected binder name"),
    ("(2 : ℤ) ^ -1 = 2", ["decide"], "expected term"),
    ("∀ x : ℤ, ↑-x = -x", ["intro x", "rfl"], "expected term"),
]


@pytest.mark.parametrize(("statement", "script", "why"), LEAN_REFUSES)
def test_statement_lean_refuses_is_refused(
    checker: Checker, statement: str, script: list[str], why: str
) -> None:
    got = checker.check_proof(statement, script)
    assert not got.ok
    assert got.error is not None and why in got.error


# what Lean reads (printed as Lean prints it); the checker must read the same
READINGS: list[tuple[str, str]] = [
    # untyped binders
    ("∀ x, x + 1 > 0", "∀ (x : Nat), x + 1 > 0"),
    ("∀ x, (x : ℤ) ≥ 0", "∀ (x : Int), x ≥ 0"),
    ("∀ x y, x = (y : ℤ)", "∀ (x y : Int), x = y"),
    ("∃ x, x < 0", "∃ x, x < 0"),
    ("∃ x, x = (0 : ℕ) - 1 ∧ (x : ℤ) ≠ 0", "∃ x, x = 0 - 1 ∧ ↑x ≠ 0"),
    ("∀ x, x + 1 > 0 ∧ x = (5 : ℤ)", "∀ (x : Int), x + 1 > 0 ∧ x = 5"),
    ("∀ x > 0, x < (5 : ℤ)", "∀ (x : Int), x > 0 → x < 5"),
    ("∃ x, -x = 1", "∃ x, -x = 1"),
    ("∀ n, 2 ^ n > 0", "∀ (n : Nat), 2 ^ n > 0"),
    ("∀ p, p ∨ ¬p", "∀ (p : Prop), p ∨ ¬p"),
    # binders named like constants: the local wins; ℕ is notation for the constant
    ("∀ (True : Prop), True", "∀ (True : Prop), True"),
    ("∀ (Nat : Prop) (x : ℕ), x + 1 > x", "Prop → ∀ (x : Nat), x + 1 > x"),
    ("∀ (Int : Prop), Int → Int", "∀ (Int : Prop), Int → Int"),
    # ↑ and ∣ as binop% / Dvd.dvd elaborate them
    ("∀ (a b : ℕ), ↑a - ↑b + b = a", "∀ (a b : Nat), a - b + b = a"),
    ("∀ (a : ℕ) (b : ℤ), ↑a - b = 0", "∀ (a : Nat) (b : Int), ↑a - b = 0"),
    ("∀ (a : ℕ), (↑a : ℤ) = a", "∀ (a : Nat), ↑a = ↑a"),
    ("∀ (x : ℤ), 2 ∣ x", "∀ (x : Int), 2 ∣ x"),
    ("∀ (x : ℕ), (x : ℤ) ∣ x - 1", "∀ (x : Nat), ↑x ∣ ↑x - 1"),
    ("0 ∣ (0 - 1)", "0 ∣ 0 - 1"),
    ("-1 < 0", "-1 < 0"),
    # precedences of Lean 4 core (Init/Notation.lean, Init/Core.lean)
    ("∀ x : ℤ, -x ^ 2 ≤ 0", "∀ (x : Int), -x ^ 2 ≤ 0"),
    ("∀ a b : ℕ, ¬a = b ∧ a = b", "∀ (a b : Nat), ¬a = b ∧ a = b"),
    ("(10 : ℕ) - 3 - 2 = 5", "10 - 3 - 2 = 5"),
    ("2 ^ 3 ^ 2 = 512", "2 ^ 3 ^ 2 = 512"),
    ("∀ p q r : Prop, p → q → r", "∀ (p q r : Prop), p → q → r"),
    ("∀ a b : ℕ, a ∣ b + 1", "∀ (a b : Nat), a ∣ b + 1"),
    ("∀ (n : Nat), /- a /- nested -/ comment -/ n = n -- trailing", "∀ (n : Nat), n = n"),
]


@pytest.mark.parametrize(("source", "printed"), READINGS)
def test_statement_reads_as_lean_reads_it(source: str, printed: str) -> None:
    assert read(source) == printed


def test_untyped_binder_takes_its_first_fixing_use() -> None:
    # x = (0 : ℕ) - 1 fixes x : ℕ; the later ascription is a coercion ↑x
    t = elab_prop(parse_statement("∃ x, x = (0 : ℕ) - 1 ∧ (x : ℤ) ≠ 0", Limits()), {})
    assert isinstance(t, Binder) and t.ty == "Nat"
    # a tree without a known leaf leaves x open; the later ascription fixes ℤ
    t = elab_prop(parse_statement("∀ x, x + 1 > 0 ∧ (x : ℤ) < 0", Limits()), {})
    assert isinstance(t, Binder) and t.ty == "Int"


def test_minus_in_an_open_tree_defaults_to_int() -> None:
    # `Neg Int` is a default instance of higher priority than `OfNat Nat`
    t = elab_prop(parse_statement("∃ x, x = -1", Limits()), {})
    assert isinstance(t, Binder) and t.ty == "Int"


def test_notations_that_do_not_parse_in_lean() -> None:
    for text in ("∀ p q r : Prop, p ↔ q ↔ r", "(1 : ℕ) < 2 < 3", "(2 : ℕ) ^ -1 = 1", "/- open comment"):
        with pytest.raises(ParseError):
            parse_statement(text, Limits())


def test_exponent_binds_tighter_than_prefix_minus() -> None:
    t = elab_prop(parse_statement("-2 ^ 2 = (-4 : ℤ)", Limits()), {})
    assert isinstance(t, Rel) and t.lhs == Op("neg", (Op("^", (Num(2, "Int"), Num(2, "Nat")), "Int"),), "Int")


# true statements in Lean's reading, still proved
TRUE_PROVED: list[tuple[str, list[str]]] = [
    ("(3 : Nat) = 3", ["exact Eq.symm (by rfl)"]),
    ("(3 : Nat) = 3 → (3 : Nat) = 3", ["intro h", "exact Eq.trans h rfl"]),
    (
        "(∃ a : Nat, ∀ b : Nat, a = 0 ∨ b = 5) → ∃ x : Nat, ∀ y : Nat, x = 0 ∨ y = 5",
        ["intro h", "exact h"],
    ),
    ("∀ (True : Prop), True → True", ["intro p hp", "exact hp"]),
    ("∀ x, (x : ℤ) ≥ 0 → x + 1 > 0", ["intro x h", "omega"]),
    # use's discharger is `with_reducible use_discharger` (no decide): ℤ arithmetic is left
    ("∃ x, x = (0 : ℕ) - 1 ∧ (x : ℤ) = 0", ["use 0", "norm_num"]),
    ("∃ x, -x = 1", ["use -1", "norm_num"]),
    ("∀ (a b : ℕ), ↑a - ↑b + b ≥ a", ["intro a b", "omega"]),
    ("∀ (a b : ℕ), (↑a : ℤ) - ↑b + ↑b = ↑a", ["intro a b", "omega"]),
    ("/- /- -/ False ∨ -- -/\n True", ["trivial"]),
    ("∀ (Nat : Prop) (x : ℕ), x + 1 > x", ["intro h x", "omega"]),
]


@pytest.mark.parametrize(("statement", "script"), TRUE_PROVED)
def test_true_statement_is_still_proved(checker: Checker, statement: str, script: list[str]) -> None:
    got = checker.check_proof(statement, script)
    assert got.ok, got.error


# ---------------------------------------------------------------- unification


def test_unification_has_an_occurs_check() -> None:
    a = fresh_mvar("Nat", "a")
    assert unify(a, Op("+", (a, Num(1, "Nat")), "Nat"), {}) is None
    b = fresh_mvar("Nat", "b")
    # ?a := ?b, then ?b =?= ?a + 1 must fail too
    sub = unify(a, b, {})
    assert sub is not None
    assert unify(b, Op("+", (a, Num(1, "Nat")), "Nat"), sub) is None


def test_a_metavariable_never_takes_a_variable_bound_in_the_pattern() -> None:
    m = fresh_mvar("Nat", "m")
    pattern = Binder("∀", "x", "Nat", Rel("=", m, Num(0, "Nat")))
    target = Binder("∀", "y", "Nat", Rel("=", BVar("y", "Nat"), Num(0, "Nat")))
    assert unify(pattern, target, {}) is None


def test_binders_unify_positionally_never_by_name() -> None:
    # ∃ a, ∀ b, a = b  vs  ∃ b, ∀ a, a = b : the same names in swapped roles differ
    one = Binder("∃", "a", "Nat", Binder("∀", "b", "Nat", Rel("=", BVar("a", "Nat"), BVar("b", "Nat"))))
    two = Binder("∃", "b", "Nat", Binder("∀", "a", "Nat", Rel("=", BVar("a", "Nat"), BVar("b", "Nat"))))
    assert unify(one, two, {}) is None
    renamed = Binder("∃", "u", "Nat", Binder("∀", "v", "Nat", Rel("=", BVar("u", "Nat"), BVar("v", "Nat"))))
    assert unify(one, renamed, {}) is not None


def test_a_by_block_with_an_unknown_type_is_refused_as_lean_does() -> None:
    s = Session()
    s.start("(3 : Nat) = 3")
    ans = s.tac("have h := Eq.symm (by rfl)")
    assert "nextStateId" not in ans
    assert "don't know how to synthesize" in s.error_text()


# ---------------------------------------------------------------- printing


def test_renamed_binders_never_capture_when_printed() -> None:
    # intro names the hypothesis `x`: the binder `x` that refers to it prints as `x_1`, and
    # the inner binder `x_1` (which mentions it) as `x_1_1`, as Lean's delaborator does
    s = Session()
    s.start("∀ (y : Nat), ∃ (x : Nat), ∀ (x_1 : Nat), x_1 = x + y")
    s.tac("intro x")
    assert s.goals_text() == "x : Nat\n⊢ ∃ x_1, ∀ (x_1_1 : Nat), x_1_1 = x_1 + x"


def test_a_binder_shadowing_an_unused_hypothesis_keeps_its_name() -> None:
    s = Session()
    s.start("∀ (y : Nat), ∃ (x : Nat), x = 0")
    s.tac("intro x")
    assert s.goals_text() == "x : Nat\n⊢ ∃ x, x = 0"


# ---------------------------------------------------------------- omega


def test_omega_introduces_binders_and_hypotheses_as_lean_does() -> None:
    c = Checker()
    assert c.check_proof("∀ (a b : Nat), a < b → a + 1 ≤ b", ["omega"]).ok
    assert c.check_proof("∀ (x : ℕ), x + 1 ≠ 0", ["omega"]).ok
    assert c.check_proof("∀ (p : Prop) (x : ℕ), p → x + 1 > x", ["omega"]).ok
    assert c.check_proof("∀ (a b : ℕ), (a < b ↔ a + 1 ≤ b)", ["omega"]).ok


def test_omega_treats_products_of_variables_as_atoms_and_refuses_false_goals() -> None:
    c = Checker()
    assert not c.check_proof("∀ (x : ℤ), x * x ≥ 0", ["omega"]).ok
    assert not c.check_proof("∀ (x y : ℤ), x * y ≥ 0", ["omega"]).ok
    assert not c.check_proof("∀ (x : ℕ), x + 1 ≠ 1", ["omega"]).ok
    assert c.check_proof("∀ (x y : ℤ), x * y = 1 → x * y + 1 = 2", ["omega"]).ok
