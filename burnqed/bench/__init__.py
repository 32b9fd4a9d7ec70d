"""The benchmarks behind ``burnqed bench NAME``: one module per NAME, each with
``async def bench(config, quick) -> dict`` (JSON the command prints). Targets are checked
here, by ratios measured in one run, never by timed assertions in tests."""

__all__: list[str] = []
