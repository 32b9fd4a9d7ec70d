"""Decision procedures and certificates: z3 (smt), sympy (polynomials), Mathlib's linarith preprocessing, the certificate search for the kernel's arith rule."""

__all__: list[str] = []
