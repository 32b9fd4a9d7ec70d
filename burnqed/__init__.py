"""burnqed: Lean 4 theorem proving by best-first search, an energy head and expert iteration."""

__version__ = "0.1.0"
__all__ = ["__version__"]
