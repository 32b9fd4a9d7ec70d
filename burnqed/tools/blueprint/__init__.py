"""The blueprint server's wing: its factory, its tools' logic and the proof gate."""

__all__: list[str] = []
