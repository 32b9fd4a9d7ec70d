"""burnqed.search: best-first proof search, the rule-based policy, and evaluation."""

from __future__ import annotations

from burnqed.lazy import lazy_exports

# each public name once, under the module that defines it: it loads on first use (importing
# one submodule, a config, must not import the package's heavy modules)
_EXPORTS: dict[str, tuple[str, ...]] = {
    "burnqed.search.comparison": ("PairedComparison", "compare_reports"),
    "burnqed.search.config": ("SearchConfig",),
    "burnqed.search.engine": ("BY_NAME_TAG", "BestFirstSearch"),
    "burnqed.search.evaluation": ("EvalReport", "TheoremOutcome"),
    "burnqed.search.protocols": ("ProofPool", "StateScorer", "TacticGenerator"),
    "burnqed.search.results": ("SearchReason", "SearchResult", "SearchStats"),
    "burnqed.search.rules": ("RuleGenerator",),
    "burnqed.search.runner": ("search_theorems",),
}

__all__ = sorted(name for names in _EXPORTS.values() for name in names)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
