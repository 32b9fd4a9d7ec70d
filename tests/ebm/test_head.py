"""The energy head: shapes, spectral normalisation, learned temperature, exact rebuild."""

from __future__ import annotations

import math

import pytest
import torch
from torch.nn.utils import parametrize

from burnqed.ebm import EBMConfig, EnergyHead, EnergyHeadConfig


def test_forward_maps_embeddings_to_one_energy_each() -> None:
    head = EnergyHead(16, hidden=(32, 8), dropout=0.1)
    assert head(torch.randn(5, 16)).shape == (5,)
    energies, loss = head.group_loss(
        torch.randn(3, 4, 16), torch.tensor([1.0, 2.0, 0.0]), depth_weight=0.5, depth_scale=0.1
    )
    assert energies.shape == (3, 4)
    assert loss.total.shape == ()
    assert torch.allclose(loss.total, loss.nce + 0.5 * loss.depth)


def test_every_linear_layer_is_spectral_normalised() -> None:
    head = EnergyHead(16, hidden=(32, 8))
    linears = [m for m in head.modules() if isinstance(m, torch.nn.Linear)]
    assert [(m.in_features, m.out_features) for m in linears] == [(16, 32), (32, 8), (8, 1)]
    assert all(parametrize.is_parametrized(m, "weight") for m in linears)
    head.train()
    for _ in range(30):  # power iteration converges during training forwards
        head(torch.randn(4, 16))
    for m in linears:
        assert torch.linalg.matrix_norm(m.weight.detach(), ord=2) <= 1.05


def test_default_architecture_matches_the_design() -> None:
    head = EnergyHead(8)
    assert head.config.hidden == (512, 256)
    assert any(isinstance(m, torch.nn.SiLU) for m in head.modules())
    assert any(isinstance(m, torch.nn.Dropout) for m in head.modules())


def test_temperature_is_a_learned_parameter() -> None:
    head = EnergyHead(4, hidden=(8,), init_temperature=0.5)
    assert math.isclose(head.temperature.item(), 0.5, rel_tol=1e-6)
    assert any(p is head.log_temperature for p in head.parameters())
    _, loss = head.group_loss(torch.randn(2, 3, 4), torch.zeros(2), depth_weight=0.0, depth_scale=0.1)
    loss.total.backward()
    assert head.log_temperature.grad is not None


def test_from_config_rebuilds_the_same_architecture() -> None:
    head = EnergyHead(6, hidden=[10], dropout=0.2, init_temperature=2.0)
    clone = EnergyHead.from_config(EnergyHeadConfig.model_validate(head.config.model_dump(mode="json")))
    assert clone.config == head.config
    assert clone.state_dict().keys() == head.state_dict().keys()


def test_fit_input_standardises_so_an_offset_and_scale_of_the_embeddings_do_not_matter() -> None:
    torch.manual_seed(0)
    emb = torch.randn(50, 4)
    head = EnergyHead(4, hidden=(8,), dropout=0.0).eval()
    head.fit_input(emb)
    shifted = EnergyHead(4, hidden=(8,), dropout=0.0).eval()
    shifted.load_state_dict(head.state_dict())
    shifted.fit_input(emb * 3.0 + 7.0)  # the same states, embedded with another offset and spread
    assert torch.allclose(head(emb), shifted(emb * 3.0 + 7.0), atol=1e-5)
    assert "input_mean" in head.state_dict() and "input_std" in head.state_dict()


def test_nce_weight_zero_trains_the_remaining_depth_regression_alone() -> None:
    head = EnergyHead(4, hidden=(8,))
    groups, depth = torch.randn(3, 2, 4), torch.tensor([1.0, 2.0, 3.0])
    _, loss = head.group_loss(groups, depth, depth_weight=1.0, depth_scale=1.0, nce_weight=0.0)
    assert torch.allclose(loss.total, loss.depth)
    with pytest.raises(ValueError, match="nce_weight"):
        EBMConfig(nce_weight=0.0, depth_weight=0.0)


def test_garbled_head_weights_are_named_by_their_hash_before_use(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Issue 41: a garbled checkpoint was scored with (exit 0) or blamed on the encoder."""
    from burnqed.ebm.checkpoint import HeadCheckpointMeta, load_head, save_head
    from burnqed.ebm.errors import EBMCheckpointError

    head = EnergyHead(6, hidden=[10])
    save_head(head, tmp_path, HeadCheckpointMeta(head=head.config, encoder_fingerprint="enc"))
    load_head(tmp_path)  # whole: it loads
    weights = tmp_path / "head.safetensors"
    data = bytearray(weights.read_bytes())
    data[-4] ^= 0xFF  # a tensor byte: the safetensors header still reads
    weights.write_bytes(bytes(data))
    with pytest.raises(EBMCheckpointError, match=r"head\.safetensors does not match its hash"):
        load_head(tmp_path)
