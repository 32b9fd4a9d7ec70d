"""The independent proof kernel of the embedded backend (the de Bruijn criterion).

Tactics of the embedded checker may be wrong; this package decides whether a proof counts.
It imports nothing from the elaborator or the tactics (only the standard library), and
everything it accepts is checked here from small rules:

- Terms: ``Lit`` numerals (exact ints), ``Var`` bound variables as de Bruijn indices (so
  capture is impossible by construction), ``Free`` context entries by id, ``App`` for
  arithmetic (``+ - * / % ^ neg cast``), relations (``= < ≤ ∣``), connectives
  (``∧ ∨ → ↔``) and the constants ``True``/``False``, ``Bind`` for ``∀``/``∃`` over
  Nat, Int or Prop. Every term is sort-checked (``sort_of``). ``>``/``≥``/``≠``/``¬`` are
  Lean's reducible abbreviations and are unfolded by whoever builds terms.
- A ``Sequent`` is a context (ordered ``Entry`` s: variables of a sort, hypotheses of a
  proposition) and a target. Its meaning: for all values of the variables, the
  hypotheses imply the target.
- A ``Proof`` is a tree ``Proof(rule, args)``; ``check`` verifies it against a sequent and
  returns the obligations its ``hole`` s leave (child goals, proved by their own proofs).
  Natural deduction (intro, app, inst, and/or/iff/exists intro and elimination, false
  elimination, have, by_contra and em — classical, as Mathlib), Nat induction, subst and
  rewriting (``rw`` with a motive; congruence under binders), and three certificate rules
  for decision procedures: ``ring`` (polynomial normal forms recomputed here), ``decide``
  (exact evaluation of a closed proposition) and ``arith`` (a refutation tree over
  linear facts: case splits, integer cuts, products and squares, and Farkas combinations
  with exact rational coefficients whose sum must be a negative constant). A solver's
  "unsat" alone is never accepted.
- Modules: ``terms`` (terms and binders), ``poly`` (polynomial normal forms, evaluation),
  ``context`` (entries, sequents, sorts, conversion), ``arith`` (facts and refutation
  certificates), ``rules`` (proofs and ``check``).
- Arithmetic is Lean's: Nat subtraction truncates, ``x / 0 = 0``, ``x % 0 = x``, Int
  ``/`` and ``%`` are ``Int.ediv``/``Int.emod``, ``0 ^ 0 = 1``; numbers are exact
  (``int`` and ``Fraction``), never floats.
"""

from __future__ import annotations

from burnqed.embedded.kernel.terms import (
    ARITH_HEADS,
    App,
    Bind,
    CONNS,
    FALSE,
    Free,
    KernelError,
    Lit,
    MAX_BITS,
    MAX_EXPONENT,
    MAX_MONOMIALS,
    RELS,
    SORTS,
    TRUE,
    Term,
    Var,
    abstract,
    frees,
    instantiate,
    loose,
    replace_free,
)
from burnqed.embedded.kernel.poly import Monomial, Poly, atoms, evaluate, poly
from burnqed.embedded.kernel.context import Entry, Sequent, conv, covers, sort_of, well_formed
from burnqed.embedded.kernel.arith import Disj, Fact, FactSet, Lin, PropLit, atom_sort, nat_atoms, nnf, refute
from burnqed.embedded.kernel.rules import Proof, check, infer

__all__ = [
    "ARITH_HEADS",
    "App",
    "Bind",
    "Entry",
    "FactSet",
    "Free",
    "KernelError",
    "Lin",
    "Lit",
    "Poly",
    "Proof",
    "PropLit",
    "Sequent",
    "Var",
    "abstract",
    "check",
    "conv",
    "covers",
    "evaluate",
    "instantiate",
    "poly",
    "sort_of",
    "well_formed",
]
