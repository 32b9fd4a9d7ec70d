"""The process runner: the model in a child process behind the generation service.

The real child (``python -m burnqed.policy.worker``) runs a briefly fine-tuned tiny model
(so that greedy decoding yields tactics); protocol faults use a stdlib-only fake child.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

import anyio
import pytest
import torch

from burnqed.cli import main
from burnqed.data.theorems import Theorem, save_theorems
from burnqed.policy.config import PolicyConfig, SFTConfig
from burnqed.policy.errors import PolicyGenerationError, PolicyLoadError
from burnqed.policy.model import PolicyModel
from burnqed.policy.process_runner import (
    PolicyProcessDied,
    PolicyProcessProtocolError,
    PolicyProcessTimeout,
    ProcessPolicy,
)
from burnqed.policy.service import GenerationService, is_async_policy
from burnqed.policy.types import TacticCandidate
from burnqed.policy.worker import WireTensor, WorkerAnswer
from tests.fixtures.lean import fake_repl_command, pid_alive
from tests.policy.test_sft import _template_pairs
from tests.search.test_components import _head_checkpoint

pytestmark = pytest.mark.anyio

GREEDY = PolicyConfig(device="cpu", dtype="float32", temperature=0.0, max_new_tokens=12, max_prompt_tokens=160)
STATES = [
    "⊢ ∀ (n : ℕ), n + 0 = n",
    "n : ℕ\n⊢ n + 0 = n",
    "h : P\n⊢ P",
    "h : P\n⊢ P ∧ Q",
    "a b : ℤ\n⊢ a + b = b + a",
    "x : ℕ\nh : x < 5\n⊢ x < 10",
    "⊢ False",
    "m k : ℕ\n⊢ m + k = k + m",
]
BOUND_S = 60  # start-up of a child that imports torch, on a busy 2-core runner

FAKE_WORKER = r"""
import json, os, sys, time
mode = sys.argv[1]
sys.stdin.readline()
if mode == "exit-early":
    sys.stderr.write("fake worker: cannot import torch\n")
    sys.exit(7)
if mode == "silent":
    time.sleep(60)
if mode == "load-error":
    error = {"type": "OutOfMemoryError", "message": "CUDA out of memory.\nTried 2 GiB"}
    print(json.dumps({"error": error}), flush=True)
    sys.exit(3)
ready = {"fingerprint": "f" * 16, "hidden_size": 4, "device": "cpu", "dtype": "torch.float32",
         "decode_mode": "eager", "pid": os.getpid()}
print(json.dumps({"ready": ready}), flush=True)
for line in sys.stdin:
    request = json.loads(line)
    if mode == "garbage":
        print("this is not json", flush=True)
    elif mode == "mute":
        continue
    elif mode == "wrong-id":
        print(json.dumps({"id": request["id"] + 1, "candidates": [[] for _ in request["states"]]}), flush=True)
    else:
        print(json.dumps({"id": request["id"], "candidates": [[{"tactic": "rfl", "log_prob": -1.0}]
                                                                for _ in request["states"]]}), flush=True)
if mode == "stubborn":
    time.sleep(60)
"""


def _fake(mode: str, **kwargs: float) -> ProcessPolicy:
    return ProcessPolicy("unused", GREEDY, command=[sys.executable, "-S", "-c", FAKE_WORKER, mode], **kwargs)


def _assert_same(got: list[list[TacticCandidate]], expected: list[list[TacticCandidate]]) -> None:
    """Same tactics in the same order, log-probs equal up to batch-composition rounding."""
    assert [[c.tactic for c in row] for row in got] == [[c.tactic for c in row] for row in expected]
    for row, want in zip(got, expected, strict=True):
        assert [c.log_prob for c in row] == pytest.approx([c.log_prob for c in want], abs=1e-4)


@pytest.fixture(scope="module")
def taught(tiny_model_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny model after a few seconds of SFT: greedy decoding proposes real tactics."""
    from burnqed.policy.sft import sft_policy

    out = tmp_path_factory.mktemp("taught") / "policy"
    sft_policy(tiny_model_dir, _template_pairs(100, seed=0), out, SFTConfig(epochs=8, learning_rate=3e-3, seed=0))
    return out


async def test_the_child_answers_what_the_direct_model_answers_and_leaves_nothing_behind(taught: Path) -> None:
    direct = PolicyModel.load(taught, GREEDY)
    expected = direct.generate(STATES, 4)
    assert sum(len(c) for c in expected) >= len(STATES) // 2  # greedy proposes tactics: the comparison means something
    with anyio.fail_after(BOUND_S):
        async with ProcessPolicy(taught, GREEDY) as policy, GenerationService(policy) as service:
            assert is_async_policy(policy) and policy.max_concurrency == 1
            assert (service.fingerprint, service.hidden_size) == (direct.fingerprint, direct.hidden_size)
            pid = policy.pid
            assert pid is not None and pid_alive(pid) and policy.alive

            async def one(i: int) -> None:
                got[i] = (await service.generate([STATES[i]], 4))[0]

            got: dict[int, list] = {}
            async with anyio.create_task_group() as tg:  # concurrent callers share micro-batches
                for i in range(len(STATES)):
                    tg.start_soon(one, i)
            _assert_same([got[i] for i in range(len(STATES))], expected)
            assert await service.generate(STATES, 4) == expected
            torch.testing.assert_close(await service.encode(STATES), direct.encode(STATES), atol=1e-5, rtol=1e-5)
            assert await policy.generate([], 4) == [] and (await policy.encode([])).shape == (0, direct.hidden_size)
            # a model failure is an answer: the caller gets PolicyGenerationError, the child goes on
            with pytest.raises(PolicyGenerationError, match="ValueError: n must be at least 1"):
                await policy.generate(STATES[:1], 0)
            assert policy.alive and await policy.generate(STATES[:2], 4) == direct.generate(STATES[:2], 4)
    assert not pid_alive(pid) and not policy.alive and policy.death == "closed"


async def test_a_missing_model_dir_is_the_policy_load_error_of_a_direct_load(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    with pytest.raises(PolicyLoadError) as direct:
        PolicyModel.load(missing, GREEDY)
    policy = ProcessPolicy(missing, GREEDY)
    with anyio.fail_after(BOUND_S), pytest.raises(PolicyLoadError) as through:
        async with policy:
            pass
    assert str(through.value) == str(direct.value) and "\n" not in str(through.value)
    assert policy.pid is not None and not pid_alive(policy.pid)


async def test_a_child_killed_mid_request_is_a_typed_error_and_the_service_keeps_failing_cleanly(taught: Path) -> None:
    errors: list[BaseException] = []
    with anyio.fail_after(BOUND_S):
        async with ProcessPolicy(taught, GREEDY) as policy, GenerationService(policy) as service:
            pid = policy.pid
            assert pid is not None
            os.kill(pid, signal.SIGSTOP)  # the request it is sent stays unanswered

            async def call() -> None:
                with pytest.raises(PolicyProcessDied) as info:
                    await service.generate(STATES, 4)
                errors.append(info.value)

            async with anyio.create_task_group() as tg:
                tg.start_soon(call)
                while not policy.busy:
                    await anyio.sleep(0.005)
                os.kill(pid, signal.SIGKILL)
            for _ in range(2):
                with pytest.raises(PolicyProcessDied, match="not running"):
                    await service.generate(STATES[:1], 4)
                with pytest.raises(PolicyProcessDied, match="not running"):
                    await service.encode(STATES[:1])
    (error,) = errors
    message = str(error)
    assert f"pid {pid}) died during generate (killed by SIGKILL)" in message and "\n" not in message
    assert "stderr: " in message and "policy worker ready" in message  # the child's last stderr lines
    assert not pid_alive(pid)


async def test_a_child_that_exits_before_it_is_ready_says_why() -> None:
    with anyio.fail_after(BOUND_S), pytest.raises(PolicyProcessDied) as info:
        async with _fake("exit-early"):
            pass
    assert "died during start-up (exit status 7); stderr: fake worker: cannot import torch" in str(info.value)


async def test_any_load_failure_in_the_child_is_a_one_line_policy_load_error() -> None:
    with anyio.fail_after(BOUND_S), pytest.raises(PolicyLoadError) as info:
        async with _fake("load-error"):
            pass
    assert str(info.value) == (
        "the policy worker cannot load the model in unused (OutOfMemoryError: CUDA out of memory. Tried 2 GiB)"
    )


async def test_a_child_that_never_says_hello_is_killed_after_the_startup_timeout() -> None:
    policy = _fake("silent", startup_timeout_s=0.5)
    with anyio.fail_after(BOUND_S), pytest.raises(PolicyProcessTimeout, match="no answer to start-up within 0.5s"):
        async with policy:
            pass
    assert policy.pid is not None and not pid_alive(policy.pid)


@pytest.mark.parametrize("mode", ["garbage", "wrong-id"])
async def test_an_unreadable_or_out_of_step_answer_kills_the_child(mode: str) -> None:
    with anyio.fail_after(BOUND_S):
        async with _fake(mode) as policy:
            assert policy.fingerprint == "f" * 16
            with pytest.raises(PolicyProcessProtocolError):
                await policy.generate(["⊢ True"], 1)
            assert policy.pid is not None and not pid_alive(policy.pid)
            with pytest.raises(PolicyProcessDied, match="not running"):
                await policy.generate(["⊢ True"], 1)


async def test_a_child_that_ignores_end_of_input_is_killed_after_the_grace_period() -> None:
    with anyio.fail_after(BOUND_S):
        async with _fake("stubborn", shutdown_grace_s=0.2) as policy:
            assert await policy.generate(["⊢ True"], 1) == [[TacticCandidate(tactic="rfl", log_prob=-1.0)]]
            pid = policy.pid
    assert pid is not None and not pid_alive(pid)


async def test_a_cancelled_caller_takes_the_child_down_with_its_out_of_step_pipe() -> None:
    with anyio.fail_after(BOUND_S):
        async with _fake("mute") as policy:
            with anyio.move_on_after(0.2):
                await policy.generate(["⊢ True"], 1)
            assert policy.death == "interrupted during generate"
            assert policy.pid is not None and not pid_alive(policy.pid)


async def test_a_child_that_does_not_answer_in_time_is_killed() -> None:
    with anyio.fail_after(BOUND_S):
        async with _fake("mute", request_timeout_s=0.2) as policy:
            with pytest.raises(PolicyProcessTimeout, match=r"no answer to encode within 0.2s \(killed\)"):
                await policy.encode(["⊢ True"])
            assert policy.pid is not None and not pid_alive(policy.pid)


def test_embeddings_and_minus_infinity_survive_the_wire() -> None:
    tensor = torch.randn(3, 5, dtype=torch.bfloat16)
    back = WireTensor.model_validate_json(WireTensor.from_tensor(tensor).model_dump_json()).to_tensor()
    assert back.dtype == torch.float32 and torch.equal(back, tensor.float())
    answer = WorkerAnswer.model_validate_json(
        WorkerAnswer(id=1, candidates=[[{"tactic": "rfl", "log_prob": float("-inf")}]]).model_dump_json()
    )
    assert answer.tactic_candidates()[0][0].log_prob == float("-inf")


def test_eval_with_the_process_runner_solves_what_the_thread_runner_solves(taught: Path, tmp_path: Path) -> None:
    model = PolicyModel.load(taught, GREEDY)
    ebm = _head_checkpoint(tmp_path, model.hidden_size, model.fingerprint)  # the energy head encodes in the child
    theorems = [
        Theorem(name="t0", statement="1 + 1 = 2"),
        Theorem(name="t1", statement="False"),
        Theorem(name="t2", statement="∀ (x : Nat), x < 5 → x < 10"),
        Theorem(name="t3", statement="∀ (n : Nat), 0 + n = n"),
    ]
    file = tmp_path / "set.jsonl"
    save_theorems(file, theorems)
    common = [
        "eval", "--theorems", str(file), "--limit", "3", "--model", str(taught), "--max-nodes", "6",
        "--set", 'lean.backend="command"', "--set", f"lean.command={json.dumps(fake_repl_command())}",
        "--set", "search.automation_tactics=[]", "--set", "policy.temperature=0", "--set", 'policy.device="cpu"',
        "--set", "policy.max_new_tokens=12", "--ebm", str(ebm),
    ]  # fmt: skip
    reports = {}
    for runner in ("thread", "process"):
        out = tmp_path / f"{runner}.json"
        assert main([*common, "--output", str(out), "--set", f'policy.service.runner="{runner}"']) == 0
        reports[runner] = json.loads(out.read_text(encoding="utf-8"))
    thread, process = reports["thread"], reports["process"]
    assert thread["total"] == process["total"] == 3 and thread["label"] == process["label"] == "with_ebm"
    assert thread["solved"] == process["solved"] >= 1  # the model's own tactics prove something
    same = ("name", "proved", "proof", "nodes", "reason")
    assert [[o[k] for k in same] for o in thread["outcomes"]] == [[o[k] for k in same] for o in process["outcomes"]]
