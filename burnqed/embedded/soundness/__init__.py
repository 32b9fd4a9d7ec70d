"""The embedded checker's soundness campaign (``burnqed bench soundness``): attacks that must
all be refused.

- ``campaign``: true statements (handed in by the caller with their reference proofs) turned
  into false ones by mutation, replayed with every known script; alpha-renaming must not
  change a verdict.
- ``families``: false statements drawn from templates aimed at Lean's arithmetic corners.
- ``kernel_attacks``: hostile certificates handed straight to the kernel.
- ``lean_semantics``: the exact oracle (Lean's arithmetic), written apart from the kernel.
"""

__all__: list[str] = []
