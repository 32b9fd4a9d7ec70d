"""The stats server's wing: its factory and the statistics service."""

__all__: list[str] = []
