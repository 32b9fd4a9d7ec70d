"""Kernel proofs of simp's steps (tactics_rewrite): certificates from the hypotheses and the
named rules for quantifier-free steps, congruence (lemma_proofs.prove_iff) under binders."""

from __future__ import annotations

from collections.abc import Callable

from burnqed.embedded import kernel as k
from burnqed.embedded.bridge.translate import _holes, hole, kterm, sequent
from burnqed.embedded.decide.certify import Budget, prove_fact
from burnqed.embedded.decide.certify_powmod import prove_mod
from burnqed.embedded.tactics.interpreter import Engine
from burnqed.embedded.bridge.lemma_proofs import prove_iff
from burnqed.embedded.tactics.lemma_use import PerUse
from burnqed.embedded.tactics.proofterm import TacticError
from burnqed.embedded.elab.state import Goal, Hyp
from burnqed.embedded.elab.expr import Term

__all__ = ["SimpProver"]


class SimpProver:
    """Kernel proofs of simp's steps: certificates from the hypotheses and the named rules
    for quantifier-free steps, congruence (certify.prove_iff) under binders."""

    def __init__(
        self,
        eng: Engine,
        sources: list[tuple[Term, Callable[[], k.Proof]]],
        home: Goal | None = None,
        rebuild: Callable[[Goal], list[tuple[Term, Callable[[], k.Proof]]]] | None = None,
    ) -> None:
        self.eng = eng
        self.raw = sources
        self.home = home
        self.rebuild = rebuild
        self._sources: dict[int, list[tuple[k.Proof, k.Term]]] = {}
        # instances of conditional rules the last simplification used (quantifier-free facts)
        self.instances: list[tuple[k.Proof, k.Term]] = []

    def sources(self, goal: Goal | None = None) -> list[tuple[k.Proof, k.Term]]:
        """The rules' proofs for a step of ``goal``. A rule term with a tactic block
        (``show P by norm_num``) was elaborated in the goal simp started from; its nested goal
        has that context, which a later goal of the same simp (a hypothesis cleared or
        rewritten) no longer covers: there the rules are elaborated again in the later goal
        (``rebuild``), and where that fails the step has no proof."""
        key = 0 if goal is None or self.home is None or goal.uid == self.home.uid else goal.uid
        got = self._sources.get(key)
        if got is not None:
            return got
        raw = self.raw
        if key and self.rebuild is not None and any(_holes(pf) for pf, _ in self.sources()):
            raw = self.rebuild(goal)  # type: ignore[arg-type]
        # an INSTANCE_LEMMAS rule has no general proof: its steps are proved by the
        # certificates of `fact` alone
        got = [(build(), kterm(prop)) for prop, build in raw if not isinstance(build, PerUse)]
        self._sources[key] = got
        return got

    def budget(self) -> Budget:
        """The bounds of one step's certificate search (counts; the request's deadline only as
        the safety net)."""
        return Budget.of(self.eng.ctx)

    def fact(self, goal: Goal, target: k.Term, extra: list[tuple[k.Proof, k.Term]] = ()) -> k.Proof | None:  # type: ignore[assignment]
        """``target`` from the goal's hypotheses, the rules and ``extra`` (quantifier-free)."""
        seq = sequent(goal).to(target)
        premises = [(k.Hyp(e.uid), e.ty) for e in seq.ctx if not isinstance(e.ty, str)]
        premises += [(p, t) for p, t in self.sources(goal) if not isinstance(t, k.Bind)]
        premises += self.instances
        got = prove_fact(seq, [*premises, *extra], target, budget=self.budget())
        if got is None:  # remainders of products (a step of `simp [Nat.mul_mod]`)
            got = prove_mod(seq, [*premises, *extra], target, budget=self.budget())
        return got

    def iff(self, goal: Goal, a: k.Term, b: k.Term) -> k.Proof:
        """``a ↔ b`` in the goal's context, or a failure of the tactic."""
        budget = self.budget()
        pf = prove_iff(sequent(goal), a, b, [*self.sources(goal), *self.instances], budget=budget)
        if pf is None:
            raise TacticError(f"simp: the kernel found no proof of this simplification step{budget.note()}")
        return k.Annot(pf, k.App("↔", (a, b), "Prop"))

    def hyp(self, goal: Goal, old: Hyp, new: Term) -> k.Proof:
        """The simplified hypothesis from the old one."""
        h, n = kterm(old.ty), kterm(new)  # type: ignore[arg-type]
        return self.fact(goal, n) or k.ModusPonens(k.IffMp(self.iff(goal, h, n)), k.Hyp(old.uid))

    def target(self, goal: Goal, new: Term, child: Goal | None) -> k.Proof:
        """The goal's target from the simplified one (``child``: the goal holding it; None: True)."""
        t, n = kterm(goal.target), kterm(new)
        arg = k.TrueIntro() if child is None else k.Annot(hole(child), n)
        got = self.fact(goal, t, [] if child is None else [(arg, n)])
        return got or k.ModusPonens(k.IffMpr(self.iff(goal, t, n)), arg)
