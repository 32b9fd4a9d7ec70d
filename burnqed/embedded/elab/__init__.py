"""Elaboration: surface syntax to typed terms, goals and proof states, Lean's arithmetic on closed terms, unification and the built-in lemmas' statements."""

__all__: list[str] = []
