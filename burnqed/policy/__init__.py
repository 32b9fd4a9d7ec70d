"""burnqed.policy: tactic generation and state embeddings (transformers).

Importing this package is cheap: torch and transformers load when a model is built,
loaded or fine-tuned, and the HTTP client when ``OpenAIPolicy`` (a vLLM / SGLang server)
is first used.
"""

from typing import TYPE_CHECKING

from burnqed.lazy import lazy_exports
from burnqed.policy.config import (
    PolicyConfig,
    ServiceConfig,
    SFTConfig,
    TinyModelConfig,
)
from burnqed.policy.errors import (
    PolicyEmbeddingsUnavailable,
    PolicyError,
    PolicyGenerationError,
    PolicyLoadError,
    PolicyModelNotServed,
    PolicyRemoteCodeRefused,
    PolicyServerError,
    PolicyServerUnavailable,
    ServiceClosed,
    ServiceError,
    ServiceNotRunning,
    SFTError,
)
from burnqed.policy.model import PolicyModel, checkpoint_fingerprint
from burnqed.policy.presets import PRESETS, ModelPreset, PresetError, get_preset, render_prompt
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
from burnqed.policy.types import PromptContext, TacticCandidate

if TYPE_CHECKING:
    from burnqed.policy.openai_api import OpenAIPolicy

# httpx2 loads on first use of the served backend (dir() stays the module's own)
__getattr__ = lazy_exports(__name__, {"OpenAIPolicy": "burnqed.policy.openai_api"})[0]

__all__ = [
    "PRESETS",
    "GenerationService",
    "ModelPreset",
    "PresetError",
    "PromptContext",
    "PolicyRemoteCodeRefused",
    "get_preset",
    "render_prompt",
    "OpenAIPolicy",
    "PolicyConfig",
    "PolicyEmbeddingsUnavailable",
    "PolicyError",
    "PolicyGenerationError",
    "PolicyLoadError",
    "PolicyModel",
    "PolicyModelNotServed",
    "PolicyServerError",
    "PolicyServerUnavailable",
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
