"""burnqed.data: theorem sets (one JSON Lines format), the built-in sets and the benchmark generator.

Import from the modules: ``burnqed.data.theorems`` (format), ``burnqed.data.sets`` (built-in sets),
``burnqed.data.benchmark`` (generator), ``burnqed.data.automation`` (automation share). Nothing is
re-exported here so that importing the package stays cheap (the checker pulls in z3 and sympy).
"""

__all__: list[str] = []
