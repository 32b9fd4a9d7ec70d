"""From the elaborator to the kernel: goals translated into kernel sequents, the check of a request's steps, kernel proofs of the built-in lemmas."""

__all__: list[str] = []
