"""Surface syntax of the fragment: the lexer, the Pratt term parser and the tactic parser."""

__all__: list[str] = []
