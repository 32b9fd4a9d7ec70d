"""The search server's wing: its factory, its tools' logic, its typed results and the component host."""

__all__: list[str] = []
