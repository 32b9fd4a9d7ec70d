"""Named arguments ``(x := e)`` in applications (issue 37): Lean's ``namedArgument``
(lean4 ``src/Lean/Parser/Term.lean``: ``"(" ident " := " term ")"``), read as a ``named`` node
(value = the name, args = (e,)); tactics/proofterm_named.py elaborates it."""

from __future__ import annotations

from typing import Any

__all__ = ["named_argument"]


def named_argument(p: Any, syn: Any) -> Any:
    """The named argument at the parser's position as a ``syn`` node, or None (``p``: the term
    parser; ``syn``: its node class, passed in so that this module does not import it)."""
    if not (p.at("(") and p.peek().kind == "id" and p.peek(2).kind == "sym" and p.peek(2).text == ":="):
        return None
    pos = p.advance().pos
    name = p.advance().text
    p.advance()
    value = p.term(0)
    p.expect(")")
    return syn("named", pos, name, (value,))
