"""Type metavariables of elaboration (union-find with Lean's default instances) and the
error elaboration raises."""

from __future__ import annotations

__all__ = ["ElabError", "TypeVars", "is_type_var", "join_types"]


class ElabError(Exception):
    """A term that parses but does not elaborate in the fragment."""

    def __init__(self, message: str, pos: int) -> None:
        super().__init__(message)
        self.message = message
        self.pos = pos


def is_type_var(ty: str) -> bool:
    """Whether ``ty`` names a type metavariable (``?k``)."""
    return ty.startswith("?")


class TypeVars:
    """Type metavariables ``?k`` (union-find), each class with the default instances its
    members call for: "neg" (``Neg Int``, priority mid), "num" (``OfNat Nat``, low) and
    "exp" (the ℕ exponent of ``Monoid.npow``)."""

    def __init__(self) -> None:
        self.parent: list[int] = []
        self.value: list[str | None] = []
        self.flags: list[set[str]] = []

    def new(self, *flags: str) -> str:
        """A fresh type metavariable."""
        self.parent.append(len(self.parent))
        self.value.append(None)
        self.flags.append(set(flags))
        return f"?{len(self.parent) - 1}"

    def _root(self, ty: str) -> int:
        i = int(ty[1:])
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def get(self, ty: str) -> str | None:
        """The type ``ty`` stands for now (None: still open)."""
        return self.value[self._root(ty)] if is_type_var(ty) else ty

    def flag(self, ty: str, flag: str) -> None:
        """Record a default instance the class of ``ty`` calls for."""
        if is_type_var(ty):
            self.flags[self._root(ty)].add(flag)

    def assign(self, ty: str, to: str, pos: int) -> None:
        """Fix the type ``ty`` stands for (ElabError on a mismatch)."""
        have = self.get(ty)
        if have is None:
            self.value[self._root(ty)] = to
        elif have != to:
            raise ElabError(f"type mismatch: a term of type {have} where {to} is expected", pos)

    def union(self, a: str, b: str, pos: int) -> None:
        """Make ``a`` and ``b`` one type (ElabError on a mismatch)."""
        ta, tb = self.get(a), self.get(b)
        if ta is not None and tb is not None:
            if ta != tb:
                raise ElabError(f"type mismatch: {ta} and {tb}", pos)
            return
        if ta is not None:
            self.assign(b, ta, pos)
        elif tb is not None:
            self.assign(a, tb, pos)
        else:
            ra, rb = self._root(a), self._root(b)
            if ra != rb:
                self.parent[rb] = ra
                self.flags[ra] |= self.flags[rb]

    def settle(self, ty: str) -> str | None:
        """The type, open ones settled by their default instances (and kept)."""
        have = self.get(ty)
        if have is not None or not is_type_var(ty):
            return have
        r = self._root(ty)
        flags = self.flags[r]
        got = "Int" if "neg" in flags else "Nat" if flags & {"num", "exp"} else None
        self.value[r] = got
        return got


def join_types(a: str | None, b: str) -> str:
    """The type of a tree with leaves of types ``a`` and ``b`` (ℕ < ℤ)."""
    return "Int" if "Int" in (a, b) else b
