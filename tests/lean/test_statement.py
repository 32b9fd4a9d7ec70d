"""Theorem form, headers and proof files as text (burnqed.lean.statement)."""

from __future__ import annotations

import pytest

from burnqed.lean.statement import (
    LeanHeader,
    StatementError,
    assemble_file,
    frontend_snippet,
    has_sorry,
    is_theorem_form,
    lean_name,
    parse_file,
    parse_header,
    parse_theorem,
    split_tactic_block,
)

HEADER = "import Mathlib\nimport Aesop\n\nset_option maxHeartbeats 400000\n\nopen BigOperators Real Nat Topology Rat\n"


def test_a_minif2f_header_splits_into_imports_and_scope_commands() -> None:
    header = parse_header(HEADER)
    assert header.imports == ("Mathlib", "Aesop")
    assert header.commands == ("set_option maxHeartbeats 400000", "open BigOperators Real Nat Topology Rat")
    assert parse_header(header.render()) == header
    assert parse_header(None) == parse_header("  \n") == LeanHeader()
    assert parse_header("-- a comment\n/- a block\n comment -/\nopen Nat") == LeanHeader((), ("open Nat",))


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("@[simp] def f : Nat := 0", "not allowed"),
        ("def f : Nat := by exact 0", "runs tactics"),
        ("def f : Nat", "no body"),
        ("abbrev s : Nat := sorry", "uses sorry"),
        ("opaque f : Nat", "not allowed"),
        ('macro "x" : tactic => `(tactic| rfl)', "not allowed"),
        ("set_option maxHeartbeats 0 in", "prefix"),
        ("instance : Inhabited Nat := ⟨0⟩", "not allowed"),
        ("axiom a : False", "not allowed"),
        ("set_option debug.skipKernelTC true", "debug.skipKernelTC"),
        ("open Nat\nimport Mathlib", "imports must come first"),
        ("/- unterminated", "unterminated"),
    ],
)
def test_headers_with_more_than_scope_and_plain_definitions_are_refused(text: str, why: str) -> None:
    with pytest.raises(StatementError, match=why):
        parse_header(text)


def test_theorem_form_signatures() -> None:
    decl = parse_theorem("theorem amc12_2000_p5 (x p : ℝ) (h₀ : x < 2) (h₁ : abs (x - 2) = p) :\n  x - p = 2 - 2 * p := by\n")
    assert decl.name == "amc12_2000_p5" and decl.binders == "(x p : ℝ) (h₀ : x < 2) (h₁ : abs (x - 2) = p)"
    assert decl.type == "x - p = 2 - 2 * p"
    assert parse_theorem("lemma l {a : ℕ} [h : Fact (1 < a)] : a ≠ 0 := by sorry").binders == "{a : ℕ} [h : Fact (1 < a)]"
    assert parse_theorem("example : (fun x : ℕ => x) 1 = 1").name is None
    assert parse_theorem("theorem t : ∀ n : ℕ, (n : ℤ) ≥ 0 := by").type == "∀ n : ℕ, (n : ℤ) ≥ 0"
    assert is_theorem_form("  theorem t : True := by") and not is_theorem_form("∀ (n : Nat), n = n")


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("theorem t : 1 = 1 := by rfl", "must not carry a proof"),
        ("theorem t : 1 = 1 := rfl", "must not carry a proof"),
        ("theorem t (h : sorry) : 1 = 1 := by", "must not contain sorry"),
        ("theorem t : (1 = 1 := by", "unbalanced"),
        ("theorem t : 1 = 1) := by", "unbalanced"),
        ("def t : Nat := 1", "expected `theorem`"),
        ("theorem t x : x = x", "bracketed"),
    ],
)
def test_malformed_theorem_statements_are_refused(text: str, why: str) -> None:
    with pytest.raises(StatementError, match=why):
        parse_theorem(text)


def test_files_round_trip_through_assemble_and_parse() -> None:
    header = parse_header(HEADER)
    decl = parse_theorem("theorem t (a b : ℕ) (h : a = b) : b = a := by")
    tactics = ["symm", "cases h with\n| refl => rfl", "exact h", "constructor <;>\n  simp"]
    text = assemble_file(header, decl, tactics, name="renamed")
    assert "theorem renamed (a b : ℕ) (h : a = b) : b = a := by\n  symm\n  cases h with\n  | refl => rfl\n" in text
    parsed = parse_file(text)
    assert parsed.header == header and parsed.decl.normalized() == decl.normalized()
    assert parsed.tactics == tuple(tactics)
    snippet = frontend_snippet(header, decl)
    assert "import" not in snippet and snippet.endswith(":= by\n  sorry\n") and "open BigOperators" in snippet


def test_tactic_blocks_split_at_their_own_indentation() -> None:
    assert split_tactic_block("  intro n\n  induction n with\n  | zero => rfl\n  | succ k ih =>\n    simp\n  omega") == [
        "intro n", "induction n with\n| zero => rfl\n| succ k ih =>\n  simp", "omega",
    ]  # fmt: skip
    assert parse_file("theorem t : True := by trivial\n").tactics == ("trivial",)


def test_sorry_is_found_in_code_not_in_comments_or_names() -> None:
    assert has_sorry("by\n  exact sorry") and has_sorry("by admit")
    assert not has_sorry("-- sorry\n/- admit -/ exact sorry_free_lemma") and not has_sorry("exact h.sorryish")


def test_names_that_are_not_identifiers_get_guillemets() -> None:
    assert lean_name("mathd_algebra_10") == "mathd_algebra_10" and lean_name("Nat.foo'") == "Nat.foo'"
    assert lean_name("core/add zero") == "«core/add zero»"


def test_a_header_may_define_terms_over_several_lines() -> None:
    """ProofNet's headers define what their theorems use; the definitions stay out of each statement's snippet."""
    header = parse_header(
        "import Mathlib\nopen Real\n\nnoncomputable def f : ℕ → ℝ\n| 0 => sqrt 2\n| (n + 1) => sqrt (2 + f n)\n\n"
        "abbrev I : Set ℝ := Set.Icc 0 1\nset_option checkBinderAnnotations false\n"
    )
    assert header.definitions == (
        "noncomputable def f : ℕ → ℝ\n| 0 => sqrt 2\n| (n + 1) => sqrt (2 + f n)", "abbrev I : Set ℝ := Set.Icc 0 1"
    )
    assert header.scope == "open Real\nset_option checkBinderAnnotations false"
    assert parse_header(header.render()) == header


def test_an_import_is_a_module_name_never_a_path_or_a_command() -> None:
    assert parse_header("import Mathlib.Tactic.Ring «my_pkg».Foo Aesop\n").imports == (
        "Mathlib.Tactic.Ring", "«my_pkg».Foo", "Aesop")
    for bad in ("../../etc/passwd", "«/etc/passwd»", "$(touch", "Mathlib/Tactic", "Mathlib..Tactic", ".Foo", "1Foo",
                "`rm`", "«a b»"):
        with pytest.raises(StatementError, match="is not a module name"):
            parse_header(f"import {bad}\n")
