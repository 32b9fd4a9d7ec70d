"""A preset's stop sequence ends local (transformers) generation where it appears, as a served model's `stop`."""

from __future__ import annotations

from pathlib import Path

from burnqed.policy.config import PolicyConfig
from burnqed.policy.presets import get_preset


def test_a_stop_sequence_ends_local_generation_early(tiny_model_dir: Path) -> None:
    from burnqed.policy.model import PolicyModel

    # seeded sampling: the same tokens again up to the stop (the untrained greedy answer is blank)
    config = PolicyConfig(device="cpu", dtype="float32", max_new_tokens=24, temperature=1.0, top_k=0, seed=0)
    policy = PolicyModel.load(tiny_model_dir, config)
    prompt = "[GOAL]n : Nat\n⊢ n + 0 = n[PROOFSTEP]"
    assert not policy.preset.stop  # plain: no stop sequence
    (full,), (text,), _ = policy._sample([prompt], 1)
    assert len(full) == 24, "the untrained model should run to max_new_tokens here"
    # a stop sequence that the greedy answer holds early: its first visible characters
    stop = text.strip()[:4]
    where = text.find(stop) + len(stop)
    assert len(stop) == 4 and len(policy.tokenizer.decode(full[:-4], skip_special_tokens=True)) >= where
    policy.preset = get_preset("plain").model_copy(update={"stop": (stop,)})
    (cut,), (cut_text,), _ = policy._sample([prompt], 1)
    pad = policy.tokenizer.pad_token_id
    ran = len([t for t in cut if t != pad])
    assert ran < len(full) - 4  # generation stopped at the step the stop sequence was complete
    assert cut == full[: len(cut)]  # the same seeded tokens up to there
    assert stop in cut_text and stop not in policy.tokenizer.decode(cut[: ran - 1], skip_special_tokens=True)
    (cands,) = policy.generate(["n : Nat\n⊢ n + 0 = n"], 1)
    assert all(stop not in c.tactic for c in cands)  # the answer is cut before the stop
