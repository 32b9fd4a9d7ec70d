"""The stats server's wing: its factory and the statistics service."""
