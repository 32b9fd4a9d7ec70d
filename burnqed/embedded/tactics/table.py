"""The table of tactics the embedded checker runs: each tactic name → the function that runs it.

The one place a tactic is added (docs/embedded.md, "How to add a tactic"): its parser in
``syntax/tactic_parser.py`` (``TACTIC_NAMES``), its function in a module of this wing, its row
here. Importing a tactic module registers nothing; ``@register`` only names, on the function,
the tactics it implements, and tests/embedded/test_tactic_table.py checks that those names and
this table agree.
"""

from __future__ import annotations

from types import MappingProxyType

from burnqed.embedded.tactics import (
    auto,
    basic,
    calc,
    case,
    cases,
    cases_prime,
    cast,
    conv,
    hypotheses,
    induction,
    interval,
    match,
    push_neg,
    rewrite,
    ring_nf,
    simpa,
    suffices,
    unfold,
    use,
)
from burnqed.embedded.tactics.interpreter import BasicTactic, GoalListTactic, TacticTable

__all__ = ["GOAL_LIST_TACTICS", "TABLE", "TACTICS"]

# tactics on the main goal: they return the goals that replace it
TACTICS: MappingProxyType[str, BasicTactic] = MappingProxyType(
    {
        "intro": basic._intro,
        "intros": basic._intros,
        "exact": basic._exact,
        "exact_mod_cast": basic._exact,
        "refine": basic._refine,
        "apply": basic._apply,
        "constructor": basic._constructor,
        "left": basic._left_right,
        "right": basic._left_right,
        "exfalso": basic._exfalso,
        "contradiction": basic._contradiction,
        "assumption": basic._assumption,
        "trivial": basic._trivial,
        "rfl": basic._rfl,
        "decide": basic._decide,
        "sorry": basic._sorry,
        "admit": basic._sorry,
        "refine'": basic._refine_prime,
        "ring": ring_nf._ring,
        "ring_nf": ring_nf._ring_nf,
        "omega": auto._omega,
        "linarith": auto._linarith,
        "nlinarith": auto._linarith,
        "positivity": auto._positivity,
        "calc": calc._calc,
        "zify": cast._cast_tactic,
        "push_cast": cast._cast_tactic,
        "norm_cast": cast._cast_tactic,
        "cases": cases._cases,
        "cases'": cases_prime._cases_prime,
        "rcases": cases._rcases,
        "obtain": cases._obtain,
        "rintro": cases._rintro,
        "use": use._use,
        "exists": hypotheses._exists,
        "unfold": unfold._unfold_tac,
        "conv": conv._conv,
        "conv_lhs": conv._conv,
        "conv_rhs": conv._conv,
        "specialize": hypotheses._specialize,
        "have": hypotheses._have,
        "show": hypotheses._show,
        "by_contra": hypotheses._by_contra,
        "by_contra!": hypotheses._by_contra_bang,
        "by_cases": hypotheses._by_cases,
        "clear": hypotheses._clear,
        "symm": hypotheses._symm,
        "induction'": induction._induction_prime,
        "induction": induction._induction,
        "subst": induction._subst,
        "subst_vars": induction._subst_vars,
        "interval_cases": interval._interval_cases,
        "match": match._match,
        "rw": rewrite._rw,
        "rewrite": rewrite._rw,
        "rwa": rewrite._rw,
        "simp": rewrite._simp,
        "norm_num": rewrite._simp,
        "simp_arith": rewrite._simp,
        "field_simp": rewrite._simp,
        "simp_all": rewrite._simp,
        "push_neg": push_neg._push_neg,
        "simpa": simpa._simpa,
        "suffices": suffices._suffices,
        "revert": suffices._revert,
        "contrapose": suffices._contrapose,
        "contrapose!": suffices._contrapose,
    }
)

# tactics on the whole goal list: they choose their goal (``case tag => …``)
GOAL_LIST_TACTICS: MappingProxyType[str, GoalListTactic] = MappingProxyType(
    {
        "next": case._case,
        "case": case._case,
    }
)

TABLE = TacticTable(basic=TACTICS, goal_list=GOAL_LIST_TACTICS)
