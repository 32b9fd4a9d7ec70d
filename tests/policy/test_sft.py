"""Supervised fine-tuning: the tiny policy learns tactics; checkpoints round-trip."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime
from pathlib import Path

import pytest
import torch

from burnqed.policy.config import PolicyConfig, SFTConfig
from burnqed.policy.errors import SFTError
from burnqed.policy.model import PolicyModel
from burnqed.policy.sft import SFTReport, load_pairs, sft_policy

_VARS = ["n", "m", "k", "a", "b", "x", "y", "z"]
_HYPS = ["h", "h₁", "h₂", "hab", "hx", "hp"]


def _template_pairs(count: int, seed: int) -> list[tuple[str, str]]:
    """(state, first tactic) from six template families; the tactic may copy a name from the state."""
    rng = random.Random(seed)
    pairs: list[tuple[str, str]] = []
    for _ in range(count):
        v, w = rng.sample(_VARS, 2)
        h = rng.choice(_HYPS)
        family = [
            (f"{v} : ℕ\n⊢ {v} + 0 = {v}", "simp"),
            (f"⊢ ∀ ({v} : ℕ), {v} + 0 = {v}", f"intro {v}"),
            (f"{h} : P\n⊢ P", f"exact {h}"),
            (f"{h} : P\n⊢ P ∧ Q", "constructor"),
            (f"{v} {w} : ℤ\n⊢ {v} + {w} = {w} + {v}", "ring"),
            (f"{v} : ℕ\n{h} : {v} < 5\n⊢ {v} < 10", "omega"),
        ]
        pairs.append(family[rng.randrange(len(family))])
    return list(dict.fromkeys(pairs))


@pytest.fixture(scope="module")
def trained(tiny_model_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, SFTReport, list]:
    """The tiny model after SFT on the template pairs (fixed seed)."""
    pairs = _template_pairs(400, seed=0)
    out = tmp_path_factory.mktemp("sft") / "policy"
    report = sft_policy(tiny_model_dir, pairs, out, SFTConfig(epochs=12, batch_size=16, learning_rate=3e-3, seed=0))
    return out, report, pairs


def test_sft_lowers_the_loss_and_reports_its_curve(trained: tuple[Path, SFTReport, list]) -> None:
    out, report, pairs = trained
    assert report.num_pairs == len(pairs)
    assert report.steps == 12 * -(-len(pairs) // 16)
    assert report.epoch_losses[-1] < report.epoch_losses[0] / 5
    assert report.loss_curve[-1][0] == report.steps
    assert SFTReport.model_validate_json((out / "sft_report.json").read_text()) == report


def test_after_sft_the_reference_tactic_is_in_the_top_four(trained: tuple[Path, SFTReport, list]) -> None:
    out, _, pairs = trained
    policy = PolicyModel.load(out, PolicyConfig(device="cpu", max_new_tokens=12, seed=0))
    sample = pairs[:48]
    results = policy.generate([s for s, _ in sample], 4)
    hits = sum(any(c.tactic == tactic for c in cands[:4]) for cands, (_, tactic) in zip(results, sample, strict=True))
    assert hits / len(sample) >= 0.6


def test_checkpoint_round_trip_reproduces_the_trained_model(
    trained: tuple[Path, SFTReport, list], tmp_path: Path
) -> None:
    out, _, pairs = trained
    config = PolicyConfig(device="cpu", temperature=0.0, max_new_tokens=12)
    first = PolicyModel.load(out, config)
    first.model.save_pretrained(tmp_path / "again")
    first.tokenizer.save_pretrained(tmp_path / "again")
    second = PolicyModel.load(tmp_path / "again", config)
    states = [s for s, _ in pairs[:6]]
    assert second.generate(states, 1) == first.generate(states, 1)
    torch.testing.assert_close(second.encode(states), first.encode(states), atol=0, rtol=0)
    assert first.fingerprint != PolicyModel.load(trained[1].base_dir, config).fingerprint


def test_no_pairs_is_an_sft_error(tiny_model_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(SFTError, match="no .* pairs"):
        sft_policy(tiny_model_dir, [], tmp_path / "out")


def test_missing_base_is_an_sft_error(tmp_path: Path) -> None:
    with pytest.raises(SFTError, match="cannot load the base model"):
        sft_policy(tmp_path / "nope", [("⊢ True", "trivial")], tmp_path / "out")


def test_lora_without_peft_says_how_to_install_it(tiny_model_dir: Path, tmp_path: Path) -> None:
    try:
        import peft  # noqa: F401
    except ImportError:
        with pytest.raises(SFTError, match="burnqed\\[lora\\]"):
            sft_policy(tiny_model_dir, [("⊢ True", "trivial")], tmp_path / "out", SFTConfig(lora=True))
    else:
        report = sft_policy(tiny_model_dir, [("⊢ True", "trivial")], tmp_path / "out", SFTConfig(lora=True, epochs=1))
        assert report.lora and PolicyModel.load(tmp_path / "out").hidden_size == 128


def test_pairs_load_from_jsonl(tmp_path: Path) -> None:
    path = tmp_path / "pairs.jsonl"
    path.write_text('{"state": "⊢ True", "tactic": "trivial"}\n\n{"state": "h : P\\n⊢ P", "tactic": "exact h"}\n')
    assert load_pairs(path) == [("⊢ True", "trivial"), ("h : P\n⊢ P", "exact h")]
    path.write_text('{"state": "⊢ True"}\n')
    with pytest.raises(SFTError, match=":1:"):
        load_pairs(path)


def test_pairs_load_from_trajectory_parquet_proof_paths(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from burnqed.trajectory.schema import SCHEMA

    now = datetime.now(UTC)
    rows = [
        # node, parent, state, tactic, label
        (0, None, "⊢ P ∧ Q", None, 1),
        (1, 0, "case left\n⊢ P", "constructor", 1),
        (2, 0, "⊢ False", "exfalso", 0),
        (3, 1, "no goals", "exact hp", 1),
    ]
    table = pa.Table.from_pylist(
        [
            {
                "theorem": "t", "statement_sha": "s", "node_id": node, "parent_id": parent, "state_id": None,
                "state": state, "tactic": tactic, "depth": 0, "remaining_depth": None, "label": label,
                "log_prob": None, "energy": None, "proof_complete": node == 3, "iteration": 0,
                "backend": "embedded", "timestamp": now,
            }
            for node, parent, state, tactic, label in rows
        ],
        schema=SCHEMA,
    )
    pq.write_table(table, tmp_path / "iter_0.parquet")
    assert load_pairs(tmp_path / "iter_0.parquet") == [("⊢ P ∧ Q", "constructor"), ("case left\n⊢ P", "exact hp")]
    (tmp_path / "pairs.json").write_text(json.dumps([]))


def test_a_finished_save_clears_a_killed_saves_temp_folder_and_records_hashes(
    tiny_model_dir: Path, tmp_path: Path
) -> None:
    """Issue 41: `.iter_N.saving-PID/` stayed beside a checkpoint after a successful resume."""
    from burnqed.files import CHECKSUMS_FILE, checksum_mismatches

    out = tmp_path / "iter_1"
    left = tmp_path / ".iter_1.saving-999999"
    left.mkdir()
    (left / "model.safetensors").write_bytes(b"half")
    sft_policy(tiny_model_dir, _template_pairs(20, seed=1), out, SFTConfig(epochs=1, batch_size=8, seed=0))
    assert not left.exists()
    assert (out / CHECKSUMS_FILE).is_file() and checksum_mismatches(out) == []


def test_a_full_disk_while_the_policy_is_saved_is_one_line_and_leaves_no_temp_folder(
    tiny_model_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 41: a 64-line traceback when the disk filled while a checkpoint was saved (safetensors'
    SafetensorError quotes "No space left on device (os error 28)"; it is no OSError)."""
    import transformers.modeling_utils
    from safetensors import SafetensorError

    from burnqed.cli import main

    def full(*args: object, **kwargs: object) -> None:
        raise SafetensorError("Error while serializing: I/O error: No space left on device (os error 28)")

    monkeypatch.setattr(transformers.modeling_utils, "safe_save_file", full)
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("".join(json.dumps({"state": f"h{i} : P\n⊢ P", "tactic": f"exact h{i}"}) + "\n" for i in range(4)))
    out = tmp_path / "out"
    code = main(["policy", "sft", "--pairs", str(pairs), "--base", str(tiny_model_dir), "--output", str(out),
                 "--epochs", "1", "--batch-size", "4"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(err) == 1 and "Traceback" not in err[0], err
    assert err[0].startswith(f"burnqed policy sft: No space left on device while saving {out};")
    assert "run the same command again" in err[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pairs.jsonl"]  # no half-written .out.saving-PID/
