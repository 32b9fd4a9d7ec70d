"""The coordinator's entry points (thin: the logic is burnqed.coordination)."""
