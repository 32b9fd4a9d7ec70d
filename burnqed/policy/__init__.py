"""burnqed.policy: tactic generation and state embeddings (transformers).

Importing this package is cheap: torch and transformers load when a model is built,
loaded or fine-tuned, and the HTTP client when ``OpenAIPolicy`` (a vLLM / SGLang server)
is first used.
"""

from __future__ import annotations

from burnqed.lazy import lazy_exports

# each public name once, under the module that defines it: it loads on first use (importing
# one submodule, a config, must not import the package's heavy modules)
_EXPORTS: dict[str, tuple[str, ...]] = {
    "burnqed.policy.config": ("PolicyConfig", "ServiceConfig", "SFTConfig", "TinyModelConfig"),
    "burnqed.policy.errors": (
        "PolicyEmbeddingsUnavailable", "PolicyError", "PolicyGenerationError", "PolicyLoadError",
        "PolicyModelNotServed", "PolicyRemoteCodeRefused", "PolicyServerError",
        "PolicyServerUnavailable", "ServiceClosed", "ServiceError", "ServiceNotRunning", "SFTError",
    ),
    "burnqed.policy.model": ("PolicyModel", "checkpoint_fingerprint"),
    "burnqed.policy.openai_api": ("OpenAIPolicy",),
    "burnqed.policy.presets": ("PRESETS", "ModelPreset", "PresetError", "get_preset", "render_prompt"),
    "burnqed.policy.prompts": (
        "PromptFormat", "completion_text", "extract_first_tactic", "fit_state", "format_prompt",
    ),
    "burnqed.policy.service": ("GenerationService", "ServiceStats"),
    "burnqed.policy.sft": ("SFTReport", "load_pairs", "sft_policy"),
    "burnqed.policy.tiny": ("build_tiny_model", "ensure_tiny_model", "template_corpus", "tiny_corpus"),
    "burnqed.policy.types": ("PromptContext", "TacticCandidate"),
}

__all__ = sorted(name for names in _EXPORTS.values() for name in names)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
