"""Losses on hand-computed values."""

from __future__ import annotations

import math

import torch

from burnqed.ebm import depth_regression_loss, info_nce_loss


def test_info_nce_of_one_group_matches_the_formula() -> None:
    # logits = -E / T = [0, -1, -2]; loss = log(1 + e^-1 + e^-2)
    loss = info_nce_loss(torch.tensor([[0.0, 1.0, 2.0]]), 1.0)
    assert math.isclose(loss.item(), math.log(1 + math.exp(-1) + math.exp(-2)), rel_tol=1e-6)


def test_info_nce_divides_by_the_temperature_and_averages_groups() -> None:
    energies = torch.tensor([[1.0, 1.0], [0.0, 1.0]])
    # group 1: equal energies -> log 2; group 2 at T=0.5: logits [0, -2] -> log(1 + e^-2)
    expected = (math.log(2) + math.log(1 + math.exp(-2))) / 2
    assert math.isclose(info_nce_loss(energies, torch.tensor(0.5)).item(), expected, rel_tol=1e-6)


def test_lower_positive_energy_gives_lower_info_nce() -> None:
    good = info_nce_loss(torch.tensor([[-3.0, 0.0, 0.0]]), 1.0)
    bad = info_nce_loss(torch.tensor([[3.0, 0.0, 0.0]]), 1.0)
    assert good < bad


def test_depth_regression_is_mse_to_scaled_remaining_depth() -> None:
    # targets 0.1 * [0, 2, 5] = [0, 0.2, 0.5]; errors [0.1, 0, -0.5]; mse = 0.26 / 3
    loss = depth_regression_loss(torch.tensor([0.1, 0.2, 0.0]), torch.tensor([0, 2, 5]), scale=0.1)
    assert math.isclose(loss.item(), 0.26 / 3, rel_tol=1e-5)
