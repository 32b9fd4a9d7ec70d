"""ProofTarget: a statement (with its header) or a constant's name, exactly one, checked once;
a Theorem's target reads the ``by-name`` tag; the pool answers a bad target with the Lean
layer's InvalidInput (no ValidationError)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from burnqed.data.theorems import BY_NAME_TAG, Theorem
from burnqed.lean.errors import InvalidInput
from burnqed.lean.target import ProofTarget


def test_exactly_one_of_statement_or_name() -> None:
    for bad in ({}, {"statement": "True", "name": "trivial"}, {"header": "open Nat"}):
        with pytest.raises(InvalidInput, match="exactly one of statement or name"):
            ProofTarget(**bad)
    assert ProofTarget.of("True").text == "True" and ProofTarget.of("True").kind == "statement"
    named = ProofTarget.named("Nat.add_zero")
    assert named.by_name and named.text == "Nat.add_zero" and named.kind == "name"


def test_frozen_and_strict() -> None:
    target = ProofTarget.of("True", "open Nat")
    with pytest.raises(ValidationError):
        target.statement = "False"  # type: ignore[misc]
    with pytest.raises(ValidationError):
        ProofTarget(statement="True", tactic="trivial")  # type: ignore[call-arg]
    assert target == ProofTarget(statement="True", header="open Nat")


def test_a_theorem_names_its_target_once() -> None:
    plain = Theorem(name="t", statement="∀ (n : Nat), n + 0 = n", header="open Nat")
    assert plain.target == ProofTarget.of("∀ (n : Nat), n + 0 = n", "open Nat")
    by_name = Theorem(name="Nat.add_zero", statement="∀ (n : Nat), n + 0 = n", tags=[BY_NAME_TAG])
    assert by_name.target == ProofTarget.named("Nat.add_zero")
