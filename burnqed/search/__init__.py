"""burnqed.search: best-first proof search, the rule-based policy, and evaluation."""

from burnqed.search.comparison import PairedComparison, compare_reports
from burnqed.search.config import SearchConfig
from burnqed.search.engine import BY_NAME_TAG, BestFirstSearch
from burnqed.search.evaluation import EvalReport, TheoremOutcome
from burnqed.search.protocols import ProofPool, StateScorer, TacticGenerator
from burnqed.search.results import SearchReason, SearchResult, SearchStats
from burnqed.search.rules import RuleGenerator
from burnqed.search.runner import search_theorems

__all__ = [
    "BY_NAME_TAG",
    "BestFirstSearch",
    "EvalReport",
    "ProofPool",
    "PairedComparison",
    "RuleGenerator",
    "SearchConfig",
    "SearchReason",
    "SearchResult",
    "SearchStats",
    "StateScorer",
    "TacticGenerator",
    "TheoremOutcome",
    "compare_reports",
    "search_theorems",
]
