"""Building what a search command needs: the policy (model or rules) and the energy head.

``open_components`` is an async context manager: a model policy runs behind the policy's
generation service (one model thread, or a child process with ``policy.service.runner =
"process"``, batching requests from concurrent searches), which lives exactly as long as
the block. With ``policy.backend = "openai"`` the policy is a vLLM / SGLang server: the
service sends each micro-batch as one completions request, ``policy.max_concurrency`` at
once. Heavy imports happen only when a model is used.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import anyio

from burnqed.paths import PathsConfig
from burnqed.policy.config import PolicyConfig
from burnqed.search.protocols import StateScorer, TacticGenerator
from burnqed.search.rules import RuleGenerator

__all__ = ["Components", "PolicyChoice", "open_components"]

PolicyChoice = Literal["model", "none"]


@dataclass(frozen=True, slots=True)
class Components:
    """The generator and scorer of a run, with the ids reports record."""

    generator: TacticGenerator | None
    scorer: StateScorer | None
    policy_id: str
    ebm_id: str | None
    label: str


@asynccontextmanager
async def open_components(
    policy_config: PolicyConfig,
    paths: PathsConfig,
    *,
    policy: PolicyChoice = "model",
    model_dir: Path | None = None,
    ebm: Path | None = None,
) -> AsyncIterator[Components]:
    """The policy (``none``: the rule-based automation policy) and the optional energy head."""
    if policy == "none":
        if ebm is not None:
            rule_scorer, rule_ebm = await _load_scorer(None, None, ebm)
            yield Components(RuleGenerator(), rule_scorer, "none", rule_ebm, "automation_ebm")
        else:
            yield Components(RuleGenerator(), None, "none", None, "automation")
        return

    if policy_config.backend == "openai":
        # the served model is policy.model; model_dir (--model, an iteration's fine-tuned folder) is not used
        async with _served_components(policy_config, ebm=ebm) as served:
            yield served
        return

    from burnqed.policy.tiny import ensure_tiny_model

    # building and loading take seconds: off the event loop, so servers stay responsive
    directory = model_dir or policy_config.model_dir or await anyio.to_thread.run_sync(
        ensure_tiny_model, paths, policy_config.tiny
    )
    async with _local_model(directory, policy_config) as model, _service(model, policy_config) as generator:
        policy_id = f"{directory} ({model.fingerprint})"
        scorer: StateScorer | None = None
        ebm_id: str | None = None
        if ebm is not None:
            source = generator if hasattr(generator, "encode") else model
            scorer, ebm_id = await _load_scorer(source, model, ebm)
        yield Components(generator, scorer, policy_id, ebm_id, "with_ebm" if scorer else "no_ebm")


@asynccontextmanager
async def _local_model(directory: Path, policy_config: PolicyConfig) -> AsyncIterator[Any]:
    """The local model: a PolicyModel here, or a ProcessPolicy child (``policy.service.runner = "process"``)."""
    if policy_config.service.runner == "process":
        from burnqed.policy.process_runner import ProcessPolicy

        async with ProcessPolicy(directory, policy_config) as child:
            yield child
        return
    from burnqed.policy.model import PolicyModel

    yield await anyio.to_thread.run_sync(PolicyModel.load, directory, policy_config)


@asynccontextmanager
async def _served_components(policy_config: PolicyConfig, *, ebm: Path | None) -> AsyncIterator[Components]:
    """A vLLM / SGLang server's policy behind the service; an energy head only on the hashing encoder."""
    from burnqed.policy.openai_api import OpenAIPolicy

    # a served model gives no embeddings: refuse a head trained on a policy's before connecting
    encoder = _served_encoder(ebm) if ebm is not None else None
    async with OpenAIPolicy.connect(policy_config) as model, _service(model, policy_config) as generator:
        policy_id = f"openai {model.model} at {model.base_url}"
        scorer: StateScorer | None = None
        ebm_id: str | None = None
        if ebm is not None and encoder is not None:
            scorer, ebm_id = await _load_scorer(encoder, encoder, ebm)
        yield Components(generator, scorer, policy_id, ebm_id, "with_ebm" if scorer else "no_ebm")


def _served_encoder(ckpt: Path) -> Any:
    """The hashing encoder the head at ``ckpt`` was trained on; PolicyEmbeddingsUnavailable otherwise."""
    from burnqed.ebm.checkpoint import check_head_dir
    from burnqed.ebm.encoder import HashingEncoder
    from burnqed.policy.errors import PolicyEmbeddingsUnavailable

    trained_on = check_head_dir(ckpt).encoder_fingerprint
    encoder = HashingEncoder.from_fingerprint(trained_on)
    if encoder is None:
        raise PolicyEmbeddingsUnavailable(
            f"the energy head {ckpt} was trained on the policy's embeddings ({trained_on}), which a served policy "
            'does not give: search with policy.backend = "local", or train a head on the hashing encoder '
            "(burnqed train-ebm --encoder hashing:256)"
        )
    return encoder


@asynccontextmanager
async def _service(model: Any, policy_config: PolicyConfig) -> AsyncIterator[Any]:
    """The generation service over ``model``."""
    from burnqed.policy.service import GenerationService

    async with GenerationService(model, policy_config.service) as service:
        yield service


async def _load_scorer(encoder_source: Any, model: Any, ckpt: Path) -> tuple[StateScorer, str]:
    """The energy head at ``ckpt`` over the policy's embeddings (or the hashing encoder)."""
    from burnqed.ebm.encoder import HashingEncoder, PolicyEncoder
    from burnqed.ebm.scorer import EBMScorer

    if encoder_source is None:
        # no model: the energy head must have been trained on the hashing encoder
        encoder: Any = HashingEncoder()
    elif isinstance(encoder_source, HashingEncoder):
        encoder = encoder_source
    else:
        encoder = PolicyEncoder(encoder_source, fingerprint=model.fingerprint, dim=model.hidden_size)
    scorer = await anyio.to_thread.run_sync(EBMScorer.load, ckpt, encoder)
    return scorer, str(ckpt)
