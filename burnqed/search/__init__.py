"""burnqed.search: best-first proof search, the rule-based policy, and evaluation."""

from burnqed.search.config import SearchConfig
from burnqed.search.engine import BestFirstSearch
from burnqed.search.protocols import StateScorer, TacticGenerator
from burnqed.search.results import SearchResult, SearchStats
from burnqed.search.rules import RuleGenerator
from burnqed.search.runner import search_theorems

__all__ = [
    "BestFirstSearch",
    "RuleGenerator",
    "SearchConfig",
    "SearchResult",
    "SearchStats",
    "StateScorer",
    "TacticGenerator",
    "search_theorems",
]
