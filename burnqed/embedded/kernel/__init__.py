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
- A ``Proof`` is a tree of rule nodes, one frozen dataclass per rule (``proofs``: a closed
  union, fields named and typed); ``check`` verifies it against a sequent with one
  ``match`` and returns the obligations its ``Hole`` s leave (child goals, proved by their
  own proofs). Families, each checked in its own module: natural deduction (``logic``:
  ``Hyp``, ``Annot``, ``ModusPonens``, ``Inst``, ∧/↔/∨/∃ introduction and elimination,
  ``Intro``, ``TrueIntro``, ``FalseElim``, ``Have``, ``ByContra`` and ``Em`` — classical,
  as Mathlib); equality and rewriting (``equality``: ``Subst``, ``Rewrite`` with a motive,
  ``CongrBind`` under binders, ``Refl``/``Ring`` by polynomial normal forms recomputed
  here); arithmetic and induction (``numbers``: ``DvdIntro``/``DvdElim``, ``NatInd``,
  ``Decide`` — exact evaluation of a closed proposition — and ``Arith``, a refutation tree
  over linear facts: case splits, integer cuts, products and squares, and Farkas
  combinations with exact rational coefficients whose sum must be a negative constant). A
  solver's "unsat" alone is never accepted.
- Modules: ``terms`` (terms and binders), ``poly`` (polynomial normal forms, evaluation),
  ``context`` (entries, sequents, sorts, conversion), ``arith`` (facts and refutation
  certificates), ``proofs`` (the rules' nodes), ``logic``/``equality``/``numbers`` (the
  families' rules), ``rules`` (``check`` and ``infer``: the dispatch).
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
    neg,
    replace_free,
)
from burnqed.embedded.kernel.poly import Monomial, Poly, atoms, evaluate, poly
from burnqed.embedded.kernel.context import Entry, Sequent, conv, covers, expect_prop, sort_of, well_formed
from burnqed.embedded.kernel.arith import Disj, Fact, FactSet, Lin, PropLit, atom_sort, nat_atoms, nnf, refute, tighten
from burnqed.embedded.kernel.proofs import (
    AndIntro,
    AndLeft,
    AndRight,
    Annot,
    Arith,
    ByContra,
    CongrBind,
    Decide,
    DvdElim,
    DvdIntro,
    Em,
    ExistsElim,
    ExistsIntro,
    FalseElim,
    Have,
    Hole,
    Hyp,
    IffIntro,
    IffMp,
    IffMpr,
    Inst,
    Intro,
    ModusPonens,
    NatInd,
    OrElim,
    OrInl,
    OrInr,
    Proof,
    Refl,
    Rewrite,
    Ring,
    Sorry,
    Subst,
    TrueIntro,
)
from burnqed.embedded.kernel.rules import Obligations, check, infer

__all__ = [
    "ARITH_HEADS",
    "AndIntro",
    "AndLeft",
    "AndRight",
    "Annot",
    "App",
    "Arith",
    "Bind",
    "ByContra",
    "CongrBind",
    "Decide",
    "DvdElim",
    "DvdIntro",
    "Em",
    "Entry",
    "ExistsElim",
    "ExistsIntro",
    "FactSet",
    "FalseElim",
    "Free",
    "Have",
    "Hole",
    "Hyp",
    "IffIntro",
    "IffMp",
    "IffMpr",
    "Inst",
    "Intro",
    "KernelError",
    "Lin",
    "Lit",
    "ModusPonens",
    "NatInd",
    "Obligations",
    "OrElim",
    "OrInl",
    "OrInr",
    "Poly",
    "Proof",
    "PropLit",
    "Refl",
    "Rewrite",
    "Ring",
    "Sequent",
    "Sorry",
    "Subst",
    "TrueIntro",
    "Var",
    "abstract",
    "check",
    "conv",
    "covers",
    "evaluate",
    "expect_prop",
    "instantiate",
    "neg",
    "poly",
    "sort_of",
    "well_formed",
]
