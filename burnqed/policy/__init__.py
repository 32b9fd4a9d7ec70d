"""burnqed.policy: tactic generation and state embeddings (transformers)."""
