"""What the commands build: the rule policy, the model behind the generation service, an energy head."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from burnqed.config import BurnqedConfig
from burnqed.paths import PathsConfig
from burnqed.policy.config import PolicyConfig
from burnqed.search.components import open_components
from burnqed.search.rules import RuleGenerator

pytestmark = pytest.mark.anyio

STATE = "n : Nat\n⊢ n + 0 = n"


def _head_checkpoint(tmp_path: Path, dim: int, fingerprint: str) -> Path:
    from burnqed.ebm.checkpoint import HeadCheckpointMeta, save_head
    from burnqed.ebm.head import EnergyHead

    head = EnergyHead(dim, (16,), dropout=0.0)
    out = tmp_path / "ebm"
    save_head(head, out, HeadCheckpointMeta(head=head.config, encoder_fingerprint=fingerprint))
    return out


async def test_policy_none_is_the_rule_generator_and_takes_a_hashing_energy_head(tmp_path: Path) -> None:
    from burnqed.ebm.encoder import HashingEncoder

    enc = HashingEncoder()
    ckpt = _head_checkpoint(tmp_path, enc.dim, enc.fingerprint)
    async with open_components(PolicyConfig(), PathsConfig(), policy="none") as plain:
        assert isinstance(plain.generator, RuleGenerator) and plain.scorer is None
        assert (plain.policy_id, plain.label) == ("none", "automation")
    async with open_components(PolicyConfig(), PathsConfig(), policy="none", ebm=ckpt) as scored:
        assert scored.scorer is not None and scored.ebm_id == str(ckpt)
        energies = await scored.scorer.score([STATE, "⊢ True"])
    assert len(energies) == 2 and all(isinstance(e, float) for e in energies)


async def test_model_policy_runs_behind_the_generation_service(tiny_model_dir: Path, tmp_path: Path) -> None:
    config = BurnqedConfig.model_validate(
        {"policy": {"device": "cpu", "dtype": "float32", "max_new_tokens": 8, "max_prompt_tokens": 128}}
    )
    with anyio.fail_after(120):
        async with open_components(config.policy, config.paths, model_dir=tiny_model_dir) as comps:
            assert comps.label == "no_ebm" and str(tiny_model_dir) in comps.policy_id
            assert comps.generator is not None
            (cands,) = await comps.generator.generate([STATE], 2)
    assert 1 <= len(cands) <= 2 and all(c.log_prob <= 0 for c in cands)
