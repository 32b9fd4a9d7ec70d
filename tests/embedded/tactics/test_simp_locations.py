"""What simp and norm_num leave at a hypothesis (lean4 src/Lean/Meta/Tactic/Simp/Main.lean
``simpGoal``; Mathlib/Tactic/NormNum/Core.lean ``normNumAt``): a hypothesis that becomes True
stays as ``h : True`` (only simp_all drops it), core simp without progress fails, norm_num
without progress does not."""

from __future__ import annotations

from tests.embedded.verdict import verdict


def test_simp_at_keeps_a_true_hypothesis() -> None:
    # mathd_numbertheory_30's step: the names are still there for `norm_num at`
    body = "have h3 := congr_arg (· % 17) h\nsimp at h3\nnorm_num at h3\nomega"
    assert verdict("theorem t (h : 33820 % 17 = 7) : 8 ^ 2 = 64", body) == "accepted"


def test_the_kept_hypothesis_is_true_not_the_old_statement() -> None:
    body = "have h3 : 33820 % 17 = 7 := h\nsimp at h3\nexact h3"
    assert verdict("theorem t (h : 33820 % 17 = 7) : 33820 % 17 = 7", body) != "accepted"


def test_simp_all_still_drops_true_hypotheses() -> None:
    body = "have h3 : 33820 % 17 = 7 := h\nsimp_all\nclear h3\nomega"
    got = verdict("theorem t (x y : ℕ) (h : 33820 % 17 = 7) (hx : 2 * x < y) : x < y", body)
    assert "h3" in got, got
    assert verdict("theorem t (x y : ℕ) (h : 33820 % 17 = 7) (hx : 2 * x < y) : x < y", "have h3 : 33820 % 17 = 7 := h\nsimp_all\nomega") == "accepted"


def test_norm_num_without_progress_is_no_error() -> None:
    # mathd_numbertheory_301 / _99's `norm_num at h₀` on `2 * n % 47 = 15`
    assert verdict("theorem t (n : ℕ) (h₀ : 2 * n % 47 = 15) : n % 47 = 31", "norm_num at h₀\nomega") == "accepted"


def test_norm_num_without_progress_changes_nothing() -> None:
    assert verdict("theorem t (n : ℕ) (h₀ : 2 * n % 47 = 15) : n % 47 = 30", "norm_num at h₀\nomega") != "accepted"
    # the goal is still open after a norm_num that changed nothing
    assert verdict("theorem t (n : ℕ) (h₀ : 2 * n % 47 = 15) : n % 47 = 31", "norm_num") != "accepted"


def test_simp_without_progress_still_fails() -> None:
    got = verdict("theorem t (n : ℕ) (h₀ : 2 * n % 47 = 15) : n % 47 = 31", "simp at h₀\nomega")
    assert "simp made no progress" in got


def test_simp_progresses_once_at_a_congr_arg_hypothesis() -> None:
    # `have h₁ := congr_arg (fun x => x % 11) h`: Lean's h₁ keeps the beta-redexes simp
    # reduces (numbertheory_x5neqy2p4, mathd_numbertheory_412 in Lean-checked proofs)
    header = "theorem t (x y : ℤ) (h : x ^ 5 = y ^ 2 + 4) : x ^ 5 % 11 = (y ^ 2 + 4) % 11"
    assert verdict(header, "have h₁ := congr_arg (fun x => x % 11) h\nsimp at h₁\nexact h₁") == "accepted"
    # once reduced, a second simp has nothing to do
    got = verdict(header, "have h₁ := congr_arg (fun x => x % 11) h\nsimp at h₁\nsimp at h₁\nexact h₁")
    assert "simp made no progress" in got
    # with its type written, the hypothesis is that type: no redex
    typed = "have h₁ : x ^ 5 % 11 = (y ^ 2 + 4) % 11 := congr_arg (fun x => x % 11) h\nsimp at h₁\nexact h₁"
    assert "simp made no progress" in verdict(header, typed)
    # the statement is unchanged: a false goal stays refused
    false = "theorem t (x y : ℤ) (h : x ^ 5 = y ^ 2 + 4) : x ^ 5 % 11 = (y ^ 2 + 5) % 11"
    assert verdict(false, "have h₁ := congr_arg (fun x => x % 11) h\nsimp at h₁\nexact h₁") != "accepted"
