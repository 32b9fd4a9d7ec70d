"""Parsers of the tactics ``match e with | pat => tacs …``, ``induction' x with names
generalizing names`` and ``case tag names => tacs`` / ``next names => tacs`` (kept apart
from syntax/tactic_parser.py).

Lean's tactic ``match`` (lean4 ``src/Lean/Elab/Tactic/Match.lean``, ``mkAuxiliaryMatchTerm``)
becomes ``refine match e with | pat => ?rhs …`` followed by ``case rhs => tacs`` for each
alternative: the patterns are term patterns and each alternative's tactics must close its goal.
One discriminant, one pattern per alternative; ``match h : e``, several discriminants and
``| p | q => …`` are refused here.
"""

from __future__ import annotations

from typing import Any

from burnqed.embedded.syntax.parser import ParseError, Syn

__all__ = [
    "parse_calc_steps", "parse_case", "parse_cases_prime", "parse_simp_config", "parse_conv", "parse_induction_prime", "parse_have_binders", "parse_match", "parse_suffices",
    "parse_unfold",
]


def _dotted(pat: Syn) -> Syn:
    """``.inl h``: the leading-dot constructor name (the `.` was consumed)."""
    if pat.kind == "ident":
        return Syn("ident", pat.pos, "." + pat.value)
    if pat.kind == "app" and pat.args[0].kind == "ident":
        head = pat.args[0]
        return Syn("app", pat.pos, pat.value, (Syn("ident", head.pos, "." + head.value), *pat.args[1:]))
    raise ParseError("unsupported match pattern", pat.pos)


def parse_match(p: Any) -> dict[str, Any]:
    """The discriminant and ``(pattern, tactics, position)`` alternatives; ``p`` is the
    tactic parser, standing after the word ``match``."""
    disc = p.term_(frozenset({"with"}))
    if p.at(",") or p.at(":"):
        raise p.error("only a match on one discriminant is supported in this fragment")
    p.expect("with")
    alts: list[tuple[Syn, Any, int]] = []
    while p.tok.kind == "nl":
        p.advance()
    while p.at("|"):
        bar = p.advance()
        dot = p.at(".")
        if dot:
            p.advance()
        pat = p.term_(frozenset({"=>"}))
        if dot:
            pat = _dotted(pat)
        if p.at("|"):
            raise p.error("alternatives sharing a right-hand side are not supported in this fragment")
        p.expect("=>")
        body = p.seq(p.line_indent(bar.pos), frozenset({"|"}))
        alts.append((pat, body, bar.pos))
        while p.tok.kind == "nl" and p.peek().kind == "sym" and p.peek().text == "|":
            p.advance()
    if not alts:
        raise p.error("expected '|'")
    return {"term": disc, "alts": alts}


def parse_cases_prime(p: Any) -> dict[str, Any]:
    """Mathlib's ``cases' e (with x…)?`` (Mathlib/Tactic/Cases.lean, ``elab (name := cases')``:
    the names after ``with`` go to the fields of the constructors in order); one target, no
    ``using``, no ``h : e``."""
    d: dict[str, Any] = {"target": p.term_(frozenset({"with", "using"}))}
    if p.at("using") or p.at(","):
        raise p.error("cases' with `using` or several targets is not supported in this fragment")
    if p.at("with"):
        p.advance()
        d["names"] = p.names()
        if not d["names"]:
            raise p.error("expected identifier")
    return d


def parse_induction_prime(p: Any) -> dict[str, Any]:
    """Mathlib's ``induction' e (with x…)? (generalizing y…)?`` (Mathlib/Tactic/Cases.lean:
    the names after ``with`` go to the new variables of the cases in order)."""
    d: dict[str, Any] = {"target": p.term_(frozenset({"with"}))}
    if p.at("using"):
        raise p.error("induction' … using is not supported in this fragment")
    if p.at("with"):
        p.advance()
        names = []
        while p.tok.kind == "id" and p.tok.text != "generalizing":
            names.append(p.advance().text)
        d["names"] = names
    if p.at("generalizing"):
        p.advance()
        d["generalizing"] = p.names()
    return d


def parse_case(p: Any, name: str, pos: int, stop: frozenset[str]) -> dict[str, Any]:
    """``case tag x… => tacs`` (``next x… => tacs`` is ``case _ x… => tacs``); one tag."""
    tag = "_" if name == "next" else p.advance().text if p.tok.kind == "id" else None
    if tag is None:
        raise p.error("expected case tag")
    names = p.names()
    if p.at("|"):
        raise p.error("case with several tags is not supported in this fragment")
    p.expect("=>")
    return {"tag": tag, "names": names, "body": p.seq(p.line_indent(pos), stop)}


def parse_suffices(p: Any, pos: int, stop: frozenset[str]) -> dict[str, Any]:
    """``suffices h : t from e`` / ``suffices h : t by tacs`` (lean4 ``src/Lean/Parser/Term.lean``,
    ``sufficesDecl``: an optional ``h :`` then the type then ``from`` or ``by``) and Mathlib's
    bare ``suffices h : t`` (``Mathlib/Tactic/Have.lean``); without ``h :`` the name is ``this``."""
    d: dict[str, Any] = {"name": "this"}
    if p.tok.kind == "id" and p.peek().kind == "sym" and p.peek().text == ":":
        d["name"] = p.advance().text
        p.advance()
    elif p.at(":"):  # Mathlib's `suffices : t`
        p.advance()
    if p.tok.kind == "sym" and p.tok.text == "(":
        raise p.error("suffices with binders is not supported in this fragment")
    d["type"] = p.term_()
    if p.at("from"):
        p.advance()
        d["term"] = p.term_()
    elif p.at("by"):
        p.advance()
        d["by"] = p.seq(p.line_indent(pos), stop)
    return d


def parse_have_binders(p: Any, pos: int) -> dict[str, Any]:
    """``have h (x : ℤ) (y z : ℕ) : P := …`` (lean4 ``haveIdDecl``: binders before the colon
    make the statement ``∀ x y z, P``, proved with them introduced); ``p`` stands at ``(``."""
    groups: list[tuple[str, Syn | None, bool]] = []
    while p.at("("):
        p.advance()
        names = p._binder_group_names()
        if not names:
            raise p.error("expected binder name")
        p.expect(":")
        ty = p.term_()
        p.expect(")")
        groups.extend((n, ty, False) for n, _ in names)
    p.expect(":")
    body = p.term_()
    return {"type": Syn("binder", pos, ("∀", groups), (body,)), "binders": [n for n, _, _ in groups]}


def parse_unfold(p: Any) -> dict[str, Any]:
    """``unfold id+ (location)?`` (lean4 ``src/Init/Tactics.lean``): the names and locations;
    ``p`` stands after the word ``unfold``."""
    names: list[str] = []
    while p.tok.kind == "id":
        names.append(p.advance().text)
    if not names:
        raise p.error("expected identifier")
    return {"names": names, "at": p.location()}


# conv tactics that take no argument (lean4 ``src/Init/Conv.lean``: ``skip``, ``lhs``, ``rhs``;
# ``left``/``right`` are macros for ``lhs``/``rhs``)
_CONV_NO_ARGS = frozenset({"skip", "lhs", "rhs", "left", "right", "ring_nf", "done"})
_CONV_SIMP = frozenset({"simp", "norm_num", "simp_arith"})


def parse_conv(p: Any, name: str, pos: int, stop: frozenset[str]) -> dict[str, Any]:
    """``conv (at h)? (in pat)? => convs`` (lean4 ``src/Init/Conv.lean``, syntax ``conv``) and
    Mathlib's ``conv_lhs`` / ``conv_rhs`` (``Mathlib/Tactic/Conv.lean``: the same with ``lhs;`` /
    ``rhs;`` before the block). The block's conv tactics, one per ``;`` or deeper line, are
    read as ``(kind, position, argument)``; a conv tactic the checker does not run is kept as
    ``("unsupported", pos, name)`` and refused when the block runs."""
    d: dict[str, Any] = {"at": None, "pattern": None, "side": {"conv_lhs": "lhs", "conv_rhs": "rhs"}.get(name)}
    if p.at("at"):
        p.advance()
        if p.tok.kind != "id":
            raise p.error("expected hypothesis name")
        d["at"] = p.advance().text
    if p.tok.kind == "id" and p.tok.text == "in":
        p.advance()
        if p.at("(") and p.peek().kind == "id" and p.peek().text == "occs":
            raise p.error("conv in (occs := …) is not supported in this fragment")
        d["pattern"] = p.term_(frozenset({"=>"}))
    p.expect("=>")
    d["body"] = _conv_seq(p, p.line_indent(pos), stop)
    k = 0
    while p.peek(k).kind == "nl":
        k += 1
    if p.peek(k).kind == "sym" and p.peek(k).text == "<;>":
        # Init/Conv.lean has a conv-level `<;>` (no column check), which Lean's parser tries
        # before the tactic-level one: which of them reads it is not decided here
        raise ParseError("'<;>' after a conv block is not supported in this fragment", p.peek(k).pos)
    return d


def _conv_seq(p: Any, base: int, stop: frozenset[str]) -> list[tuple[str, int, Any]]:
    items: list[tuple[str, int, Any]] = []
    while True:
        while p.at(";") or (p.tok.kind == "nl" and int(p.tok.text) > base):
            p.advance()
        if p.at("<;>"):
            raise p.error("'<;>' inside a conv block is not supported in this fragment")
        if p.at_sep_end(base, stop | {")"}):
            break
        items.append(_conv_item(p, base, stop))
        if not (p.at(";") or p.tok.kind == "nl" or p.at_sep_end(base, stop | {")"}) or p.at("<;>")):
            raise p.error("expected ';' or line break")
    if not items:
        raise p.error("expected conv tactic")
    return items


def _conv_item(p: Any, base: int, stop: frozenset[str]) -> tuple[str, int, Any]:
    t = p.tok
    if p.at("("):  # `(convs)`: grouping only (Init/Conv.lean, `paren`)
        p.advance()
        inner = _conv_seq(p, -1, frozenset({")"}))
        p.expect(")")
        return ("seq", t.pos, inner)
    if t.kind not in ("id", "kw"):
        raise p.error("expected conv tactic")
    name = t.text
    if name in _CONV_NO_ARGS:
        p.advance()
        return ({"left": "lhs", "right": "rhs"}.get(name, name), t.pos, None)
    if name == "arg" and p.peek().kind == "num":
        p.advance()
        return ("arg", t.pos, [int(p.advance().text)])
    if name == "enter" and p.peek().kind == "sym" and p.peek().text == "[":
        p.advance()
        p.advance()
        args: list[int | str] = []
        while True:
            if p.tok.kind == "num":
                args.append(int(p.advance().text))
            elif p.tok.kind == "id":
                args.append(p.advance().text)
            else:
                raise p.error("expected argument index or name")
            if p.at(","):
                p.advance()
                continue
            p.expect("]")
            break
        return ("arg", t.pos, args)
    if name in ("rw", "rewrite") and p.peek().kind == "sym" and p.peek().text == "[":
        p.advance()
        return ("rw", t.pos, p.bracket_terms(True))
    if name in _CONV_SIMP:
        p.advance()
        only = False
        if p.at("only"):
            p.advance()
            only = True
        rules = p.bracket_terms(True) if p.at("[") else []
        return ("simp", t.pos, (name, only, rules))
    p._opaque(name, stop | {")"})
    return ("unsupported", t.pos, name)


def parse_calc_steps(p: Any, base: int, stop: frozenset[str]) -> list[tuple[Syn, str, Any]]:
    """``calc`` steps: ``rel := proof``, the later ones ``_ rel := proof``, one per line
    (a proof is ``by`` and a tactic block, or a term); ``p`` is the tactic parser."""
    steps: list[tuple[Syn, str, Any]] = []

    def step_line() -> bool:
        # a later step starts a line with `_`; Lean's `calcSteps` checks its column only
        # against the steps' own position (`withPosition((calcStep ppLine)*)`, colGe), so it
        # may sit at the column of `calc` itself: no tactic starts with `_`
        return p.tok.kind == "nl" and int(p.tok.text) >= base and p.peek().kind == "id" and p.peek().text == "_"

    while True:
        while p.tok.kind == "nl" and int(p.tok.text) > base and not steps or step_line():
            p.advance()
        if steps and not (p.tok.kind == "id" and p.tok.text == "_"):
            break
        # a step's `by` block ends at a line not indented past the step's first column
        line = p.column(p.tok.pos)
        rel = p.term_()
        if not steps and not p.at(":="):
            # Lean's `calcFirstStep := ppIndent(colGe term (" := " term)?)`: `calc a` alone is
            # `a = a := rfl` (lean4 src/Lean/Elab/Calc.lean, getCalcFirstStep)
            steps.append((rel, "first", None))
            if not step_line():
                break
            continue
        p.expect(":=")
        if p.at("by"):
            p.advance()
            steps.append((rel, "by", p.seq(line, stop)))
        else:
            steps.append((rel, "term", p.term_()))
        if not step_line():
            break
    return steps


def parse_simp_config(p: Any) -> None:
    """``simp (config := {decide := true})``: the one simp option read here. ``decide := true``
    lets Lean's simp close decidable closed propositions by ``decide`` (lean4 src/Init/MetaTypes.lean,
    ``Simp.Config.decide``); the embedded simp evaluates closed comparisons already and decides
    nothing else, so the option changes nothing here (never stronger than Lean). Any other
    option is refused: it would change what simp does."""
    if not (p.at("(") and p.peek().kind == "id" and p.peek().text == "config"):
        return
    start = p.tok.pos
    toks = [p.advance() for _ in range(9)]
    texts = [t.text for t in toks]
    if texts[:5] != ["(", "config", ":=", "{", "decide"] or texts[5] != ":=" or texts[6] not in ("true", "false") or texts[7:] != ["}", ")"]:
        raise ParseError("simp configuration other than (config := {decide := true}) is not supported in this fragment", start)
