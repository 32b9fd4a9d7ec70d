"""Loading, batched generation and encoding of the policy model."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import torch

from burnqed.policy.config import PolicyConfig
from burnqed.policy.errors import PolicyLoadError
from burnqed.policy.model import PolicyModel, checkpoint_fingerprint

STATES = [
    "n : ℕ\n⊢ n + 0 = n",
    "⊢ ∀ (a b : ℤ), a + b = b + a",
    "h : P\nh' : Q\n⊢ P ∧ Q",
    "x y : ℕ\nhx : x < 5\nhy : y ≤ x + 3 * x * x\n⊢ x + y < 100 + 7 * x",
]


def test_missing_directory_says_what_to_put_where(tmp_path: Path) -> None:
    with pytest.raises(PolicyLoadError, match=r"does not exist.*config\.json.*safetensors.*build-tiny"):
        PolicyModel.load(tmp_path / "nowhere")


def test_file_instead_of_directory_is_a_load_error(tmp_path: Path) -> None:
    path = tmp_path / "model.safetensors"
    path.write_bytes(b"x")
    with pytest.raises(PolicyLoadError, match="is a file"):
        PolicyModel.load(path)


@pytest.mark.parametrize(
    ("remove", "message"),
    [("config.json", "no config.json"), ("model.safetensors", "no weights"), ("tokenizer*", "no tokenizer")],
)
def test_incomplete_directory_names_the_missing_part(
    tiny_model_dir: Path, tmp_path: Path, remove: str, message: str
) -> None:
    copy = Path(shutil.copytree(tiny_model_dir, tmp_path / "m"))
    for path in copy.glob(remove):
        path.unlink()
    with pytest.raises(PolicyLoadError, match=message):
        PolicyModel.load(copy)


def test_corrupt_weights_are_a_load_error_not_a_crash(tiny_model_dir: Path, tmp_path: Path) -> None:
    copy = Path(shutil.copytree(tiny_model_dir, tmp_path / "m"))
    (copy / "model.safetensors").write_bytes(b"not a safetensors file")
    with pytest.raises(PolicyLoadError, match="cannot load"):
        PolicyModel.load(copy, PolicyConfig(device="cpu"))


def test_loaded_tiny_model_reports_its_shape(tiny_policy: PolicyModel) -> None:
    assert tiny_policy.hidden_size == 128
    assert tiny_policy.tokenizer.padding_side == "left"
    assert len(tiny_policy.fingerprint) == 16


def test_generate_returns_deduplicated_candidates_best_first(tiny_policy: PolicyModel) -> None:
    results = tiny_policy.generate(STATES, 6)
    assert len(results) == len(STATES)
    for cands in results:
        assert 1 <= len(cands) <= 6
        tactics = [c.tactic for c in cands]
        assert len(set(tactics)) == len(tactics)
        assert all(t.strip() for t in tactics)
        log_probs = [c.log_prob for c in cands]
        assert log_probs == sorted(log_probs, reverse=True)
        assert all(lp < 0 for lp in log_probs)


def test_generate_of_nothing_is_nothing(tiny_policy: PolicyModel) -> None:
    assert tiny_policy.generate([], 4) == []
    assert tiny_policy.encode([]).shape == (0, 128)


def _greedy(tiny_model_dir: Path) -> PolicyModel:
    config = PolicyConfig(device="cpu", dtype="float32", temperature=0.0, max_new_tokens=10, max_prompt_tokens=160)
    return PolicyModel.load(tiny_model_dir, config)


def test_batched_greedy_equals_one_at_a_time(tiny_model_dir: Path) -> None:
    policy = _greedy(tiny_model_dir)
    batched = policy.generate(STATES, 1)
    single = [policy.generate([s], 1)[0] for s in STATES]
    assert [[c.tactic for c in cs] for cs in batched] == [[c.tactic for c in cs] for cs in single]
    for b, s in zip(batched, single, strict=True):
        assert [c.log_prob for c in b] == pytest.approx([c.log_prob for c in s], abs=1e-3)
    # the raw continuations too, not only those with a tactic in them
    prompts = [policy.prompt(s) for s in STATES]
    tokens, _, log_probs = policy._sample(prompts, 1)
    for i, prompt in enumerate(prompts):
        one_tokens, _, one_lp = policy._sample([prompt], 1)
        assert one_tokens == [tokens[i]]
        assert one_lp[0] == pytest.approx(log_probs[i], abs=1e-3)


def test_greedy_log_prob_is_the_models_own_sequence_probability(tiny_model_dir: Path) -> None:
    policy = _greedy(tiny_model_dir)
    tokens, _, log_probs = policy._sample([policy.prompt(STATES[0])], 1)
    ids = policy.tokenizer(policy.prompt(STATES[0]), return_tensors="pt")["input_ids"]  # (1, T)
    answer = torch.tensor([tokens[0]])  # (1, L), EOS included when it stopped there
    with torch.no_grad():
        logits = policy.model(torch.cat([ids, answer], dim=1)).logits.log_softmax(-1)
    expected = sum(float(logits[0, ids.shape[1] - 1 + i, answer[0, i]]) for i in range(answer.shape[1]))
    assert log_probs[0] == pytest.approx(expected, abs=1e-3)


def test_sampling_is_reproducible_under_a_seed(tiny_policy: PolicyModel) -> None:
    torch.manual_seed(7)
    first = tiny_policy.generate(STATES[:2], 4)
    torch.manual_seed(7)
    assert tiny_policy.generate(STATES[:2], 4) == first


def _tactics_and_log_probs(cands: list) -> tuple[list[str], list[float]]:
    return [c.tactic for c in cands], [c.log_prob for c in cands]


def test_a_states_samples_do_not_depend_on_its_batchmates_or_the_global_rng(tiny_model_dir: Path) -> None:
    policy = PolicyModel.load(tiny_model_dir, PolicyConfig(device="cpu", dtype="float32", seed=3, max_prompt_tokens=160))
    alone = policy.generate([STATES[2]], 6)[0]
    torch.manual_seed(12345)  # the global RNG is not what sampling reads
    batched = policy.generate([STATES[0], STATES[3], STATES[2], STATES[1]], 6)[2]
    reordered = policy.generate([STATES[2], *STATES[:2]], 6)[0]
    for other in (batched, reordered):
        tactics, log_probs = _tactics_and_log_probs(other)
        assert tactics == _tactics_and_log_probs(alone)[0]
        assert log_probs == pytest.approx(_tactics_and_log_probs(alone)[1], abs=1e-4)
    # another seed, another n: other draws
    other_seed = PolicyModel(policy.model, policy.tokenizer, policy.config.model_copy(update={"seed": 4}), policy.path)
    assert [policy.generate([s], 6)[0] for s in STATES] != [other_seed.generate([s], 6)[0] for s in STATES]


def test_per_row_sampling_keeps_the_models_own_log_prob(tiny_model_dir: Path) -> None:
    policy = PolicyModel.load(
        tiny_model_dir, PolicyConfig(device="cpu", dtype="float32", seed=5, max_new_tokens=10, max_prompt_tokens=160)
    )
    prompt = policy.prompt(STATES[0])
    tokens, _, log_probs = policy._sample([prompt], 3)
    ids = policy.tokenizer(prompt, return_tensors="pt")["input_ids"]  # (1, T)
    for row, lp in zip(tokens, log_probs, strict=True):
        answer = torch.tensor([row])  # (1, L)
        with torch.no_grad():
            logits = policy.model(torch.cat([ids, answer], dim=1)).logits.log_softmax(-1)
        expected = sum(float(logits[0, ids.shape[1] - 1 + i, answer[0, i]]) for i in range(answer.shape[1]))
        assert lp == pytest.approx(expected, abs=1e-3)


def test_encode_is_batch_independent_and_deterministic(tiny_policy: PolicyModel) -> None:
    batched = tiny_policy.encode(STATES)
    assert batched.shape == (len(STATES), 128)
    assert batched.dtype == torch.float32
    for i, state in enumerate(STATES):
        torch.testing.assert_close(tiny_policy.encode([state])[0], batched[i], atol=1e-5, rtol=0)
    torch.testing.assert_close(tiny_policy.encode(list(reversed(STATES))).flip(0), batched, atol=1e-5, rtol=0)
    assert not torch.allclose(batched[0], batched[1])


def test_fingerprint_is_stable_and_tracks_the_weights(tiny_model_dir: Path, tmp_path: Path) -> None:
    copy = Path(shutil.copytree(tiny_model_dir, tmp_path / "m"))
    assert checkpoint_fingerprint(copy) == checkpoint_fingerprint(tiny_model_dir)
    data = bytearray((copy / "model.safetensors").read_bytes())
    data[-1] ^= 0xFF
    (copy / "model.safetensors").write_bytes(bytes(data))
    assert checkpoint_fingerprint(copy) != checkpoint_fingerprint(tiny_model_dir)


def test_chat_format_prompt_carries_exactly_one_bos(tiny_model_dir: Path) -> None:
    config = PolicyConfig(device="cpu", prompt_format="deepseek-v2", max_new_tokens=6, max_prompt_tokens=160)
    policy = PolicyModel.load(tiny_model_dir, config)
    prompt = policy.prompt(STATES[0])
    ids = policy._batch([prompt])["input_ids"][0].tolist()
    assert ids.count(policy.tokenizer.bos_token_id) == 1 and ids[0] == policy.tokenizer.bos_token_id
    assert len(policy.generate(STATES[:2], 2)) == 2  # random weights rarely write a fence: may be empty


def test_states_longer_than_the_context_are_fitted_not_overflowing(tiny_policy: PolicyModel) -> None:
    huge = "\n".join(f"h{i} : x{i} * {i} = {i} * x{i}" for i in range(300)) + "\n⊢ x1 = x1"
    prompt = tiny_policy.prompt(huge)
    assert len(tiny_policy.tokenizer(prompt)["input_ids"]) <= tiny_policy.config.max_prompt_tokens + 1
    assert prompt.endswith("⊢ x1 = x1[PROOFSTEP]")
    assert len(tiny_policy.generate([huge], 2)) == 1
    assert tiny_policy.encode([huge]).shape == (1, 128)


def test_garbled_weights_of_a_hashed_checkpoint_are_named_before_use(tiny_model_dir: Path, tmp_path: Path) -> None:
    """Issue 41: garbled weights that still load were used by `eval --model` with exit 0."""
    from burnqed.files import write_checksums

    copy = Path(shutil.copytree(tiny_model_dir, tmp_path / "m"))
    write_checksums(copy, ["model.safetensors"])  # what sft writes beside the weights it saves
    PolicyModel.load(copy, PolicyConfig(device="cpu"))
    data = bytearray((copy / "model.safetensors").read_bytes())
    data[-8] ^= 0xFF  # a weight byte: it would load and generate garbage
    (copy / "model.safetensors").write_bytes(bytes(data))
    with pytest.raises(PolicyLoadError, match=r"model\.safetensors does not match its hash"):
        PolicyModel.load(copy, PolicyConfig(device="cpu"))


def test_a_garbled_config_is_named_as_damaged_before_any_load(tiny_model_dir: Path, tmp_path: Path) -> None:
    """Issue 41: an unreadable checkpoint is reported as unreadable/damaged with its path, not as missing."""
    import shutil

    from burnqed.policy.errors import PolicyLoadError
    from burnqed.policy.model import check_model_dir

    model = tmp_path / "m"
    shutil.copytree(tiny_model_dir, model)
    (model / "config.json").write_bytes(b"\xff\xfe garbled")
    with pytest.raises(PolicyLoadError, match=rf"{model / 'config.json'} is unreadable or damaged \(UnicodeDecodeError"):
        check_model_dir(model)
