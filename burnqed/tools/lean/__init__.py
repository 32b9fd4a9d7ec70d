"""The lean_pool server's wing: its factory, its tools' logic and models, proof-handle leases and fair lanes."""

__all__: list[str] = []
