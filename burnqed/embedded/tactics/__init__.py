"""The tactic interpreter, the proof terms tactics elaborate, and the tactics; ``tactics.table`` lists every tactic the checker runs."""

__all__: list[str] = []
