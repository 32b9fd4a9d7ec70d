"""Mathlib notations the Pratt parser (syntax/parser.py) reads after a left side: ``a ≡ b [MOD n]``
(``notation:50 a " ≡ " b " [MOD " n "]" => Nat.ModEq n a b``, Mathlib/Data/Nat/ModEq.lean) and
``a ≡ b [ZMOD n]`` (``Int.ModEq n a b``, Mathlib/Data/Int/ModEq.lean); ``[MOD`` and ``[ZMOD``
are tokens of their own (syntax/lexer.py), as the notation's trimmed atoms are in Lean."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

__all__ = ["modeq_tail"]


def modeq_tail(p: Any, node: Any) -> Any:
    """``node`` is the ``binop`` ``a ≡ b`` just parsed and ``p`` the parser standing after
    ``b``: read ``[MOD n]`` / ``[ZMOD n]`` and return the ``modeq`` node (args ``(n, a, b)``)."""
    if not (p.tok.kind == "sym" and p.tok.text in ("[MOD", "[ZMOD")):
        raise p.error("expected '[MOD' or '[ZMOD'")
    word = p.advance().text[1:]
    mod = p.term(0)
    p.expect("]")
    return replace(node, kind="modeq", value=word, args=(mod, *node.args))
