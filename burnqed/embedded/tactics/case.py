"""``case tag x… => tacs`` and ``next x… => tacs`` (issue 37).

lean4 ``src/Lean/Elab/Tactic/BuiltinTactic.lean``: ``evalCase`` finds the goal by its tag
(``findTag?``: the goal whose tag is the name; ``_`` is the main goal), renames inaccessible
hypotheses with the names (``renameInaccessibles``: from the end of the context backwards,
each inaccessible or shadowed hypothesis takes the last name left; names left over are the
error "too many variable names provided"), runs the tactics on that goal alone and requires
them to close it (``closeUsingOrAdmit``: "unsolved goals"); the other goals stay in order.
``next`` is ``case _``. Tags here are the checker's one-component case names (``zero``,
``succ``, ``inl``, ``inr``, ``intro``, ``pos``, ``neg``, …).
"""

from __future__ import annotations

from burnqed.embedded.tactics.interpreter import Engine, register_goal_list, render
from burnqed.embedded.tactics.proofterm import TacticError
from burnqed.embedded.elab.state import Goal, Hyp
from burnqed.embedded.syntax.tactic_parser import Tac

__all__: list[str] = []


def _rename(goal: Goal, names: list[str]) -> Goal:
    todo = list(names)
    hyps = list(goal.hyps)
    seen: set[str] = set()
    for j in range(len(hyps) - 1, -1, -1):
        if not todo:
            break
        h = hyps[j]
        if h.hygienic or h.user in seen:
            new = todo.pop()
            if new != "_":
                hyps[j] = Hyp(h.uid, new, h.ty, False)
        seen.add(h.user)
    if todo:
        raise TacticError("too many variable names provided")
    return goal.with_(goal.uid, hyps=tuple(hyps))


@register_goal_list("case")
@register_goal_list("next")
def _case(eng: Engine, goals: list[Goal], tac: Tac) -> list[Goal]:
    tag, names = tac.data["tag"], tac.data["names"]
    if not goals:
        raise TacticError("no goals to be proved")
    i = 0 if tag == "_" else next((j for j, g in enumerate(goals) if g.tag == tag), None)
    if i is None:
        raise TacticError(f"Case tag '{tag}' not found.\n\nAvailable tags: " + ", ".join(f"'{g.tag}'" for g in goals if g.tag))
    goal = _rename(goals[i], names)
    left = eng.run(tac.data["body"], [goal.with_(goal.uid, tag=None)])
    if left:
        raise TacticError("unsolved goals\n" + render(left))
    return goals[:i] + goals[i + 1 :]
