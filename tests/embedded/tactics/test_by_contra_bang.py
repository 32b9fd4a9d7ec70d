"""Mathlib's ``by_contra! h`` (Mathlib/Tactic/ByContra.lean: ``by_contra h; try push_neg at h``)."""

from __future__ import annotations

from tests.embedded.verdict import verdict

HEADER = "theorem t (x : ℕ) (h : 3 * x < 10) : x ≤ 3"


def test_by_contra_bang_pushes_the_negation() -> None:
    # the hypothesis is `3 < x`, push_neg's form of `¬x ≤ 3`
    assert verdict(HEADER, "by_contra! hc\nhave h2 : 3 < x := hc\nomega") == "accepted"


def test_by_contra_bang_default_name_and_false_goal() -> None:
    assert verdict(HEADER, "by_contra!\nomega") == "accepted"
    assert verdict("theorem t (x : ℕ) (h : 3 * x < 10) : x ≤ 2", "by_contra! hc\nomega") != "accepted"


def test_by_contra_bang_without_a_negation_to_push() -> None:
    # `try push_neg`: nothing to push is no error (the hypothesis is `¬p`)
    assert verdict("theorem t (p : Prop) (hp : p) : p", "by_contra! hc\nexact hc hp") == "accepted"


def test_by_contra_bang_typed_form_refused() -> None:
    assert verdict(HEADER, "by_contra! hc : 3 < x\nomega") != "accepted"
