"""burnqed.policy: tactic generation and state embeddings (transformers).

Importing this package is cheap: torch and transformers load when a model is built,
loaded or fine-tuned.
"""

from burnqed.policy.config import (
    PolicyConfig,
    ServiceConfig,
    SFTConfig,
    TinyModelConfig,
)
from burnqed.policy.errors import (
    PolicyError,
    PolicyGenerationError,
    PolicyLoadError,
    ServiceClosed,
    ServiceError,
    ServiceNotRunning,
    SFTError,
)
from burnqed.policy.model import PolicyModel, checkpoint_fingerprint
from burnqed.policy.prompts import (
    PromptFormat,
    completion_text,
    extract_first_tactic,
    fit_state,
    format_prompt,
)
from burnqed.policy.service import GenerationService, ServiceStats
from burnqed.policy.sft import SFTReport, load_pairs, sft_policy
from burnqed.policy.tiny import (
    build_tiny_model,
    ensure_tiny_model,
    template_corpus,
    tiny_corpus,
)
from burnqed.policy.types import TacticCandidate

__all__ = [
    "GenerationService",
    "PolicyConfig",
    "PolicyError",
    "PolicyGenerationError",
    "PolicyLoadError",
    "PolicyModel",
    "PromptFormat",
    "SFTConfig",
    "SFTError",
    "SFTReport",
    "ServiceClosed",
    "ServiceConfig",
    "ServiceError",
    "ServiceNotRunning",
    "ServiceStats",
    "TacticCandidate",
    "TinyModelConfig",
    "build_tiny_model",
    "checkpoint_fingerprint",
    "completion_text",
    "ensure_tiny_model",
    "extract_first_tactic",
    "fit_state",
    "format_prompt",
    "load_pairs",
    "sft_policy",
    "template_corpus",
    "tiny_corpus",
]
